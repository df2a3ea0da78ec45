"""rsa-socket, BROKEN: `.strip()` on every read, raw ciphertext included.

Plants: the tutorial server in tutorial_recv1024.py with `conn.recv(1024).strip()`, the usual
"clean up the input" line. It is harmless for the text messages, but a ciphertext whose last byte
is ASCII whitespace (\\t \\n \\v \\f \\r or space: 6 of 256 values, about 2.3% of ciphertexts) loses
it and no longer decrypts. Only a probe with ciphertexts chosen to end in whitespace finds it
every time.

Expected verdict: fail, naming "corrupt" (binary safety of legacy framing).
"""

import tutorial_recv1024


def recv_and_strip(conn):
    return conn.recv(1024).strip()


if __name__ == "__main__":
    tutorial_recv1024.main(read=recv_and_strip, description=__doc__)
