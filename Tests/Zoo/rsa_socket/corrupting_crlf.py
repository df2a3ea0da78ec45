"""rsa-socket, BROKEN: the original tutorial's `data.replace("\\r\\n", "")` on every read.

Plants: the tutorial server in tutorial_recv1024.py, with the seed's line-end stripping put back:
every recv(1024) has its `\\r\\n` pairs removed — raw ciphertext included — so about 0.2% of
1024-bit (and more of larger) ciphertexts lose two bytes and no longer decrypt
(docs/PROTOCOL.md, "Framing: legacy").

Expected verdict: fail, naming "corrupt" (binary safety of legacy framing).
"""

import tutorial_recv1024


def recv_and_strip_crlf(conn):
    return conn.recv(1024).replace(b"\r\n", b"")


if __name__ == "__main__":
    tutorial_recv1024.main(read=recv_and_strip_crlf, description=__doc__)
