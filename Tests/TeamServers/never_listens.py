"""Starts, and never listens."""
import os
import time

print("PGID %d" % os.getpgid(0), flush=True)
print("warming up forever", flush=True)
while True:
    time.sleep(3600)
