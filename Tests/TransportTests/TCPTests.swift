import Foundation
import Glibc
import XCTest
@testable import Transport

final class TCPTests: XCTestCase {
    func testConnect_toClosedPort_throwsConnectionRefusedWithoutWaitingForTheTimeout() throws {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        let port = listener.port
        listener.close()

        // The event, not the clock: a refusal is `.connectionRefused`, never a timeout.
        assertTransportError(try TCPConnection.connect(host: "127.0.0.1", port: port, timeout: 5)) {
            $0 == .connectionRefused(host: "127.0.0.1", port: port)
        }
        XCTAssertTrue(TransportError.connectionRefused(host: "127.0.0.1", port: port).description.contains("127.0.0.1:\(port)"))
    }

    func testRead_fromSilentPeer_timesOutNearTheDeadline() throws {
        let listener = try TCPListener()
        let client = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: 5)
        let server = try listener.accept(timeout: 5)
        defer { server.close(); client.close() }

        let timeout = 0.3
        let start = monotonicSeconds()
        let error = assertTransportError(try client.read(upTo: 100, timeout: timeout)) {
            if case .timedOut(_, let seconds) = $0 { return seconds == timeout }
            return false
        }
        let elapsed = monotonicSeconds() - start
        XCTAssertGreaterThanOrEqual(elapsed, timeout * 0.95, "a deadline never fires early")
        XCTAssertLessThan(elapsed, timeout + 30, "a hang detector only: a loaded machine may be late, never stuck")
        XCTAssertTrue(error?.description.contains("timed out after 0.3 s") ?? false, "\(String(describing: error))")
    }

    func testReadExactly_assemblesManyOneByteWrites() throws {
        let listener = try TCPListener()
        let client = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: 5)
        let server = try listener.accept(timeout: 5)
        defer { server.close(); client.close() }
        let payload = Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) })

        let writer = Background {
            for byte in payload { try server.write(Data([byte]), timeout: 5) }
        }
        let received = try client.readExactly(payload.count, timeout: 10)
        try writer.result()
        XCTAssertEqual(received, payload)
    }

    func testRead_afterOrderlyClose_returnsEmptyDataEveryTime() throws {
        let listener = try TCPListener()
        let client = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: 5)
        let server = try listener.accept(timeout: 5)
        defer { client.close() }
        try server.write(Data("bye".utf8), timeout: 5)
        server.close()

        XCTAssertEqual(try client.readExactly(3, timeout: 5), Data("bye".utf8))
        XCTAssertEqual(try client.read(upTo: 10, timeout: 5), Data())
        XCTAssertEqual(try client.read(upTo: 10, timeout: 5), Data())
    }

    func testShutdownWrite_peerSeesEndOfStreamAndCanStillAnswer() throws {
        let listener = try TCPListener()
        let client = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: 5)
        let server = try listener.accept(timeout: 5)
        defer { server.close(); client.close() }
        try client.write(Data("ping".utf8), timeout: 5)
        client.shutdownWrite()

        XCTAssertEqual(try server.readExactly(4, timeout: 5), Data("ping".utf8))
        XCTAssertEqual(try server.read(upTo: 10, timeout: 5), Data())
        try server.write(Data("pong".utf8), timeout: 5)
        XCTAssertEqual(try client.readExactly(4, timeout: 5), Data("pong".utf8))
    }

    func testReadExactly_whenPeerClosesEarly_throwsConnectionClosedWithCounts() throws {
        let listener = try TCPListener()
        let client = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: 5)
        let server = try listener.accept(timeout: 5)
        defer { client.close() }
        try server.write(Data("abc".utf8), timeout: 5)
        server.close()

        assertTransportError(try client.readExactly(10, timeout: 5)) {
            if case .connectionClosed(_, let detail) = $0 { return detail == "after 3 of 10 expected bytes" }
            return false
        }
    }

    func testPeerClosingWithUnreadData_readAndWriteThrowConnectionReset_andSIGPIPEDoesNotKillTheProcess() throws {
        let listener = try TCPListener()
        let client = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: 5)
        defer { client.close() }
        try client.write(Data("unread".utf8), timeout: 5)
        let server = try listener.accept(timeout: 5)
        _ = try server.readExactly(1, timeout: 5)  // the rest stays unread: closing now sends a reset
        server.close()

        assertTransportError(try client.read(upTo: 10, timeout: 5)) { $0 == .connectionReset(peer: client.peerDescription) }
        // The reset has been consumed; the socket is now dead, and writing to it must not raise SIGPIPE.
        assertTransportError(try {
            for _ in 0..<100 { try client.write(Data(repeating: 0x41, count: 4096), timeout: 5) }
        }()) { $0 == .connectionReset(peer: client.peerDescription) }
    }

    func testAccept_withoutClient_timesOut() throws {
        let listener = try TCPListener()
        defer { listener.close() }
        assertTransportError(try listener.accept(timeout: 0.2)) {
            if case .timedOut(let operation, _) = $0 { return operation.contains("accept") }
            return false
        }
    }

    func testListenerClose_fromAnotherThread_endsAWaitingAccept() throws {
        let listener = try TCPListener()
        let waiting = Background { () -> String in
            do { _ = try listener.accept(timeout: 30); return "accepted" } catch let error as TransportError {
                if case .closed = error { return "closed" }
                return "\(error)"
            }
        }
        listener.close()
        XCTAssertEqual(try waiting.result(timeout: 10), "closed")
    }

    func testListener_portZero_bindsAnEphemeralPort_andLocalhostReachesIt() throws {
        let listener = try TCPListener(host: "localhost", port: 0)
        defer { listener.close() }
        XCTAssertNotEqual(listener.port, 0)
        XCTAssertEqual(listener.host, "127.0.0.1")
        let client = try TCPConnection.connect(host: "localhost", port: listener.port, timeout: 5)
        let server = try listener.accept(timeout: 5)
        defer { client.close(); server.close() }
        XCTAssertEqual(client.peerDescription, "127.0.0.1:\(listener.port)")
        XCTAssertEqual(server.peerDescription, "127.0.0.1:\(client.localPort)")
    }

    func testIPv6Loopback_roundTripsWithAndWithoutBrackets() throws {
        let listener: TCPListener
        do { listener = try TCPListener(host: "::1", port: 0) } catch TransportError.io(_, let code, _) where code == EADDRNOTAVAIL {
            throw XCTSkip("no IPv6 loopback on this machine")
        }
        defer { listener.close() }
        for host in ["::1", "[::1]"] {
            let client = try TCPConnection.connect(host: host, port: listener.port, timeout: 5)
            let server = try listener.accept(timeout: 5)
            XCTAssertEqual(client.peerDescription, "[::1]:\(listener.port)")
            try client.write(Data("v6".utf8), timeout: 5)
            XCTAssertEqual(try server.readExactly(2, timeout: 5), Data("v6".utf8))
            client.close(); server.close()
        }
    }

    func testConnect_toAHostNameOrGarbage_isAnInvalidAddress_withoutAnyLookup() {
        for host in ["example.com", "", "1.2.3.4.5", "[::1"] {
            assertTransportError(try TCPConnection.connect(host: host, port: 80, timeout: 1), host) {
                if case .invalidAddress(let address, _) = $0 { return address == host }
                return false
            }
        }
    }

    func testOperations_afterClose_throwClosed() throws {
        let listener = try TCPListener()
        let client = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: 5)
        client.close()
        client.close()  // idempotent
        assertTransportError(try client.read(upTo: 1, timeout: 1)) { if case .closed = $0 { return true }; return false }
        assertTransportError(try client.write(Data([1]), timeout: 1)) { if case .closed = $0 { return true }; return false }
        listener.close()
        assertTransportError(try listener.accept(timeout: 1)) { if case .closed = $0 { return true }; return false }
    }
}
