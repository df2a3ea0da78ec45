"""rsa-socket, CORRECT: length-prefixed framing (4-byte big-endian length), 64 KiB limit.

Written from docs/PROTOCOL.md ("Framing: framed", the message table): every message in both
directions is a 4-byte big-endian length and that many bytes; a frame holds exactly one whole
message. Length 0 or over 65536 is refused with a `Server: ERROR` frame and a close, as is any
frame that is not the message the conversation expects. OAEP-SHA256 both ways and the `digest`
extension. Deadlines: 20 s for a client to start a frame, 5 s to finish one.

Expected verdict: pass (run with --framing framed).
"""

import hashlib
import os
import re
import socket
import struct
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import zoolib  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import padding, rsa  # noqa: E402

LIMIT = 65536
IDLE, WITHIN_FRAME = 20.0, 5.0
OAEP_SHA256 = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
WHOLE_PEM = re.compile(rb"-----BEGIN [A-Z ]+-----.*-----END [A-Z ]+-----(\r\n|\n)?", re.S)


class FrameError(Exception):
    pass


def recv_exactly(sock, count, first_byte_timeout):
    data = bytearray()
    sock.settimeout(first_byte_timeout)
    while len(data) < count:
        try:
            chunk = sock.recv(count - len(data))
        except socket.timeout:
            raise FrameError("timed out with %d of %d bytes" % (len(data), count))
        if not chunk:
            raise FrameError("peer closed with %d of %d bytes" % (len(data), count))
        data += chunk
        sock.settimeout(WITHIN_FRAME)
    return bytes(data)


def read_frame(sock):
    (length,) = struct.unpack(">I", recv_exactly(sock, 4, IDLE))
    if length == 0 or length > LIMIT:
        raise FrameError("frame length %d" % length)
    return recv_exactly(sock, length, WITHIN_FRAME)


def send_frame(sock, payload):
    sock.sendall(struct.pack(">I", len(payload)) + payload)


def conversation(sock, private_key):
    k = private_key.key_size // 8
    first = read_frame(sock)
    if first == b"Client: OK":
        send_frame(sock, b"public_key=" + zoolib.spki_pem(private_key.public_key()))
        frame = read_frame(sock)
        if not frame.startswith(b"encrypted_message=") or len(frame) != len(b"encrypted_message=") + k:
            raise FrameError("not encrypted_message= with %d bytes" % k)
        try:
            plaintext = private_key.decrypt(frame[len(b"encrypted_message="):], OAEP_SHA256)
        except ValueError:
            raise FrameError("decryption failed")
        send_frame(sock, b"Server: OK sha256=" + hashlib.sha256(plaintext).hexdigest().encode("ascii"))
    elif first.startswith(b"public_key="):
        pem = first[len(b"public_key="):]
        if not WHOLE_PEM.fullmatch(pem):
            raise FrameError("the frame is not one PEM block")
        try:
            phone_key = serialization.load_pem_public_key(pem)
        except ValueError:
            raise FrameError("not a public key")
        if not isinstance(phone_key, rsa.RSAPublicKey):
            raise FrameError("not an RSA public key")
        send_frame(sock, phone_key.encrypt(b"Secret message from RPi server", OAEP_SHA256))
    else:
        raise FrameError("unknown first message")
    if read_frame(sock) != b"Quit":
        raise FrameError("expected Quit")
    send_frame(sock, b"Server stopped\n")


def client(sock, private_key):
    with sock:
        try:
            conversation(sock, private_key)
        except FrameError as why:
            print("refused: %s" % why, file=sys.stderr)
            try:
                send_frame(sock, b"Server: ERROR")
            except OSError:
                pass
        except OSError as error:
            print("client: %s" % error, file=sys.stderr)


def main():
    args = zoolib.arguments(__doc__.splitlines()[0], rsa_key=True)
    private_key = zoolib.rsa_private_key(args.key, args.bits)
    listener = socket.create_server((args.host, args.port), reuse_port=False)
    zoolib.announce(listener.getsockname()[1])
    while True:
        sock, _ = listener.accept()
        threading.Thread(target=client, args=(sock, private_key), daemon=True).start()


if __name__ == "__main__":
    main()
