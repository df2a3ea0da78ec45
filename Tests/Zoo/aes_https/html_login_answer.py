"""aes-https, BROKEN for seed 001's app: the login answer says it is HTML.

Plants: the seed-app-friendly server, but its login answer goes out as `Content-Type: text/html`
(a framework default). A client that parses the body regardless is not bothered; AFNetworking's
AFJSONResponseSerializer, which seed 001 uses for the login, refuses any type but
application/json, text/json and text/javascript.

Expected verdict with --client seed-app: fail, naming "login-answer-as-afjsonresponseserializer-reads-it".
"""

import json

import seed_app_friendly
import threaded_httpserver


class HTMLLoginAnswer(seed_app_friendly.SeedAppFriendly):
    def reply(self, status, document):
        if self.path != "/login":
            return super().reply(status, document)
        body = json.dumps(document, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


if __name__ == "__main__":
    threaded_httpserver.main(HTMLLoginAnswer, __doc__)
