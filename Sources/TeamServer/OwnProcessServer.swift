// OwnProcessServer — a team's server script run as its own process (`crosscheck run --server
// FILE.py`, or a FILE.py:NAME that turns out to run its own loop): started as `python3 FILE.py
// ARGS` would be started in the file's folder, in a process group of its own, its port found from
// the sockets the group opened (/proc/PID/fd, /proc/PID/net/tcp{,6}), reached over loopback, and
// stopped with everything it spawned. It is an `InProcessServer` (Transport) whose connections are
// real TCP connections, so the remote checks reach it as they reach a hosted one.
// May import: Transport.
import Foundation
import Transport
#if canImport(Glibc)
import Glibc
#endif

/// The process group of the team's server that is running now (0: none): what a second Ctrl-C,
/// which ends crosscheck at once, kills on its way out (`OwnProcessServer.killRunningGroup`).
nonisolated(unsafe) private var runningGroup: pid_t = 0

/// The team's server script in a process of its own.
public final class OwnProcessServer: InProcessServer, @unchecked Sendable {
    /// How it is started.
    public struct Launch: Sendable {
        /// The script (made absolute).
        public var script: URL
        /// `--server-arg`s.
        public var arguments: [String] = []
        /// The interpreter: `--python`, else a virtual environment's beside the file, else /usr/bin/python3.
        public var python: String
        /// `--port`: the port to wait for (nil: whichever the process group listens on).
        public var port: UInt16?
        /// Where its stdout and stderr go (appended).
        public var logPath: String
        /// How long it may take to listen (`--timeout`), and the deadline of every connection.
        public var timeout: TimeInterval

        public init(script: URL, arguments: [String] = [], python: String, port: UInt16? = nil, logPath: String, timeout: TimeInterval) {
            self.script = script.standardizedFileURL
            self.arguments = arguments
            self.python = python
            self.port = port
            self.logPath = logPath
            self.timeout = timeout
        }
    }

    public let name: String
    public let launch: Launch
    /// The group leader, the interpreter crosscheck started; its pid is the group's id.
    public let pid: pid_t
    /// The port it listens on (loopback).
    public private(set) var port: UInt16 = 0
    /// The address to reach it at: the one it listens on, or loopback when it listens on every
    /// address (a server bound to 127.0.0.5 is reached there).
    public private(set) var host = "127.0.0.1"
    private let logStart: UInt64
    private let lock = NSLock()
    private var opened: [TCPConnection] = []
    private var exitStatus: Int32?
    private var reportedExit = false
    private var stopped = false

    /// Starts the script and waits until its process group listens (or `launch.port` is listened
    /// on), at most `launch.timeout` seconds; `shouldStop` (Ctrl-C) ends the wait.
    /// - Throws: `OwnProcessError`, the group already stopped.
    public init(_ launch: Launch, shouldStop: () -> Bool = { false }) throws {
        self.launch = launch
        name = launch.script.deletingPathExtension().lastPathComponent + ":__main__"
        let folder = launch.script.deletingLastPathComponent().path
        guard FileManager.default.isExecutableFile(atPath: launch.python) else {
            throw OwnProcessError.cannotStart(script: launch.script.path, "no Python interpreter at \(launch.python) (give --python PATH)")
        }
        let directory = URL(fileURLWithPath: launch.logPath).deletingLastPathComponent().path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let log = open(launch.logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard log >= 0 else {
            throw OwnProcessError.cannotStart(script: launch.script.path, "cannot write the server log \(launch.logPath): \(String(cString: strerror(errno)))")
        }
        defer { close(log) }
        logStart = UInt64(max(0, lseek(log, 0, SEEK_END)))
        // Orphans of the server (a child per connection whose parent died) become crosscheck's to
        // reap, not init's: nothing of the group outlives the run as a zombie either.
        Self.becomeSubreaper()
        // The interpreter first asks to die with crosscheck (even killed with SIGKILL), closes every
        // descriptor but stdin, stdout and stderr (crosscheck's own, and what its parent left open,
        // are not the server's to hold), then becomes the script, run as `python3 FILE.py ARGS` in
        // the file's folder.
        let bootstrap = """
            import ctypes, os, signal, sys
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != int(sys.argv[1]): os._exit(70)
            os.closerange(3, 1 << 20)
            os.chdir(sys.argv[2])
            os.execv(sys.argv[3], [sys.argv[3]] + sys.argv[4:])
            """
        let argv = [launch.python, "-c", bootstrap, String(getpid()), folder, launch.python, launch.script.lastPathComponent] + launch.arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONUNBUFFERED"] = "1"  // its prints reach the log as they are made
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)  // stdin: end-of-file
        posix_spawn_file_actions_adddup2(&actions, log, 1)
        posix_spawn_file_actions_adddup2(&actions, log, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)  // a group of its own, whose id is its pid
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var child: pid_t = 0
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (cArguments + cEnvironment).forEach { free($0) } }
        let status = posix_spawn(&child, launch.python, &actions, &attributes, cArguments, cEnvironment)
        guard status == 0 else {
            throw OwnProcessError.cannotStart(script: launch.script.path, "cannot run \(launch.python): \(String(cString: strerror(status)))")
        }
        pid = child
        runningGroup = child
        do {
            port = try waitForPort(shouldStop: shouldStop)
            host = ProcessGroup.listeningHost(group: pid, port: port) ?? "127.0.0.1"
        } catch {
            stop()
            throw error
        }
    }

    /// prctl(PR_SET_CHILD_SUBREAPER, 1) (Linux 3.4; prctl is not in Swift's Glibc module: found with dlsym).
    private static func becomeSubreaper() {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prctl") else { return }
        _ = unsafeBitCast(symbol, to: Prctl.self)(36 /* PR_SET_CHILD_SUBREAPER */, 1, 0, 0, 0)
    }

    /// The group's listening port, polled from /proc until `launch.timeout`.
    private func waitForPort(shouldStop: () -> Bool) throws -> UInt16 {
        let deadline = Date().addingTimeInterval(launch.timeout)
        var delay: useconds_t = 2_000
        while true {
            if shouldStop() { throw OwnProcessError.interrupted(script: launch.script.path) }
            let listening = ProcessGroup.listeningPorts(group: pid)
            if let wanted = launch.port {
                if listening.contains(wanted) { return wanted }
            } else if listening.count == 1 {
                return listening[0]
            } else if listening.count > 1 {
                throw OwnProcessError.severalPorts(script: launch.script.path, listening)
            }
            if let status = reap() {
                throw OwnProcessError.exitedBeforeListening(script: launch.script.path, status: Self.describe(status), output: lastOutput(),
                                                            missingModule: missingModule)
            }
            if Date() >= deadline {
                // One last look: it may have begun listening since the look above (under load the
                // deadline can pass between the two), and a server that listens is not refused.
                let late = ProcessGroup.listeningPorts(group: pid)
                if let wanted = launch.port, late.contains(wanted) { return wanted }
                if launch.port == nil, late.count == 1 { return late[0] }
                let other = launch.port.map { " on port \($0)" + (listening.isEmpty ? "" : " (it listens on \(listening.map(String.init).joined(separator: ", ")))") } ?? ""
                throw OwnProcessError.neverListened(script: launch.script.path, seconds: launch.timeout, detail: other, output: lastOutput())
            }
            usleep(delay)  // polling /proc: the wait ends on what /proc shows, never on this pause
            delay = min(delay * 2, 50_000)
        }
    }

    /// The leader's exit status if it has ended. A server whose group no longer listens on its port
    /// is ending (its sockets close before it can be reaped): that is waited for, up to the timeout.
    private func ended() -> Int32? {
        if let status = reap() { return status }
        guard !ProcessGroup.listeningPorts(group: pid).contains(port) else { return nil }
        let deadline = Date().addingTimeInterval(launch.timeout)
        var delay: useconds_t = 1_000
        while Date() < deadline {
            if let status = reap() { return status }
            usleep(delay)  // polling for its exit, bounded by the deadline
            delay = min(delay * 2, 50_000)
        }
        return reap()
    }

    /// The leader's exit status once it has exited (reaped here), else nil.
    private func reap() -> Int32? {
        lock.lock(); defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { exitStatus = status }
        return exitStatus
    }

    /// "exit status N" or "killed by signal N".
    static func describe(_ status: Int32) -> String {
        let signal = status & 0x7f
        return signal == 0 ? "exit status \((status >> 8) & 0xff)" : "killed by signal \(signal)"
    }

    /// The last lines the server wrote in this run (at most 40), with a note when its standard input
    /// ending (EOFError) is what ended it.
    public func lastOutput() -> String {
        guard let handle = FileHandle(forReadingAtPath: launch.logPath) else { return "" }
        defer { try? handle.close() }
        try? handle.seek(toOffset: logStart)
        let text = String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        var tail = lines.suffix(40).joined(separator: "\n")
        if text.contains("EOFError") {
            tail += "\n[crosscheck] it read its standard input, which crosscheck gives it as end-of-file (no one types at it here): "
                + "pass what it asks for with --server-arg ARG or an environment variable"
        }
        if let module = Self.missingModule(in: text) {
            tail += "\n[crosscheck] \(launch.python) lacks module '\(module)': \(TeamServerError.installHint(module: module, python: launch.python))"
        }
        if text.contains("Errno 98] Address already in use") {
            tail += "\n[crosscheck] its port is taken: by another process, or by the connections of a run that just ended "
                + "(TIME_WAIT, up to 60 s, for a server that does not set SO_REUSEADDR, as on the Pi): stop the other, or run again in a minute"
        }
        if text.contains("Errno 99] Cannot assign requested address") {
            tail += "\n[crosscheck] it binds an address this machine does not have (the Pi's own LAN address?): "
                + "bind to \"\" or 0.0.0.0 (every address, the Pi's too), or take the address from an argument (--server-arg)"
        }
        return tail
    }

    /// The module of the last `ModuleNotFoundError: No module named 'X'` in `text`.
    static func missingModule(in text: String) -> String? {
        let marker = "ModuleNotFoundError: No module named '"
        guard let range = text.range(of: marker, options: .backwards) else { return nil }
        let name = text[range.upperBound...].prefix { $0 != "'" }
        return name.isEmpty ? nil : String(name)
    }

    /// The module whose absence ended the server before it listened, if that is what ended it.
    public var missingModule: String? {
        guard let handle = FileHandle(forReadingAtPath: launch.logPath) else { return nil }
        defer { try? handle.close() }
        try? handle.seek(toOffset: logStart)
        return Self.missingModule(in: String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self))
    }

    public func connect(timeout: TimeInterval, watchingReads: Bool) throws -> TCPConnection {
        let connection = try TCPConnection.connect(host: host, port: port, timeout: timeout)
        lock.lock(); opened.append(connection); lock.unlock()
        return connection
    }

    /// Plain HTTP over loopback (`Connection: close`, read to the end): what `app.run()` serves.
    public func exchange(_ request: HTTPRequest, timeout: TimeInterval) throws -> HTTPResponse {
        let connection = try connect(timeout: timeout, watchingReads: false)
        defer { connection.close() }
        return try connection.exchange(request, host: host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)", timeout: timeout)
    }

    /// After a check: closes its connections; the server having exited meanwhile is a problem of
    /// that check (once), with its last output.
    public func checkEnded() -> [InProcessServerProblem] {
        lock.lock()
        let connections = opened
        opened = []
        lock.unlock()
        connections.forEach { $0.close() }
        guard let status = ended() else { return [] }
        lock.lock(); defer { lock.unlock() }
        if reportedExit { return [] }
        reportedExit = true
        return [InProcessServerProblem(kind: .raised, message: "the server's process ended (\(Self.describe(status))) while this check ran; every later check cannot reach it",
                                       details: lastOutput())]
    }

    /// Whether the server is still running (the leader has not exited).
    public var isRunning: Bool { ended() == nil }

    /// Stops the whole group and everything it spawned: SIGTERM, then SIGKILL for what is left after
    /// a grace period; reaps what is crosscheck's to reap. Idempotent.
    public func stop(grace: TimeInterval = 2) {
        lock.lock()
        if stopped { lock.unlock(); return }
        stopped = true
        let connections = opened
        opened = []
        lock.unlock()
        connections.forEach { $0.close() }
        var members = Set(ProcessGroup.members(group: pid, including: [pid]))
        _ = kill(-pid, SIGTERM)
        members.forEach { _ = kill($0, SIGTERM) }
        let deadline = Date().addingTimeInterval(grace)
        var delay: useconds_t = 1_000
        while true {
            reapGroup()
            members = Set(ProcessGroup.members(group: pid, including: members))
            if members.isEmpty || Date() >= deadline { break }
            usleep(delay)
            delay = min(delay * 2, 50_000)
        }
        if !members.isEmpty {
            _ = kill(-pid, SIGKILL)
            members.forEach { _ = kill($0, SIGKILL) }
            let hard = Date().addingTimeInterval(5)
            while !members.isEmpty, Date() < hard {
                reapGroup()
                members = Set(ProcessGroup.members(group: pid, including: members))
                usleep(2_000)
            }
        }
        reapGroup()
        runningGroup = 0
    }

    /// Reaps every exited child of crosscheck in the group (the leader, and orphans it left).
    private func reapGroup() {
        var status: Int32 = 0
        while true {
            let reaped = waitpid(-pid, &status, WNOHANG)
            guard reaped > 0 else { break }
            if reaped == pid {
                lock.lock(); if exitStatus == nil { exitStatus = status }; lock.unlock()
            }
        }
    }

    /// For a signal handler ending crosscheck at once: SIGKILL to the running server's group.
    public static func killRunningGroup() {
        let group = runningGroup
        if group > 0 { _ = kill(-group, SIGKILL) }
    }

    deinit { stop() }
}

/// Why the script could not be checked as its own process; each says what to do.
public enum OwnProcessError: Error, Equatable, CustomStringConvertible {
    case cannotStart(script: String, String)
    /// `missingModule`: a ModuleNotFoundError ended it (exit 69, as in-process).
    case exitedBeforeListening(script: String, status: String, output: String, missingModule: String?)
    case neverListened(script: String, seconds: TimeInterval, detail: String, output: String)
    case severalPorts(script: String, [UInt16])
    case interrupted(script: String)

    public var description: String {
        func shown(_ output: String) -> String {
            output.isEmpty ? " It printed nothing." : " Its last output:\n\(output)"
        }
        switch self {
        case let .cannotStart(script, message):
            return "--server \(script): \(message)"
        case let .exitedBeforeListening(script, status, output, _):
            return "--server \(script): it ended (\(status)) before it listened on a port: run it as the Pi does (python3 \(URL(fileURLWithPath: script).lastPathComponent), in its folder) and fix what stops it; give its arguments with --server-arg.\(shown(output))"
        case let .neverListened(script, seconds, detail, output):
            return "--server \(script): it did not listen\(detail) within \(seconds.formatted()) s (--timeout): does it start its server when run as a script? give a longer --timeout if it takes longer to start, or --port if it listens through another process.\(shown(output))"
        case let .severalPorts(script, ports):
            return "--server \(script): it listens on ports \(ports.map(String.init).joined(separator: ", ")): say which one to check with --port"
        case let .interrupted(script):
            return "--server \(script): interrupted while waiting for it to listen"
        }
    }
}

private extension TimeInterval {
    func formatted() -> String { self == rounded() ? String(Int(self)) : String(self) }
}

/// What /proc tells about a process group: its members, the TCP ports they listen on.
public enum ProcessGroup {
    /// The live processes whose process group is `group`, and those of `including` still alive, with
    /// every descendant of them (a child that left the group with setsid is still found by its parent).
    public static func members(group: pid_t, including known: Set<pid_t> = []) -> [pid_t] {
        var parents: [pid_t: pid_t] = [:]
        var found = Set<pid_t>()
        for pid in allPIDs() {
            guard let stat = stat(of: pid), stat.state != "Z" || stat.group == group else { continue }
            parents[pid] = stat.parent
            if stat.group == group || known.contains(pid) { found.insert(pid) }
        }
        var grew = true
        while grew {
            grew = false
            for (pid, parent) in parents where !found.contains(pid) && found.contains(parent) {
                found.insert(pid)
                grew = true
            }
        }
        found.remove(getpid())
        return found.sorted()
    }

    /// The TCP ports (IPv4 and IPv6) that the group's processes listen on, ascending.
    /// A /proc file read to its end: procfs reports size 0 and hands a table out a page at a time, so
    /// a one-read load sees only the first page — a busy machine's tcp table (hundreds of sockets)
    /// then hides the server's listener.
    static func procText(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    }

    public static func listeningPorts(group: pid_t) -> [UInt16] {
        listeners(group: group).map(\.port).reduce(into: Set<UInt16>()) { $0.insert($1) }.sorted()
    }

    /// Where to connect to the group's listener on `port`: its own address, loopback for an
    /// unspecified one (0.0.0.0 → 127.0.0.1, :: → ::1); nil when it is not found. Only the group's
    /// own sockets count: another process may listen on the same port number at another address.
    public static func listeningHost(group: pid_t, port: UInt16) -> String? {
        let found = listeners(group: group).filter { $0.port == port }.map(\.host)
        // Loopback first (a server listening on 127.0.0.1 and on a LAN address is reached on loopback).
        return found.first { $0 == "127.0.0.1" || $0 == "::1" } ?? found.first
    }

    /// The group's listening TCP sockets (its members' socket inodes, found in /proc/PID/net/tcp{,6}):
    /// address to connect to, and port.
    static func listeners(group: pid_t) -> [(host: String, port: UInt16)] {
        let pids = members(group: group)
        var inodes = Set<String>()
        for pid in pids {
            let fds = "/proc/\(pid)/fd"
            for fd in (try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? [] {
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fds)/\(fd)"),
                      target.hasPrefix("socket:[") else { continue }
                inodes.insert(String(target.dropFirst(8).dropLast()))
            }
        }
        guard !inodes.isEmpty, let pid = pids.first else { return [] }
        var found: [(host: String, port: UInt16)] = []
        for table in ["tcp", "tcp6"] {
            guard let text = procText("/proc/\(pid)/net/\(table)") else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
                guard fields.count > 9, fields[3] == "0A", inodes.contains(String(fields[9])),
                      let colon = fields[1].lastIndex(of: ":"), let port = UInt16(fields[1][fields[1].index(after: colon)...], radix: 16) else { continue }
                found.append((address(hex: String(fields[1][..<colon])), port))
            }
        }
        return found
    }

    /// /proc/net/tcp's address (IPv4: one 32-bit word; IPv6: four; each in the host's byte order,
    /// little-endian here) as text to connect to.
    static func address(hex: String) -> String {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let end = hex.index(index, offsetBy: 8, limitedBy: hex.endIndex),
              let word = UInt32(hex[index..<end], radix: 16) {
            bytes += [UInt8(word & 0xff), UInt8(word >> 8 & 0xff), UInt8(word >> 16 & 0xff), UInt8(word >> 24)]
            index = end
        }
        if bytes.count == 4 {
            return bytes == [0, 0, 0, 0] ? "127.0.0.1" : bytes.map(String.init).joined(separator: ".")
        }
        guard bytes.count == 16 else { return "127.0.0.1" }
        if bytes.allSatisfy({ $0 == 0 }) { return "::1" }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {  // ::ffff:a.b.c.d
            return bytes[12...].map(String.init).joined(separator: ".")
        }
        return stride(from: 0, to: 16, by: 2).map { (i: Int) -> String in
            let group: UInt16 = UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1])
            return String(group, radix: 16)
        }.joined(separator: ":")
    }

    static func allPIDs() -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { pid_t($0) }
    }

    /// State, parent and process group from /proc/PID/stat (fields after the command's last ')').
    static func stat(of pid: pid_t) -> (state: Character, parent: pid_t, group: pid_t)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 3, let state = fields[0].first, let parent = pid_t(fields[1]), let group = pid_t(fields[2]) else { return nil }
        return (state, parent, group)
    }
}
