# a hand client for pritish0803/ECC_ALGO server.py (Python 2, PyCrypto): the steps its code reads
import socket, sys
from Crypto.PublicKey import RSA
s = socket.create_connection((sys.argv[1], 7777))
s.send("Client: OK")
k = s.recv(4096); print repr(k[:40]), '...', repr(k[-30:])
pub = RSA.importKey(k.replace("public_key=", "").strip())
print "key bits", pub.size() + 1
import time; time.sleep(0.3)
s.send("encrypted_message=" + str(pub.encrypt("hello pi", 32)))
print repr(s.recv(100))
time.sleep(0.3)
s.send("Quit"); print repr(s.recv(100))
