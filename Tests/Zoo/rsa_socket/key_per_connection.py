"""rsa-socket, CORRECT: a new RSA key for every connection, PKCS#1 v1.5 with implicit rejection.

Written from docs/PROTOCOL.md: nothing in the protocol says a server keeps its key between
conversations (the tutorial server made one at start; a server may as well make one per client).
Each connection gets a key never used before, generated ahead by a background thread so that no
conversation waits for it (the base server otherwise: pkcs1, the digest extension). The zoo runs it
on a current cryptography (OpenSSL >= 3.2), whose implicit rejection answers a bad padding with
`Server: OK` and a synthetic plaintext's digest; the same ciphertext sent on another connection
meets another key, so whether that answer is deterministic cannot be shown — which is no fault.

Expected verdict: pass, the audit naming implicit rejection (determinism not provable).
"""

import queue
import threading

import base_server
import zoolib


class FreshKeys:
    """Keys generated ahead, each handed out once."""

    def __init__(self, bits, ready=3):
        self.bits, self.keys = bits, queue.Queue(maxsize=ready)
        threading.Thread(target=self.fill, daemon=True).start()

    def fill(self):
        while True:
            self.keys.put(zoolib.rsa_private_key(None, self.bits))

    def take(self):
        return self.keys.get()


class KeyPerConnection(base_server.Conversation):
    def __init__(self, sock, server):
        super().__init__(sock, server)
        self.private_key = server.fresh_keys.take()
        self.k = self.private_key.key_size // 8


class Server(base_server.Server):
    def __init__(self, options, conversation_class):
        super().__init__(options, conversation_class)
        self.fresh_keys = FreshKeys(options.bits)


if __name__ == "__main__":
    import argparse

    def extra(parser: argparse.ArgumentParser):
        parser.add_argument("--padding", choices=["pkcs1", "oaep-sha1", "oaep-sha256"], default="pkcs1")
        parser.add_argument("--framing", choices=["legacy", "framed"], default="legacy")
        parser.add_argument("--digest", action="store_true", help="answer Server: OK sha256=<hex>")

    Server(zoolib.arguments(__doc__.strip().splitlines()[0], rsa_key=True, extra=extra), KeyPerConnection).serve()
