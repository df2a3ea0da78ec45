import Foundation
import XCTest
import Conformance

/// PythonRefProcess, the one way crosscheck starts `python3 -m pythonref …`: a child that never
/// says it is ready, or writes more than a pipe holds first, or wedges, must not hang the run.
/// Each test plants its own `pythonref` package, so what the child does is the test's to choose.
final class PythonRefProcessTests: XCTestCase {
    private func plant(_ main: String) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pythonref-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("pythonref"), withIntermediateDirectories: true)
        try Data().write(to: root.appendingPathComponent("pythonref/__init__.py"))
        try Data(main.utf8).write(to: root.appendingPathComponent("pythonref/__main__.py"))
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        return root
    }

    func testAnnouncedPort_isReadAfterMoreStderrThanAPipeHolds() throws {
        // 256 KiB on stderr before the line: a child whose stderr nobody drains would block here.
        let root = try plant("import sys\nsys.stderr.write('x' * 262144 + '\\n')\nprint('listening on 127.0.0.1:4242', flush=True)\nsys.stdin.read()\n")
        let child = try PythonRefProcess(python: "/usr/bin/python3", pythonRef: root, arguments: ["serve"])
        defer { child.stop() }
        XCTAssertEqual(try child.announcedPort(prefix: "listening on ", within: 30), 4242)
        // Both streams are read on their own threads: the stderr line is whole, whichever came first.
        XCTAssertEqual(child.lines.first(where: { $0.stream == .err }, deadline: Date().addingTimeInterval(30))?.text.count, 262144)
    }

    func testAChildThatNeverAnnounces_isStoppedAndWhatItSaidIsThrown() throws {
        let root = try plant("import time\nprint('starting up', flush=True)\ntime.sleep(600)\n")
        let child = try PythonRefProcess(python: "/usr/bin/python3", pythonRef: root, arguments: ["described-server"])
        XCTAssertThrowsError(try child.announcedPort(prefix: "LISTENING ", within: 1)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("did not print its 'LISTENING ' line within 1 s"), text)
            XCTAssertTrue(text.contains("starting up"), text)
        }
        XCTAssertFalse(child.process.isRunning, "stopped, not left behind")
    }

    func testWaitForExit_hasADeadline_andSeesTheExitStatusAndOutput() throws {
        let wedged = try PythonRefProcess(python: "/usr/bin/python3", pythonRef: try plant("import time\ntime.sleep(600)\n"), arguments: [])
        XCTAssertFalse(wedged.waitForExit(within: 0.5))
        wedged.stop()
        XCTAssertFalse(wedged.process.isRunning)

        let failing = try PythonRefProcess(python: "/usr/bin/python3", pythonRef: try plant("import sys\nprint('refused: bad tag', file=sys.stderr)\nsys.exit(3)\n"), arguments: [])
        XCTAssertTrue(failing.waitForExit(within: 30))
        XCTAssertEqual(failing.process.terminationStatus, 3)
        XCTAssertEqual(failing.lastLines(), "refused: bad tag")
    }

    func testStop_killsAChildThatIgnoresSIGTERM_afterItsGrace() throws {
        let root = try plant("import signal, sys, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ready', flush=True)\ntime.sleep(600)\n")
        let child = try PythonRefProcess(python: "/usr/bin/python3", pythonRef: root, arguments: [])
        XCTAssertNotNil(child.lines.first(where: { $0.text == "ready" }, deadline: Date().addingTimeInterval(30)))
        child.stop(grace: 0.5)
        XCTAssertFalse(child.process.isRunning)
        XCTAssertEqual(child.process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(child.process.terminationStatus, SIGKILL)
    }

    func testAMissingInterpreter_saysWhatToDo() {
        XCTAssertThrowsError(try PythonRefProcess(python: "/nonexistent/python3", pythonRef: URL(fileURLWithPath: "/tmp"), arguments: [])) { error in
            XCTAssertTrue("\(error)".contains("run `make deps`"), "\(error)")
        }
    }
}
