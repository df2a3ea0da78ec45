"""aes-https, CORRECT: echoes any JSON value, not only objects.

Written from docs/PROTOCOL.md ("Profile aes-https": the envelope's plaintext is JSON): the
threaded server with one difference: a plaintext that is JSON but not an object (`[1,2]`, `"x"`,
`3`, `null`) is read and echoed (`{"echo": [1,2]}`) instead of refused. The protocol asks for JSON;
refusing non-objects is PythonRef's choice, not the protocol's.

Expected verdict: pass.
"""

import threaded_httpserver


class EchoesAnyJson(threaded_httpserver.SecureAPI):
    def params_ok(self, params):
        return True


if __name__ == "__main__":
    threaded_httpserver.main(EchoesAnyJson, __doc__)
