"""aes-https, BROKEN for seed 001's app: secure-data wants `Content-Type: application/json`.

Plants: the seed-app-friendly server, but /secure-data refuses a body not labelled
application/json with 415 (as a framework's `request.get_json()` does). Seed 001's serializer sets
no Content-Type, and iOS labels such a POST body application/x-www-form-urlencoded.

Expected verdict with --client seed-app: fail, naming "envelope-without-json-content-type".
"""

import seed_app_friendly
import threaded_httpserver


class JSONContentTypeOnly(seed_app_friendly.SeedAppFriendly):
    def secure_data(self, body):
        if self.headers.get("Content-Type", "").split(";")[0].strip().lower() != "application/json":
            return self.reply(415, {"error": "unsupported media type"})
        return super().secure_data(body)


if __name__ == "__main__":
    threaded_httpserver.main(JSONContentTypeOnly, __doc__)
