"""rsa-socket, WEAK: encrypts its message to any client key, e = 1 included (hand-rolled RSA).

Plants: pi-to-phone takes the client's key as numbers and encrypts with its own PKCS#1 v1.5
padding and `pow(m, e, n)`, checking nothing (as hand-written RSA servers do): with e = 1 the
"ciphertext" is 00 02 PS 00 || message, readable by anyone. Everything else is the correct base
server (pkcs1, legacy). Hand-rolled, so it behaves so on every cryptography (>= 42 refuses to load
such a key, 3.0-era ones load it).

Expected verdict: pass, with the audit finding naming "e = 1" (a weakness: --strict fails it).
"""

import os

import base_server


def parse_spki_numbers(pem):
    """(n, e) from a `BEGIN PUBLIC KEY` or `BEGIN RSA PUBLIC KEY` PEM, read by hand (no validation at all)."""
    import base64

    body = b"".join(line for line in pem.splitlines() if line and not line.startswith(b"-----"))
    der = base64.b64decode(body)

    def element(index):
        tag, length, start = der[index], der[index + 1], index + 2
        if length & 0x80:
            count = length & 0x7F
            length, start = int.from_bytes(der[start:start + count], "big"), start + count
        return tag, start, start + length

    _, outer, _ = element(0)
    first_tag, _, first_end = element(outer)
    if first_tag == 0x02:  # `BEGIN RSA PUBLIC KEY`: PKCS#1 RSAPublicKey { n, e }
        n_start, n_end = element(outer)[1:]
    else:  # SubjectPublicKeyInfo { algorithm, BIT STRING { 00, RSAPublicKey } }
        _, bits_start, _ = element(first_end)
        _, sequence_start, _ = element(bits_start + 1)
        _, n_start, n_end = element(sequence_start)
    _, e_start, e_end = element(n_end)
    return int.from_bytes(der[n_start:n_end], "big"), int.from_bytes(der[e_start:e_end], "big")


class HandRolledRSA(base_server.Conversation):
    def import_key(self, pem):
        try:
            return parse_spki_numbers(pem)
        except (IndexError, ValueError):
            raise base_server.Refusal("not a public key PEM")

    def encrypt_for(self, numbers, message):
        n, e = numbers
        k = (n.bit_length() + 7) // 8
        filler = bytes(b % 255 + 1 for b in os.urandom(k - len(message) - 3))
        block = b"\x00\x02" + filler + b"\x00" + message
        return pow(int.from_bytes(block, "big"), e, n).to_bytes(k, "big")


if __name__ == "__main__":
    base_server.main(HandRolledRSA, __doc__, padding_default="pkcs1")
