"""Messages on a tcp byte stream, by the description's framing (docs/PROTOCOL-DESCRIPTIONS.md,
`[transport]`). Pure: `frame` turns a message into bytes; a `Reader` is fed bytes and cut into
messages.

legacy: nothing delimits messages (the seeds' one send() each). A reader takes a message of known
length exactly (`encrypted_message=` + k bytes) and otherwise all that arrived before a quiet gap,
which the shell reports as `final=True`.
length-prefix: a big-endian length of `length_bytes`, then the message; 0 and over max_message are
refused. line: the message, then `line_end`; a message may not contain it. close: the message is
all its sender writes before it closes its side (a half-close); the shell shuts down its writing
side after each message it sends.
"""

from __future__ import annotations

from typing import Optional

from .description import Transport


class FramingError(Exception):
    """The byte stream breaks the framing: the connection cannot go on."""


def frame(transport: Transport, message: bytes) -> bytes:
    if len(message) > transport.max_message:
        raise FramingError(f"a message of {len(message)} bytes is over max_message {transport.max_message}")
    if transport.framing == "length-prefix":
        if not message:
            raise FramingError("length-prefix cannot carry an empty message (a length of 0 is refused)")
        return len(message).to_bytes(transport.length_bytes, "big") + message
    if transport.framing == "line":
        if transport.line_end in message:
            raise FramingError(f"a line-framed message may not contain {transport.line_end!r}")
        return message + transport.line_end
    return message


class Reader:
    """Cuts an incoming byte stream into messages."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport
        self._buf = bytearray()

    @property
    def buffered(self) -> int:
        return len(self._buf)

    def feed(self, data: bytes) -> None:
        self._buf += data

    def next(self, expected_length: Optional[int] = None, final: bool = False,
             alternative: Optional[bytes] = None) -> Optional[bytes]:
        """One complete message off the front, or None for "not yet". `expected_length`: the
        message's length when the receiver knows it (legacy only); `final`: nothing more is
        coming for now (a quiet gap or the peer's end); `alternative`: a fixed message that may come
        instead (the server's error value), taken whole while the bytes so far agree with it, as
        rsa_socket's client matches `Server: OK` or `Server: ERROR`."""
        t = self._t
        if t.framing == "length-prefix":
            n_bytes = t.length_bytes
            if len(self._buf) < n_bytes:
                if final and self._buf:
                    raise FramingError("an incomplete length prefix")
                return None
            n = int.from_bytes(self._buf[:n_bytes], "big")
            if n == 0:
                raise FramingError("a length prefix of 0")
            if n > t.max_message:
                raise FramingError(f"a length prefix of {n} is over max_message {t.max_message}")
            if len(self._buf) < n_bytes + n:
                if final:
                    raise FramingError(f"an incomplete message: {len(self._buf) - n_bytes} of {n} bytes")
                return None
            return self._take(n_bytes, n)
        if t.framing == "line":
            at = self._buf.find(t.line_end)
            if at < 0:
                # A line of max_message bytes whose b"\r\n" arrives split holds max_message + 1 bytes
                # before its b"\n": over that, no line end can make it fit.
                if len(self._buf) > t.max_message + len(t.line_end) - 1:
                    raise FramingError(f"no line end within max_message {t.max_message} bytes")
                if final and self._buf:
                    raise FramingError(f"an incomplete line of {len(self._buf)} bytes")
                return None
            if at > t.max_message:
                raise FramingError(f"a line of {at} bytes is over max_message {t.max_message}")
            message = self._take(0, at)
            del self._buf[: len(t.line_end)]
            return message
        if t.framing == "close":
            if len(self._buf) > t.max_message:
                raise FramingError(f"more than max_message {t.max_message} bytes before the sender closed")
            return self._take(0, len(self._buf)) if final and self._buf else None  # only the end of the stream ends it
        # legacy
        if alternative and expected_length is not None and self._buf:
            n = min(len(self._buf), len(alternative))
            if self._buf[:n] == alternative[:n]:
                if len(self._buf) >= len(alternative):
                    return self._take(0, len(alternative))
                if not final:
                    return None
        if expected_length is not None and len(self._buf) >= expected_length:
            return self._take(0, expected_length)
        if len(self._buf) > t.max_message:
            raise FramingError(f"more than max_message {t.max_message} bytes without a complete message")
        if final and self._buf:
            return self._take(0, len(self._buf))  # all that came before the gap (maybe an error value)
        return None

    def _take(self, skip: int, n: int) -> bytes:
        message = bytes(self._buf[skip: skip + n])
        del self._buf[: skip + n]
        return message
