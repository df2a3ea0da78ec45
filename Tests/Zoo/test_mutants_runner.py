"""scripts/mutants.py reads crosscheck's verdict from an exit status and a JUnit report; these
tests feed it hand-written reports and check each rule of Tests/Zoo/README.md ("How the runner
reads a verdict"), including the ones that must make a verdict WRONG."""

import importlib.util
import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location("mutants", os.path.join(REPO, "scripts", "mutants.py"))
mutants = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mutants)

SPECIFIC = {"padding oracle": "failure", "IV repeated": "failure", "encryptionKey reused": "audit"}


def report(tmp_path, remote=(), audit=()):
    """A JUnit file; each case is (name, tag or None, message)."""
    def cases(items):
        out = []
        for name, tag, message in items:
            inner = '<%s message="%s"/>' % (tag, message) if tag else ""
            out.append('<testcase name="%s" classname="crosscheck.remote.x" time="0">%s</testcase>' % (name, inner))
        return "".join(out)
    path = tmp_path / "r.xml"
    path.write_text('<?xml version="1.0"?><testsuites><testsuite name="remote.127.0.0.1:1">%s</testsuite>'
                    '<testsuite name="audit.127.0.0.1:1">%s</testsuite></testsuites>' % (cases(remote), cases(audit)))
    return mutants.Report(str(path))


def judge(expect, code, rep):
    return mutants.judge({"expect": expect}, code, rep, SPECIFIC)


def test_pass_and_fail_by_exit_status(tmp_path):
    clean = report(tmp_path, remote=[("liveness.initial", None, "")])
    assert judge("pass", 0, clean)[:2] == ("pass", True)
    failed = report(tmp_path, remote=[("refuses.half-a-message", "failure", "answered something else")])
    verdict, right, why = judge("pass", 1, failed)
    assert (verdict, right) == ("fail:refuses.half-a-message", False) and "conforms failed" in why
    assert judge("fail:padding oracle", 0, clean)[1] is False


def test_fail_needs_the_named_text_in_a_failure_or_error(tmp_path):
    named = report(tmp_path, remote=[("oracle.phone-to-pi", "failure", "padding oracle: class A answered X")])
    assert judge("fail:padding oracle", 1, named)[:2] == ("fail:oracle.phone-to-pi", True)
    errored = report(tmp_path, remote=[("liveness.after-bad-pem", "error", "connection refused")])
    assert judge("fail:liveness.after-", 1, errored)[1] is True  # '-' and '.' read as spaces
    other = report(tmp_path, remote=[("padding.phone-to-pi", "failure", "no padding works")])
    verdict, right, why = judge("fail:digest", 1, other)
    assert not right and "nothing names 'digest'" in why


def test_audit_findings_come_from_skipped_audit_cases_only(tmp_path):
    audited = report(tmp_path, audit=[("key-reuse", "skipped", "weakness: encryptionKey reused across 2 logins")])
    assert judge("pass+audit:encryptionKey reused", 0, audited)[:2] == ("pass+audit:encryptionKey reused", True)
    in_remote = report(tmp_path, remote=[("x", "skipped", "encryptionKey reused")])
    assert judge("pass+audit:encryptionKey reused", 0, in_remote)[1] is False


def test_specific_findings_on_another_server_are_wrong(tmp_path):
    false_alarm = report(tmp_path, remote=[("liveness.initial", "error", "no answer"), ("oracle.phone-to-pi", "failure", "padding oracle: …")])
    verdict, right, why = judge("fail:liveness.initial", 1, false_alarm)
    assert (verdict, right, why) == ("fail:liveness.initial (+padding oracle)", False, "also reported: padding oracle")
    general = report(tmp_path, audit=[("padding.phone-to-pi", "skipped", "weakness: padding oracles (ROBOT) apply")])
    assert judge("pass", 0, general)[1] is True  # a "failure" text does not count in audit findings
    audit_text = report(tmp_path, audit=[("key", "skipped", "weakness: encryptionKey reused")])
    verdict, right, why = judge("pass", 0, audit_text)
    assert verdict == "pass (+encryptionKey reused)" and not right


def test_other_exit_statuses_and_missing_reports_are_wrong(tmp_path):
    assert judge("pass", 64, report(tmp_path))[1] is False
    missing = mutants.Report(str(tmp_path / "absent.xml"))
    verdict, right, why = judge("fail:x", 1, missing)
    assert not right and "no readable JUnit report" in why


def test_expect_strings_are_validated():
    for bad in ("fail", "fail:", "pass+audit:", "maybe"):
        with pytest.raises(ValueError):
            mutants.parse_expect(bad)


# ---- the slow-link profile (scripts/slowlink.py) ----------------------------------------------------

import socket  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "scripts"))
import slowlink  # noqa: E402


def echo_server():
    """A loopback server that echoes until the client half-closes, then half-closes too."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve():
        conn, _ = listener.accept()
        with conn:
            while True:
                data = conn.recv(65536)
                if not data:
                    conn.shutdown(socket.SHUT_WR)
                    return
                conn.sendall(data)

    threading.Thread(target=serve, daemon=True).start()
    return listener


def test_slow_link_passes_every_byte_in_order_and_the_half_close():
    listener = echo_server()
    link = slowlink.SlowLink(listener.getsockname()[1], seed="test")
    try:
        payload = os.urandom(300_000)
        with socket.create_connection(("127.0.0.1", link.port), timeout=30) as client:
            sender = threading.Thread(target=lambda: (client.sendall(payload), client.shutdown(socket.SHUT_WR)))
            sender.start()
            received = b""
            while True:
                chunk = client.recv(65536)
                if not chunk:
                    break
                received += chunk
            sender.join()
        assert received == payload
        assert link.connections == 1 and link.chunks >= 2
    finally:
        link.close()
        listener.close()


def test_slow_link_resets_a_client_when_nothing_listens():
    spare = socket.create_server(("127.0.0.1", 0))
    port = spare.getsockname()[1]
    spare.close()  # nothing listens on `port` now
    link = slowlink.SlowLink(port, seed="test")
    try:
        with pytest.raises((ConnectionResetError, ConnectionAbortedError)):  # at connect or at the first read
            with socket.create_connection(("127.0.0.1", link.port), timeout=30) as client:
                client.sendall(b"x")
                if client.recv(1) == b"":
                    raise AssertionError("closed with a FIN, not reset")
    finally:
        link.close()


def test_cpu_quota_says_why_not_or_nothing():
    why = slowlink.CpuQuota.unavailable()
    assert why is None or (isinstance(why, str) and why)


def test_slow_link_passes_on_a_refusal_and_the_reset_after_it():
    """A server that answers and closes with bytes unread resets the connection; the client behind
    the link must get the answer and then the reset (once, it waited for ever: a close alone does
    not end a connection another thread is reading)."""
    listener = socket.create_server(("127.0.0.1", 0))

    def refuse():
        conn, _ = listener.accept()
        conn.recv(4)  # the 4-byte header only: the rest stays unread
        conn.sendall(b"Server: ERROR")
        conn.close()

    threading.Thread(target=refuse, daemon=True).start()
    link = slowlink.SlowLink(listener.getsockname()[1], seed="test")
    try:
        with socket.create_connection(("127.0.0.1", link.port), timeout=10) as client:
            client.sendall(b"\x00\x01\x00\x01" + bytes(64))
            received, ending = b"", None
            while ending is None:
                try:
                    chunk = client.recv(100)
                    ending = "eof" if not chunk else None
                    received += chunk
                except ConnectionResetError:
                    ending = "reset"
        assert (received, ending) == (b"Server: ERROR", "reset")
    finally:
        link.close()
        listener.close()
