"""rsa-socket, BROKEN: after `Server stopped\\n` the connection stays open and answers again.

Plants: on `Quit` the server sends `Server stopped\\n` and then, instead of closing, starts a new
conversation on the same connection: a further `Client: OK` gets `public_key=…`.

Expected verdict: fail, naming "after Quit".
"""

import base_server
from base_server import Refusal


class NeverStops(base_server.Conversation):
    def on_quit(self):
        self.send(b"Server stopped\n")
        raise Refusal("stopped; listening again", answer=None, close=False)


if __name__ == "__main__":
    base_server.main(NeverStops, __doc__)
