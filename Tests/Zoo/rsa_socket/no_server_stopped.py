"""rsa-socket, BROKEN: `Quit` is answered by a bare close, without `Server stopped\\n`.

Plants: on `Quit` the server closes without sending `Server stopped\\n`, so a client waiting for
it (as the tutorial app does) never learns the server stopped.

Expected verdict: fail, naming "Server stopped".
"""

import base_server


class NoStoppedLine(base_server.Conversation):
    def on_quit(self):
        pass


if __name__ == "__main__":
    base_server.main(NoStoppedLine, __doc__)
