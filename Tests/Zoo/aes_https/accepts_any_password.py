"""aes-https, BROKEN: login checks the user name only.

Plants: `POST /login` with the right user name and any password gets a token and a key (200)
instead of 401.

Expected verdict: fail, naming "wrong password".
"""

import threaded_httpserver


class NameIsEnough(threaded_httpserver.SecureAPI):
    def password_ok(self, username, password):
        return username == self.server.username


if __name__ == "__main__":
    threaded_httpserver.main(NameIsEnough, __doc__)
