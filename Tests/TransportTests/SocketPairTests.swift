import Foundation
import Glibc
import XCTest
@testable import Transport

/// `waitUntilPeerRead`: what makes the sessions suite's split deliveries to a team's server real
/// splits (each piece one `recv` on the server's side).
final class SocketPairTests: XCTestCase {
    func testWaitUntilPeerRead_returnsOnlyOnceTheOtherEndHasReadEverything() throws {
        let (connection, serverEnd) = try TCPConnection.socketPair(describedAs: "test")
        defer { connection.close(); _ = Glibc.close(serverEnd) }
        try connection.write(Data("hello".utf8), timeout: 1)
        // Nobody has read: the wait ends at its deadline, as an error that says so.
        XCTAssertThrowsError(try connection.waitUntilPeerRead(timeout: 0.05)) { error in
            guard case TransportError.timedOut? = error as? TransportError else { return XCTFail("\(error)") }
        }
        var buffer = [UInt8](repeating: 0, count: 3)
        XCTAssertEqual(recv(serverEnd, &buffer, 3, 0), 3)
        XCTAssertThrowsError(try connection.waitUntilPeerRead(timeout: 0.05), "two bytes are still unread")
        XCTAssertEqual(recv(serverEnd, &buffer, 3, 0), 2)
        XCTAssertEqual(Array(buffer.prefix(2)), Array("lo".utf8))
        XCTAssertNoThrow(try connection.waitUntilPeerRead(timeout: 1))
    }
}
