"""scripts/test-lanes.sh: every lane runs at once, the status is the first failed lane's, a failed
lane's log tail is printed and what failed is repeated at the end, and an interrupt stops every lane (no process left behind)."""
import os
import re
import signal
import subprocess
import time
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "test-lanes.sh"


def environment(tmp_path):
    return dict(os.environ, TEST_LANES_LOGS=str(tmp_path / "logs"))


def run(tmp_path, *lanes, timeout=30):
    return subprocess.run(["bash", str(SCRIPT), *lanes], cwd=tmp_path, capture_output=True, text=True, timeout=timeout,
                          env=environment(tmp_path))


def test_all_lanes_pass_and_run_at_once(tmp_path):
    # Each lane waits for the other's file: only lanes that run at the same time can both finish.
    a, b = tmp_path / "a", tmp_path / "b"
    result = run(tmp_path, f"one=touch {a}; while [ ! -e {b} ]; do sleep 0.05; done",
                 f"two=touch {b}; while [ ! -e {a} ]; do sleep 0.05; done")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "test-lanes: one passed" in result.stdout and "test-lanes: two passed" in result.stdout


def test_a_failed_lane_gives_its_status_and_its_log_tail(tmp_path):
    result = run(tmp_path, "good=echo fine", "bad=echo first line; echo the reason it failed; exit 3")
    assert result.returncode == 3
    assert "test-lanes: bad FAILED with status 3" in result.stdout
    assert "  bad| the reason it failed" in result.stdout
    assert (tmp_path / "logs/good.log").read_text() == "fine\n"


def test_what_failed_is_the_last_thing_printed_however_long_the_log(tmp_path):
    # A CI page may show only the end: the failed assertion, far above a failed lane's last 80 lines
    # and before another lane's later output, is repeated at the very end.
    failing = ("printf 'Test Case '\\''A.b'\\'' started\\n/x/A.swift:3: error: A.b : XCTAssertEqual failed\\n"
               "Test Case '\\''A.b'\\'' failed (0.1 seconds)\\n'; seq 1 200; exit 1")
    result = run(tmp_path, f"bad={failing}", "late=sleep 0.5; echo later")
    assert result.returncode == 1, result.stdout
    tail = result.stdout.splitlines()[-3:]
    assert tail == ["test-lanes: what failed in bad (whole log: " + str(tmp_path / "logs/bad.log") + "):",
                    "  bad| /x/A.swift:3: error: A.b : XCTAssertEqual failed",
                    "  bad| Test Case 'A.b' failed (0.1 seconds)"], result.stdout


def test_a_progress_line_names_what_each_running_lane_last_printed(tmp_path):
    done = tmp_path / "done"
    env = dict(environment(tmp_path), TEST_LANES_PROGRESS_SECONDS="0.2")
    result = subprocess.run(["bash", str(SCRIPT), f"slow=echo halfway there; while [ ! -e {done} ]; do sleep 0.05; done",
                             f"quick=sleep 1; touch {done}"], cwd=tmp_path, capture_output=True, text=True, timeout=30, env=env)
    assert result.returncode == 0, result.stdout
    assert "test-lanes: running: slow [halfway there] quick []" in result.stdout, result.stdout


def test_a_lane_without_a_name_is_a_usage_error(tmp_path):
    result = run(tmp_path, "echo no name")
    assert result.returncode == 64
    assert "a lane is NAME=COMMAND" in result.stdout


def test_terminating_stops_every_lane(tmp_path):
    marker = f"crosscheck-lane-marker-{os.getpid()}"
    process = subprocess.Popen(["bash", str(SCRIPT), f"long=exec -a {marker} sleep 300"], cwd=tmp_path,
                               stdout=subprocess.PIPE, text=True, env=environment(tmp_path))
    assert "long started" in process.stdout.readline()
    process.send_signal(signal.SIGTERM)
    output, _ = process.communicate(timeout=30)
    assert process.returncode == 130
    assert "interrupted; lanes stopped" in output
    deadline = time.monotonic() + 10
    while subprocess.run(["pgrep", "-f", marker], capture_output=True).returncode == 0:
        assert time.monotonic() < deadline, "a lane's process outlived the interrupt"
        time.sleep(0.1)


def test_a_lane_that_ends_says_its_cpu_time(tmp_path):
    # On 2 cores the lanes' CPU, not the longest lane, bounds make test: each lane's is printed.
    result = run(tmp_path, "busy=/usr/bin/python3 -c 'sum(range(3000000))'")
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"test-lanes: busy passed \(\d+m\d+s, CPU \d+m\d\ds\)", result.stdout), result.stdout
