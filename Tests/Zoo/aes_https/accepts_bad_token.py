"""aes-https, BROKEN: /secure-data without a valid token is served anyway.

Plants: an unknown or missing `Authorization` token falls back to the key of the most recent
login instead of 401 — anyone who can reach the server gets answers under someone else's key.

Expected verdict: fail, naming "token".
"""

import threaded_httpserver


class FallsBackToLastLogin(threaded_httpserver.SecureAPI):
    def key_for(self, token):
        with self.server.lock:
            key = self.server.sessions.get(token)
            if key is None and self.server.sessions:
                key = list(self.server.sessions.values())[-1]
        return key


if __name__ == "__main__":
    threaded_httpserver.main(FallsBackToLastLogin, __doc__)
