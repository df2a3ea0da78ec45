"""rsa-socket, BROKEN: `Server: ERROR`, then the connection stays open and is read again.

Plants: every refusal sends `Server: ERROR` as it should but does not close; the server drops
what it had buffered and goes back to waiting for a first message on the same connection (docs/PROTOCOL.md: after `Server: ERROR` the
server reads nothing more, and closes).

Expected verdict: fail, naming "did not close".
"""

import base_server
from base_server import PeerGone, Refusal


class StaysOpen(base_server.Conversation):
    def converse(self):
        try:
            super().converse()
        except PeerGone:
            raise
        except Refusal as refusal:
            self.buffer = b""  # drop what was refused and wait for whatever comes next
            raise Refusal(str(refusal), answer=refusal.answer, close=False)


if __name__ == "__main__":
    base_server.main(StaysOpen, __doc__)
