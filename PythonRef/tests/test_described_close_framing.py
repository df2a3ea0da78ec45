"""framing = "close": a message ends when its sender closes its side (adibhaider/Python-Client-Server's
one-shot client). Over real sockets with drive_tcp, and the reader's rules."""

from __future__ import annotations

import socket
import threading

import pytest
from cryptography.fernet import Fernet

from pythonref.described import DescriptionError, Party, loads
from pythonref.described import server as dserver

KEY = bytes(range(32))

ONE_SHOT = """
name = "one-shot"
[transport]
kind = "tcp"
framing = "close"
[secrets.key]
made_by = "preshared"
bytes = 32
[[conversation]]
name = "send"
[[conversation.step]]
from = "client"
send = { sealed = "key", cipher = "fernet", carries = "message" }
[[conversation.step]]
from = "server"
send = { text = "OK" }
"""


def test_the_message_ends_at_the_half_close_and_the_answer_at_the_close() -> None:
    desc = loads(ONE_SHOT)
    ours, theirs = socket.socketpair()
    out: dict[str, object] = {}
    try:
        server = Party(desc, None, "server", secrets={"key": KEY})
        thread = threading.Thread(target=lambda: out.update(dserver.drive_tcp(theirs, server, timeout=5, quiet_gap=0.2)))
        thread.start()
        token = Fernet(__import__("base64").urlsafe_b64encode(KEY)).encrypt(b"reading 21")
        ours.sendall(token[:10])
        ours.sendall(token[10:])  # two writes, one message: only the close ends it
        ours.shutdown(socket.SHUT_WR)
        ours.settimeout(5)
        answer = b""
        while chunk := ours.recv(100):
            answer += chunk
        thread.join(5)
        assert out["outcome"] == "done"
        assert server.received["message"] == b"reading 21"
        assert answer == b"OK"  # then the server's own half-close ended its message
    finally:
        ours.close()
        theirs.close()


def test_a_side_sends_at_most_one_message() -> None:
    twice = ONE_SHOT + '\n[[conversation.step]]\nfrom = "client"\nsend = { text = "again" }\n'
    with pytest.raises(DescriptionError, match=r"conversation\[0\]\.step\[2\].*sends at most one message"):
        loads(twice)
