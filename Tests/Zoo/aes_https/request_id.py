"""aes-https, CORRECT: every answer carries a fresh request id and time.

Every response has an `X-Request-Id` header (a fresh UUID) and every refusal's body carries the
same id and the server's clock: `{"error":"bad request","request_id":"<uuid>","time":<float>}`.
Apart from those fields, every bad envelope gets one answer, as the base server gives; what
differs between two answers to the same request is not an oracle.

Expected verdict: pass.
"""

import json
import time
import uuid

import threaded_httpserver


class RequestIds(threaded_httpserver.SecureAPI):
    def reply(self, status, document):
        request_id = str(uuid.uuid4())
        if status != 200:
            document = dict(document, request_id=request_id, time=time.time())
        body = json.dumps(document, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Request-Id", request_id)
        self.end_headers()
        self.wfile.write(body)


if __name__ == "__main__":
    threaded_httpserver.main(RequestIds, __doc__)
