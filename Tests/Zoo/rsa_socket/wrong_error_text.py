"""rsa-socket, BROKEN: refuses with `ERROR` instead of exactly `Server: ERROR`.

Plants: every refusal — bad key, undecryptable or malformed message — is the 5 bytes `ERROR`
(the same for every cause, so no oracle), which a client waiting for `Server: ERROR` does not
recognise.

Expected verdict: fail, naming "Server: ERROR".
"""

import base_server


class WrongErrorText(base_server.Conversation):
    def send(self, payload):
        super().send(b"ERROR" if payload == base_server.ERROR else payload)


if __name__ == "__main__":
    base_server.main(WrongErrorText, __doc__)
