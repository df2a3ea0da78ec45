"""Ends before it listens."""
import os
import sys

print("PGID %d" % os.getpgid(0), flush=True)
sys.exit("cannot open the key file keys/server.pem")
