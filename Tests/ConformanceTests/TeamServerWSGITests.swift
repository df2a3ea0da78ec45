import Foundation
import PythonBridge
import TeamServer
import Transport
import XCTest

/// A WSGI application served in process through `TeamServer.exchange`, which wakes the
/// application's thread through a pipe and waits for its answer without the GIL (team_host.py's
/// `_WSGIWorker`): one thread serves request after request; one cut off at the timeout is
/// replaced; requests from several threads at once are each answered.
final class TeamServerWSGITests: XCTestCase {
    static let application = """
        import threading
        import time

        SERVED = threading.local()  # requests this thread has served

        def app(environ, start_response):
            SERVED.count = getattr(SERVED, "count", 0) + 1
            while environ["PATH_INFO"] == "/slow":
                time.sleep(0.01)
            start_response("200 OK", [("X-Path", environ["PATH_INFO"])])
            return [str(SERVED.count).encode() + b"|" + environ["wsgi.input"].read()]
        """

    /// The application above as its own module (`name`: each test loads a module of its own).
    func server(_ name: String) throws -> TeamServer {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("team-wsgi-\(getpid())-\(name)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("\(name).py")
        try Self.application.write(to: file, atomically: true, encoding: .utf8)
        let interpreter = try PythonInterpreter.shared(pythonRefDirectory: checkoutFiles.pythonRef.path)
        return try TeamServer(spec: "\(file.path):app", searchPath: nil, logPath: folder.appendingPathComponent("server.log").path,
                              timeout: 5, interpreter: interpreter)
    }

    static func body(_ server: TeamServer, _ path: String, _ sent: String = "", timeout: TimeInterval = 5) throws -> String {
        let answer = try server.exchange(HTTPRequest(method: "POST", path: path, body: Data(sent.utf8)), timeout: timeout)
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.headers["x-path"], path)
        return String(decoding: answer.body, as: UTF8.self)
    }

    func testRequestsShareOneApplicationThread_untilOneIsCutOffAtTheTimeout() throws {
        let server = try server("wsgi_cut_off_app")
        XCTAssertEqual(try Self.body(server, "/", "a"), "1|a")
        XCTAssertEqual(try Self.body(server, "/", "b"), "2|b")
        let started = Date()
        XCTAssertThrowsError(try Self.body(server, "/slow", timeout: 0.3)) { error in
            guard case .timedOut? = error as? TransportError else { return XCTFail("\(error)") }
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
        XCTAssertEqual(server.checkEnded().map(\.kind), [.blocked])
        XCTAssertEqual(try Self.body(server, "/", "c"), "1|c")  // a new thread after the cut-off
        XCTAssertEqual(server.checkEnded(), [])
    }

    func testRequestsFromSeveralThreadsAtOnce_areEachAnsweredInTurn() throws {
        let server = try server("wsgi_concurrent_app")
        let answers = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            do {
                let text = try Self.body(server, "/", "\(index)")
                answers.withLock { $0.append(text) }
            } catch { XCTFail("\(error)") }
        }
        let parts = answers.withLock { $0 }.map { $0.split(separator: "|").map(String.init) }
        XCTAssertEqual(Set(parts.map { $0[0] }), Set((1...8).map(String.init)))  // one thread served all eight
        XCTAssertEqual(Set(parts.map { $0[1] }), Set((0..<8).map(String.init)))  // each got its own answer
        XCTAssertEqual(server.checkEnded(), [])
    }
}

/// A value shared between the threads of a test.
private final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R { lock.lock(); defer { lock.unlock() }; return body(&value) }
}
