"""rsa-socket, CORRECT for a robust client, but not for seed 000's app: the ciphertext goes out
in two writes, a moment apart.

Plants: pi-to-phone sends the first 64 bytes of the ciphertext, pauses, then the rest — what TCP
may do to any write. A client that reads exactly k bytes (the reference client) is not bothered;
seed 000's app decrypts only what its last 200-byte read returned, so it gets the tail alone.
Written from docs/PROTOCOL.md ("Client profiles"); pkcs1 by default, as the seed.

Expected verdicts: pass with --client reference; with --client seed-app fail, naming
"one-200-byte-read".
"""

import time

import base_server


class SplitCiphertext(base_server.Conversation):
    def encrypt_for(self, phone_key, message):
        ciphertext = super().encrypt_for(phone_key, message)
        self.send(ciphertext[:64])
        time.sleep(0.2)  # the server's own pacing, so the two halves arrive as two reads
        return ciphertext[64:]


if __name__ == "__main__":
    base_server.main(SplitCiphertext, __doc__, padding_default="pkcs1")
