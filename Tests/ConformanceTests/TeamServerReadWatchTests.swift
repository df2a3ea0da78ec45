import Foundation
import PythonBridge
import TeamServer
import Transport
import XCTest

/// Both halves of the read watch together: team_host.py's reports of a real team server's reads
/// reach `TCPConnection`, which then knows at once that the server waits for input.
final class TeamServerReadWatchTests: XCTestCase {
    func testTheSocketExampleWaitingForTheClientsMessage_endsAReadAtOnce() throws {
        let interpreter = try PythonInterpreter.shared(pythonRefDirectory: checkoutFiles.pythonRef.path)
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("read-watch-\(getpid()).log").path
        let server = try TeamServer(spec: "\(repositoryRoot)/examples/pi-server-socket/server.py:Handler", searchPath: nil,
                                    logPath: log, timeout: 5, interpreter: interpreter)
        let connection = try server.connect(timeout: 5)
        defer { XCTAssertEqual(server.checkEnded(), []) }
        try connection.write(Data("Client: OK".utf8), timeout: 5)
        // The key arrives, then the server reads again (its idle deadline: 20 s). Each read here
        // may wait 10 s: without the reports the last one would wait them out and end `.timedOut`.
        var received = Data()
        var ending: Error?
        while ending == nil {
            do { received += try connection.read(upTo: 65536, timeout: 10) } catch { ending = error }
        }
        XCTAssertNotNil(received.range(of: Data("-----END PUBLIC KEY-----".utf8)), String(decoding: received, as: UTF8.self))
        guard case TransportError.peerAwaitsInput? = ending as? TransportError else { return XCTFail("\(String(describing: ending))") }
        connection.close()
    }
}
