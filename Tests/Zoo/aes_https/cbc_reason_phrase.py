"""aes-https, BROKEN: a CBC padding oracle in the HTTP reason phrase (Vaudenay).

Plants: every bad envelope gets the base's `400 {"error":"bad request"}`, but the status line
of a bad padding reads `HTTP/1.1 400 Bad Padding` where the others read `400 Bad Request`.

Expected verdict: fail, naming "padding oracle".
"""

import json

import threaded_httpserver


class ReasonPhrase(threaded_httpserver.SecureAPI):
    def refuse_envelope(self, why):
        body = json.dumps({"error": "bad request"}, separators=(",", ":")).encode()
        self.send_response(400, "Bad Padding" if why == "padding" else "Bad Request")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


if __name__ == "__main__":
    threaded_httpserver.main(ReasonPhrase, __doc__)
