"""rsa-socket, BROKEN: framed, and a frame's length is believed whatever it says.

Plants: `read_frame` refuses a length of 0 but not one over the 65536 limit: it waits for all the
bytes the header announced (docs/PROTOCOL.md, "Framing": lengths over the maximum are errors, the
receiver answers with the error message and closes). Any client can make it hold memory it names.

Expected verdict: fail, naming the limit (--framing framed).
"""

import struct

import base_server
from base_server import Refusal


class NoLimit(base_server.Conversation):
    def read_frame(self):
        while len(self.buffer) < 4:
            self.buffer += self.recv(self.idle if not self.buffer else 5.0, "partial frame header")
        (length,) = struct.unpack(">I", self.buffer[:4])
        if length == 0:
            raise Refusal("frame length 0")
        saved, self.limit = self.limit, 1 << 32  # the plant: no bound on what a header may announce
        try:
            return super().read_frame()
        finally:
            self.limit = saved


if __name__ == "__main__":
    base_server.main(NoLimit, __doc__)
