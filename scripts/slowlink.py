"""The slow-link profile of `make mutants` (issue 18): a Wi-Fi-like link in front of a server and a
Raspberry-Pi-like CPU under it, so that the zoo's verdicts are shown not to rest on loopback speed.

`SlowLink` is a TCP proxy on 127.0.0.1 that forwards each chunk it reads after a delay: 5-40 ms of
jitter, and now and then (3 % of bursts) a 600 ms stall. A stall delays a burst as a whole, as a
stalled link does; it never opens a gap inside one (a chunk arriving within 50 ms of the previous
one only gets the jitter, and never overtakes it), so a message's bytes still arrive as one message
to a legacy reader, whose quiet gap (>= 300 ms) is well above 40 ms. Delays come from a seeded
random.Random per connection and direction: the same seed gives the same delays. Half-closes and
resets are passed on (a reset as a reset: SO_LINGER 0).

`CpuQuota` holds a process to a share of one core with the kernel's CFS bandwidth control: cgroup v2
`cpu.max` where the unified hierarchy has the cpu controller, else cgroup v1 `cpu.cfs_quota_us`.
`CpuQuota.unavailable()` says why it cannot (not root, no writable cpu controller) so the caller
can print the reason and go on without the quota. Its cgroups are named cc18-mutants-*.

Standard library only; run with /usr/bin/python3.
"""

import os
import queue
import random
import socket
import struct
import threading
import time

JITTER = (0.005, 0.040)   # seconds added to every chunk, uniformly
STALL = 0.6               # seconds a stalled burst waits
STALL_CHANCE = 0.03       # of bursts
BURST_GAP = 0.05          # a chunk this soon after the previous one belongs to the same burst
CPU_PERCENT = 10          # of one core


class SlowLink:
    """Listens on 127.0.0.1 (any free port: `port`) and forwards every connection to `target_port`."""

    def __init__(self, target_port, seed):
        self.target_port, self.seed = target_port, seed
        self.listener = socket.create_server(("127.0.0.1", 0), backlog=64)
        self.port = self.listener.getsockname()[1]
        self.connections, self.stalls, self.chunks = 0, 0, 0
        self._lock, self._closed, self._sockets = threading.Lock(), False, set()
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self):
        with self._lock:
            self._closed = True
            sockets, self._sockets = list(self._sockets), set()
        self.listener.close()
        for sock in sockets:
            _close(sock)

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            with self._lock:
                if self._closed:
                    _close(client)
                    return
                self.connections += 1
                index = self.connections
            threading.Thread(target=self._connect, args=(client, index), daemon=True).start()

    def _connect(self, client, index):
        try:
            server = socket.create_connection(("127.0.0.1", self.target_port), timeout=10)
            server.settimeout(None)
        except OSError:
            _reset(client)  # nothing listening (the server died): the client sees a reset, not a hang
            return
        with self._lock:
            if self._closed:
                _close(client), _close(server)
                return
            self._sockets.update((client, server))
        pair = _Pair(client, server)
        for source, sink, direction in ((client, server, "up"), (server, client, "down")):
            rng = random.Random("%s:%d:%s" % (self.seed, index, direction))
            chunks = queue.Queue()
            threading.Thread(target=self._read, args=(source, chunks, rng, pair), daemon=True).start()
            threading.Thread(target=self._write, args=(sink, chunks, pair), daemon=True).start()

    def _read(self, source, chunks, rng, pair):
        last_arrival, last_due = 0.0, 0.0
        while True:
            try:
                data = source.recv(65536)
                ending = None if data else "eof"
            except OSError:
                data, ending = b"", "reset"
            now = time.monotonic()
            delay = rng.uniform(*JITTER)
            if data and now - last_arrival >= BURST_GAP and rng.random() < STALL_CHANCE:
                delay += STALL
                with self._lock:
                    self.stalls += 1
            due = max(last_due, now + delay)
            last_arrival, last_due = now, due
            if data:
                with self._lock:
                    self.chunks += 1
            chunks.put((due, data, ending))
            if ending:
                return

    def _write(self, sink, chunks, pair):
        """Delivers one direction's chunks when due. When the receiving side is gone, what still
        comes for it is dropped and the other direction goes on (what the server said before it
        closed still reaches the client, as on a real link); a reset is passed on after what came
        before it."""
        broken = False
        while True:
            due, data, ending = chunks.get()
            wait = due - time.monotonic()
            if wait > 0 and not broken:
                time.sleep(wait)  # the link's delay itself, not a stand-in for synchronisation
            if ending == "reset":
                pair.reset()
                return
            try:
                if ending == "eof":
                    if not broken:
                        sink.shutdown(socket.SHUT_WR)
                    pair.direction_ended()
                    return
                if not broken:
                    sink.sendall(data)
            except OSError:
                broken = True


class _Pair:
    """The two sockets of one proxied connection: closed when both directions ended."""

    def __init__(self, a, b):
        self.sockets, self.ended, self.lock = (a, b), 0, threading.Lock()

    def direction_ended(self):
        with self.lock:
            self.ended += 1
            done = self.ended == 2
        if done:
            for sock in self.sockets:
                _close(sock)

    def reset(self):
        for sock in self.sockets:
            _reset(sock)


def _close(sock):
    """FIN and close. shutdown first: a close alone waits for the thread blocked reading this socket
    (the kernel keeps the connection while a call holds it), so nothing would reach the peer."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


def _reset(sock):
    """RST: no lingering, the blocked reader woken (SHUT_RD sends nothing), then the close."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.shutdown(socket.SHUT_RD)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


# ---- the CPU quota --------------------------------------------------------------------------------

V2_ROOT = "/sys/fs/cgroup"
V1_CPU = "/sys/fs/cgroup/cpu"


def _v2_root():
    """The cgroup v2 directory whose children may get cpu.max, or None."""
    for root in (V2_ROOT, os.path.join(V2_ROOT, "unified")):
        try:
            with open(os.path.join(root, "cgroup.controllers")) as handle:
                if "cpu" in handle.read().split():
                    return root
        except OSError:
            continue
    return None


class CpuQuota:
    def __init__(self, percent=CPU_PERCENT):
        self.percent = percent
        self.v2 = _v2_root()

    @staticmethod
    def unavailable():
        """Why no quota can be set here (a sentence), or None when it can."""
        if os.geteuid() != 0:
            return "not root: cgroups need root"
        root = _v2_root()
        if root is not None:
            if not os.access(root, os.W_OK):
                return "%s is not writable" % root
            return None
        if os.path.exists(os.path.join(V1_CPU, "cpu.cfs_quota_us")):
            return None if os.access(V1_CPU, os.W_OK) else "%s is not writable" % V1_CPU
        return "no cgroup cpu controller (neither cgroup v2 cpu.max nor v1 cpu.cfs_quota_us)"

    def hold(self, pid, name):
        """Moves process `pid` (all its threads, and what it starts later) into a new cgroup held to
        `percent` of a core; returns the cgroup's path, for release()."""
        safe = "".join(c if c.isalnum() or c == "-" else "-" for c in name)
        if self.v2 is not None:
            path = os.path.join(self.v2, "cc18-mutants-%s-%d" % (safe, pid))
            os.mkdir(path)
            _write(os.path.join(path, "cpu.max"), "%d 100000" % (self.percent * 1000))
        else:
            path = os.path.join(V1_CPU, "cc18-mutants-%s-%d" % (safe, pid))
            os.mkdir(path)
            _write(os.path.join(path, "cpu.cfs_period_us"), "100000")
            _write(os.path.join(path, "cpu.cfs_quota_us"), str(self.percent * 1000))
        _write(os.path.join(path, "cgroup.procs"), str(pid))
        return path

    @staticmethod
    def throttled(path):
        """How many 100 ms periods the cgroup was held back in (from cpu.stat), or None."""
        try:
            with open(os.path.join(path, "cpu.stat")) as handle:
                for line in handle:
                    key, _, value = line.partition(" ")
                    if key == "nr_throttled":
                        return int(value)
        except (OSError, ValueError):
            return None
        return None

    @staticmethod
    def release(path):
        """Removes the cgroup once its processes are gone (the caller stopped them)."""
        for _ in range(50):
            try:
                os.rmdir(path)
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.1)  # the killed process is still being reaped


def _write(path, text):
    with open(path, "w") as handle:
        handle.write(text)
