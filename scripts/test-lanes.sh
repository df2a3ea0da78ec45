#!/usr/bin/env bash
# test-lanes.sh NAME=COMMAND ... -- runs each command at once in its own lane (a process group),
# its output to reports/test-logs/NAME.log ($TEST_LANES_LOGS/NAME.log when set), and waits for all.
#
# Why: most of `make test` is waiting (servers, subprocesses, deadlines), so on CI's 2 cores the
# suites run side by side in about half the time they take one after another.
# Prints when each lane starts and ends, a line a minute while any runs, the last lines of a failed
# lane's log, and at the end the lines that say what failed; exits with the first failed lane's
# status (0 when all pass). Ctrl-C stops every lane and exits 130.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
logs="${TEST_LANES_LOGS:-$root/reports/test-logs}"
mkdir -p "$logs"

names=(); pids=(); starts=()
# ", CPU 9m41s": user plus system time of the lane's processes, from the second line of `times`
# ("0m1.5s 0m0.2s"), or nothing when the lane was stopped before it could write it.
lane_cpu() {
    local line
    line=$(sed -n 2p "$1" 2>/dev/null) || return 0
    [ -n "$line" ] || return 0
    awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); t += p[1] * 60 + p[2] } ; printf ", CPU %dm%02ds", t / 60, t % 60 }' <<<"$line"
}
stop_all() {
    [ -n "${nap:-}" ] && kill "$nap" 2>/dev/null
    # The lane's group, and the lane itself in case it has not reached setsid yet.
    for pid in "${pids[@]}"; do kill -TERM -- "-$pid" "$pid" 2>/dev/null; done
    echo "test-lanes: interrupted; lanes stopped (logs in $logs)"
    exit 130
}
trap stop_all INT TERM

for lane in "$@"; do
    name=${lane%%=*}; command=${lane#*=}
    if [ -z "$name" ] || [ "$name" = "$lane" ]; then
        echo "test-lanes: a lane is NAME=COMMAND, not '$lane'"; exit 64
    fi
    # setsid: the lane is its own process group, so stopping it stops everything it started.
    # `times` after the command: the CPU the lane's processes used, printed when it ends, because on
    # 2 cores the lanes' total CPU, not the longest lane, is what bounds the wall time.
    setsid bash -c "$command"'; rc=$?; times >"$0"; exit $rc' "$logs/$name.cpu" >"$logs/$name.log" 2>&1 </dev/null &
    names+=("$name"); pids+=($!); starts+=("$SECONDS")
    shown=$command; [ "${#shown}" -gt 120 ] && shown="${shown:0:117}..."
    echo "test-lanes: $name started: $shown (log: $logs/$name.log)"
done

status=0; running_pids=("${pids[@]}"); failed=()
nap=""   # a `sleep 60` waited for beside the lanes: when it ends first, a progress line
while [ "${#running_pids[@]}" -gt 0 ]; do
    [ -n "$nap" ] || { sleep "${TEST_LANES_PROGRESS_SECONDS:-60}" >/dev/null 2>&1 </dev/null & nap=$!; }
    wait -n -p ended "${running_pids[@]}" "$nap"; rc=$?
    if [ "$ended" = "$nap" ]; then
        nap=""; running=""
        for i in "${!pids[@]}"; do
            kill -0 "${pids[$i]}" 2>/dev/null && running+=" ${names[$i]} [$(tail -n 1 "$logs/${names[$i]}.log" | cut -c1-60)]"
        done
        echo "test-lanes: running:$running"
        continue
    fi
    remaining=(); for pid in "${running_pids[@]}"; do [ "$pid" = "$ended" ] || remaining+=("$pid"); done
    running_pids=("${remaining[@]}")
    for i in "${!pids[@]}"; do [ "${pids[$i]}" = "$ended" ] && break; done
    took=$((SECONDS - starts[i]))
    cpu=$(lane_cpu "$logs/${names[$i]}.cpu")
    if [ "$rc" = 0 ]; then
        echo "test-lanes: ${names[$i]} passed ($((took / 60))m$((took % 60))s${cpu})"
    else
        echo "test-lanes: ${names[$i]} FAILED with status $rc ($((took / 60))m$((took % 60))s${cpu}); the end of its log:"
        tail -n 80 "$logs/${names[$i]}.log" | sed "s/^/  ${names[$i]}| /"
        failed+=("${names[$i]}")
        [ "$status" = 0 ] && status=$rc
    fi
done
[ -n "$nap" ] && kill "$nap" 2>/dev/null
# Last, so that the end of the output (all a CI page may show) says what failed, wherever it was
# in a lane's log: XCTest's assertion and failed-case lines, pytest's FAILED/ERROR lines, make's.
for name in "${failed[@]}"; do
    echo "test-lanes: what failed in $name (whole log: $logs/$name.log):"
    grep -E -e ": error: " -e "^Test Case '.*' failed" -e "^(FAILED|ERROR) " -e "^make.*\*\*\*" \
        "$logs/$name.log" | head -n 60 | cut -c1-400 | sed "s/^/  $name| /"
done
exit "$status"
