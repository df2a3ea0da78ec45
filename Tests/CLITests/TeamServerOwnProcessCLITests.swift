import Foundation
import XCTest

/// `crosscheck run --server FILE.py`: a team's script started as its own process, found on the port
/// it listens on, checked over loopback, and stopped with everything it spawned, however the run
/// ends. One server per shape (Tests/TeamServers); each prints `PGID <n>` first, and after the run
/// nothing of that process group may be left in /proc, and its port is closed.
final class TeamServerOwnProcessCLITests: XCTestCase {
    static let servers = CrosscheckBinary.root.appendingPathComponent("Tests/TeamServers")

    struct Checked {
        let status: Int32
        let output: String
        let log: String
        let report: String
        var group: pid_t? {
            guard let line = log.split(separator: "\n").first(where: { $0.hasPrefix("PGID ") }) else { return nil }
            return pid_t(line.dropFirst(5))
        }
        /// A property of the report (`crosscheck.server.port`).
        func property(_ name: String) -> String? {
            guard let range = report.range(of: "<property name=\"\(name)\" value=\"") else { return nil }
            return String(report[range.upperBound...].prefix { $0 != "\"" })
        }
    }

    func check(_ server: String, _ extra: [String] = [], timeout: String = "3") throws -> Checked {
        let directory = try makeTemporaryDirectory()
        let report = directory.appendingPathComponent("report.xml"), log = directory.appendingPathComponent("server.log")
        let outcome = try CrosscheckBinary.run(["run", "--server", Self.servers.appendingPathComponent(server).path, "--timeout", timeout,
                                                "--junit", report.path, "--server-log", log.path] + extra)
        return Checked(status: outcome.status, output: outcome.stdout + outcome.stderr,
                       log: (try? String(contentsOf: log, encoding: .utf8)) ?? "",
                       report: (try? String(contentsOf: report, encoding: .utf8)) ?? "")
    }

    /// Every process whose process group is `group` (zombies too: crosscheck reaps what it ends).
    static func processes(inGroup group: pid_t) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry -> String? in
            guard pid_t(entry) != nil, let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && pid_t(fields[2]) == group ? "\(entry): \(stat.prefix(120))" : nil
        }
    }

    func assertNothingLeft(_ checked: Checked, file: StaticString = #filePath, line: UInt = #line) throws {
        let group = try XCTUnwrap(checked.group, "the server printed its PGID: \(checked.log)\n\(checked.output)", file: file, line: line)
        XCTAssertEqual(Self.processes(inGroup: group), [], "processes of the server's group left behind", file: file, line: line)
        if let port = checked.property("crosscheck.server.port").flatMap(UInt16.init) {
            let host = checked.property("crosscheck.server.host") ?? "127.0.0.1"
            XCTAssertThrowsError(try TCPProbe.connect(port, host: host), "\(host) port \(port) still accepts connections", file: file, line: line)
        }
    }

    /// The checks reached it: it printed a connection, and the report has the server's testcases.
    func assertReached(_ checked: Checked, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(checked.log.contains("accepted"), "the server saw no connection: \(checked.log)\n\(checked.output)", file: file, line: line)
        XCTAssertTrue(checked.report.contains("<testcase"), checked.output, file: file, line: line)
        XCTAssertEqual(checked.property("crosscheck.server.shape"), "own process", file: file, line: line)
        XCTAssertEqual(checked.property("crosscheck.server.ended"), "stopped by crosscheck with its process group", file: file, line: line)
    }

    func testModuleLevelAcceptLoop_isCheckedAsItsOwnProcessAndLeavesNothing() throws {
        let checked = try check("module_accept_loop.py")
        XCTAssertEqual(checked.status, 1, "it does not speak the protocol: the checks fail it\n\(checked.output)")
        assertReached(checked)
        try assertNothingLeft(checked)
    }

    func testModuleLevelAcceptLoop_namedWithAnObject_runsAsItsOwnProcessSayingWhy() throws {
        let directory = try makeTemporaryDirectory()
        let report = directory.appendingPathComponent("report.xml"), log = directory.appendingPathComponent("server.log")
        let outcome = try CrosscheckBinary.run(["run", "--server", Self.servers.appendingPathComponent("module_accept_loop.py").path + ":conn",
                                                "--timeout", "3", "--junit", report.path, "--server-log", log.path])
        let checked = Checked(status: outcome.status, output: outcome.stdout + outcome.stderr,
                              log: try String(contentsOf: log, encoding: .utf8), report: try String(contentsOf: report, encoding: .utf8))
        XCTAssertTrue(checked.output.contains("calls socket.accept() while it is imported") && checked.output.contains("as its own process"), checked.output)
        assertReached(checked)
        try assertNothingLeft(checked)
    }

    func testServerBoundToItsOwnAddress_isReachedThere() throws {
        let checked = try check("other_address.py")
        XCTAssertEqual(checked.status, 1, checked.output)
        XCTAssertEqual(checked.property("crosscheck.server.host"), "127.0.0.7")
        assertReached(checked)
        try assertNothingLeft(checked)
    }

    func testMainUnderTheGuard_getsItsArgumentsAndIsChecked() throws {
        let port = try TCPProbe.freePort()
        let checked = try check("main_guard.py", ["--server-arg", "--port", "--server-arg", String(port), "--port", String(port)])
        XCTAssertEqual(checked.status, 1, checked.output)
        XCTAssertEqual(checked.property("crosscheck.server.port"), String(port))
        assertReached(checked)
        try assertNothingLeft(checked)
    }

    func testSocketExample_asItsOwnProcess_passesEveryCheck() throws {
        let directory = try makeTemporaryDirectory()
        let report = directory.appendingPathComponent("report.xml"), log = directory.appendingPathComponent("server.log")
        let outcome = try CrosscheckBinary.run(["run", "--server", "examples/pi-server-socket/server.py", "--server-arg", "--host",
                                                "--server-arg", "127.0.0.1", "--server-arg", "--port", "--server-arg", "0",
                                                "--timeout", "3", "--junit", report.path, "--server-log", log.path])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        let xml = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(xml.contains("server.server:__main__") && !xml.contains("<failure"), xml)
    }

    func testFlaskAppRun_isCheckedAsAESHTTPSOverPlainHTTP() throws {
        let checked = try check("flask_app_run.py")
        XCTAssertEqual(checked.status, 1, checked.output)
        XCTAssertEqual(checked.property("crosscheck.profile"), "aes-https")
        XCTAssertTrue(checked.report.contains("status") || checked.report.contains("401"), checked.report)
        assertReached(checked)
        try assertNothingLeft(checked)
    }

    func testAsyncioRunForever_isCheckedAndLeavesNothing() throws {
        let checked = try check("asyncio_run_forever.py")
        XCTAssertEqual(checked.status, 1, checked.output)
        assertReached(checked)
        try assertNothingLeft(checked)
    }

    func testServerThatStartsThreads_isCheckedAndLeavesNothing() throws {
        let checked = try check("threads.py")
        XCTAssertEqual(checked.status, 1, checked.output)
        assertReached(checked)
        try assertNothingLeft(checked)
    }

    func testServerThatForksAChildPerConnection_leavesNoChildBehind() throws {
        let checked = try check("forking.py")
        XCTAssertEqual(checked.status, 1, checked.output)
        assertReached(checked)
        XCTAssertTrue(checked.log.contains("accepted in child"), checked.log)
        try assertNothingLeft(checked)
    }

    func testServerCrashingDuringTheRun_isReportedWithItsLastOutputAndLeavesNothing() throws {
        let checked = try check("crashes.py")
        XCTAssertEqual(checked.status, 1, checked.output)
        XCTAssertEqual(checked.property("crosscheck.server.ended"), "on its own during the run")
        XCTAssertTrue(checked.report.contains("the server&apos;s process ended") || checked.report.contains("the server's process ended"), checked.report)
        XCTAssertTrue(checked.output.contains("crashes on its first connection"), checked.output)
        try assertNothingLeft(checked)
    }

    func testServerThatNeverListens_isAClearErrorWithinTheTimeout() throws {
        let checked = try check("never_listens.py", timeout: "2")
        XCTAssertEqual(checked.status, 66, checked.output)
        XCTAssertTrue(checked.output.contains("did not listen within 2 s (--timeout)") && checked.output.contains("warming up forever"), checked.output)
        try assertNothingLeft(checked)
    }

    func testServerThatExitsBeforeListening_showsItsLastOutput() throws {
        let checked = try check("exits_at_once.py")
        XCTAssertEqual(checked.status, 66, checked.output)
        XCTAssertTrue(checked.output.contains("exit status 1") && checked.output.contains("cannot open the key file keys/server.pem"), checked.output)
        try assertNothingLeft(checked)
    }

    func testServerReadingStdin_getsEndOfFileAndTheErrorSaysSo() throws {
        let checked = try check("asks_passphrase.py")
        XCTAssertEqual(checked.status, 66, checked.output)
        XCTAssertTrue(checked.output.contains("EOFError") && checked.output.contains("standard input"), checked.output)
        try assertNothingLeft(checked)
    }

    func testCrosscheckInterrupted_stopsTheServersWholeGroup() throws {
        let directory = try makeTemporaryDirectory()
        let log = directory.appendingPathComponent("server.log")
        let status = try CrosscheckBinary.interruptAfter("listens on port", [
            "run", "--server", Self.servers.appendingPathComponent("forking.py").path, "--timeout", "3",
            "--junit", directory.appendingPathComponent("report.xml").path, "--server-log", log.path])
        XCTAssertEqual(status, 130)
        let checked = Checked(status: status, output: "", log: try String(contentsOf: log, encoding: .utf8), report: "")
        try assertNothingLeft(checked)
    }
}

/// Loopback connections from the test itself: is a port still open, and a port free to give a server.
enum TCPProbe {
    struct Refused: Error {}

    static func connect(_ port: UInt16, host: String = "127.0.0.1") throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if status != 0 { throw Refused() }
    }

    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw Refused() }
        return address.sin_port.bigEndian
    }
}
