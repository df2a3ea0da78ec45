# a hand client for ProPorygon/TheOgreProtocol directory_authority.py (Python 2, PyCrypto)
import socket, struct, sys
from Crypto.PublicKey import RSA
from Crypto.Cipher import AES
port = int(sys.argv[1]); pub = RSA.importKey(open(sys.argv[2]).read())
def c(): return socket.create_connection(("127.0.0.1", port))
def hp(p): return socket.inet_aton("127.0.0.1") + struct.pack("!i", p)
node = RSA.generate(1024).exportKey(format="OpenSSH"); assert len(node) == 212
for t, p in (("n", 7001), ("n", 7002), ("e", 7003)):
    s = c(); s.sendall(t + hp(p) + node); s.close()
import time; time.sleep(0.3)
s = c(); s.sendall("r"); k = "K" * 32
ct = pub.encrypt(k, 0)[0]; s.sendall(struct.pack("!I", len(ct)) + ct)
n = struct.unpack("!I", s.recv(4))[0]; blob = ""
while len(blob) < n: blob += s.recv(n - len(blob))
pt = AES.new(k, AES.MODE_CBC, "0" * 16).decrypt(blob)
print "route", n, "bytes; padding", ord(pt[-1]), "; hops", [struct.unpack("!i", pt[i*220+4:i*220+8])[0] for i in range(3)]
