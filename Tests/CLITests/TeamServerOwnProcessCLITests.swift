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

    /// `timeout` 10 s by default: a server's start (Python, its imports, a key) counts against it, and
    /// on a loaded machine (three test lanes on two cores) 3 s was not always enough to begin listening.
    func check(_ server: String, _ extra: [String] = [], timeout: String = "10") throws -> Checked {
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
                                                "--timeout", "10", "--junit", report.path, "--server-log", log.path])
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

    /// Another process listening on 127.0.0.1 at the same port number: crosscheck still reaches the
    /// server at its own address. It looked the port up in the whole machine's table and preferred
    /// loopback, so it reached the other process (seen once in make test's five lanes at fce9594).
    func testServerBoundToItsOwnAddress_anotherListenerOnThatPortElsewhere_isNotTakenForIt() throws {
        let port = try TCPProbe.freePort()
        let decoys = TestServers()
        defer { decoys.stopAll() }
        _ = try decoys.start("/usr/bin/python3", ["-c", """
            import socket, time
            s = socket.socket(); s.bind(("127.0.0.1", \(port))); s.listen(5)
            print("LISTENING", \(port), flush=True)
            time.sleep(600)
            """], in: CrosscheckBinary.root)
        let checked = try check("other_address.py", ["--server-arg", String(port)])
        XCTAssertEqual(checked.property("crosscheck.server.host"), "127.0.0.7", checked.output)
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
                                                // 10 s: the example makes an RSA key before it listens, which on a
                                                // loaded CI machine (three test lanes on two cores) took over 3 s.
                                                "--timeout", "10", "--junit", report.path, "--server-log", log.path])
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
            "run", "--server", Self.servers.appendingPathComponent("forking.py").path, "--timeout", "10",
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

/// The team's environment and files, in-process and as its own process: a virtual environment
/// beside the server, relative paths from the server's folder, stdin at end-of-file, install hints.
final class TeamServerEnvironmentCLITests: XCTestCase {
    func run(_ arguments: [String]) throws -> (status: Int32, output: String, report: String) {
        let directory = try makeTemporaryDirectory()
        let report = directory.appendingPathComponent("report.xml")
        let outcome = try CrosscheckBinary.run(["run", "--timeout", "10", "--junit", report.path,
                                                "--server-log", directory.appendingPathComponent("server.log").path] + arguments)
        return (outcome.status, outcome.stdout + outcome.stderr, (try? String(contentsOf: report, encoding: .utf8)) ?? "")
    }

    /// A folder with a server importing a module that only its `.venv/` has.
    func teamFolderWithVenv() throws -> URL {
        let folder = try makeTemporaryDirectory()
        let venv = folder.appendingPathComponent(".venv")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-m", "venv", "--without-pip", venv.path]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "python3 -m venv")
        let site = venv.appendingPathComponent("lib/python3.11/site-packages")
        try "GREETING = 'from the team venv'\n".write(to: site.appendingPathComponent("team_only_cc32.py"), atomically: true, encoding: .utf8)
        try """
            import socket
            import team_only_cc32

            def handle(conn, addr):
                conn.sendall(team_only_cc32.GREETING.encode())

            if __name__ == "__main__":
                listener = socket.create_server(("127.0.0.1", 0))
                while True:
                    conn, addr = listener.accept()
                    handle(conn, addr)
                    conn.close()
            """.write(to: folder.appendingPathComponent("venv_server.py"), atomically: true, encoding: .utf8)
        return folder
    }

    func testVenvBesideTheServer_isItsInterpreterAsItsOwnProcess_andItsPackagesInProcess() throws {
        let folder = try teamFolderWithVenv()
        let own = try run(["--server", folder.appendingPathComponent("venv_server.py").path])
        XCTAssertEqual(own.status, 1, "it ran and was checked (it does not speak the protocol)\n\(own.output)")
        XCTAssertTrue(own.report.contains("\(folder.path)/.venv/bin/python3 (the virtual environment \(folder.path)/.venv)"), own.report)
        let inProcess = try run(["--server", folder.appendingPathComponent("venv_server.py").path + ":handle"])
        XCTAssertEqual(inProcess.status, 1, "it loaded, importing the venv's module, and was checked\n\(inProcess.output)")
        XCTAssertTrue(inProcess.report.contains("with the packages of the virtual environment \(folder.path)/.venv"), inProcess.report)
    }

    func testInProcess_relativePathsResolveInTheServersFolder_andArgumentsAreItsArgv() throws {
        let server = TeamServerOwnProcessCLITests.servers.appendingPathComponent("reads_its_files.py").path
        let checked = try run(["--server", server + ":handle", "--server-arg", "--verbose"])
        XCTAssertEqual(checked.status, 1, "loaded (not 66) and checked\n\(checked.output)")
        XCTAssertTrue(checked.report.contains("<testcase"), checked.output)
    }

    func testInProcess_readingStdin_isEndOfFileAndTheErrorSaysSo() throws {
        let server = TeamServerOwnProcessCLITests.servers.appendingPathComponent("asks_passphrase.py").path
        let checked = try run(["--server", server + ":listener"])
        XCTAssertEqual(checked.status, 66, checked.output)
        XCTAssertTrue(checked.output.contains("EOFError") && checked.output.contains("standard input") && checked.output.contains("--server-arg"), checked.output)
    }

    func testMissingCrypto_isNamedAsPyPIsPycryptodome_notDebiansCryptodome() throws {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        probe.arguments = ["-c", "import Crypto"]
        probe.standardError = FileHandle.nullDevice
        try probe.run()
        probe.waitUntilExit()
        try XCTSkipIf(probe.terminationStatus == 0, "this machine's python3 has Crypto")
        let folder = try makeTemporaryDirectory()
        try "from Crypto.Cipher import AES\n\ndef handle(conn, addr):\n    pass\n".write(to: folder.appendingPathComponent("uses_crypto.py"), atomically: true, encoding: .utf8)
        let inProcess = try run(["--server", folder.appendingPathComponent("uses_crypto.py").path + ":handle"])
        XCTAssertEqual(inProcess.status, 69, inProcess.output)
        XCTAssertTrue(inProcess.output.contains("pip install pycryptodome") && inProcess.output.contains("python3-pycryptodome provides 'Cryptodome', not 'Crypto'"), inProcess.output)
        let own = try run(["--server", folder.appendingPathComponent("uses_crypto.py").path])
        XCTAssertEqual(own.status, 69, own.output)
        XCTAssertTrue(own.output.contains("pip install pycryptodome"), own.output)
    }
}
