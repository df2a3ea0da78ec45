import Foundation
import Glibc
import XCTest
@testable import Transport
import WireProtocol

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

/// `watchPeerReads`: a read on a socket pair ends at once, as `.peerAwaitsInput`, when the
/// server's host reports the server blocked reading with everything read; in every other state
/// it waits as over TCP. The host's records are written here by hand, as team_host.py writes them.
final class PeerReadWatchTests: XCTestCase {
    final class Pair: @unchecked Sendable {
        let connection: TCPConnection
        let serverEnd: Int32
        /// The write end of the reports (-1 once closed).
        var reports: Int32

        init() throws {
            (connection, serverEnd) = try TCPConnection.socketPair(describedAs: "test server")
            reports = try connection.watchPeerReads()
        }

        func closeReports() {
            if reports >= 0 { XCTAssertEqual(Glibc.close(reports), 0) }
            reports = -1
        }

        deinit { connection.close(); _ = Glibc.close(serverEnd); closeReports() }
    }

    func makePair() throws -> Pair { try Pair() }

    func report(_ pair: Pair, blocked: Bool, read: UInt64, deadlineIn seconds: Double? = nil) {
        Self.report(pair, blocked: blocked, read: read, deadlineIn: seconds)
    }

    /// One record: `blocked`, the bytes the server has read, its read's deadline (seconds from now; nil: none).
    static func report(_ pair: Pair, blocked: Bool, read: UInt64, deadlineIn seconds: Double? = nil) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let deadline = seconds.map { Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + $0 } ?? .infinity
        var record = [UInt8](repeating: 0, count: 24)
        record[0] = blocked ? 1 : 0
        for index in 0..<8 {
            record[8 + index] = UInt8(truncatingIfNeeded: read >> (8 * UInt64(index)))
            record[16 + index] = UInt8(truncatingIfNeeded: deadline.bitPattern >> (8 * UInt64(index)))
        }
        XCTAssertEqual(Glibc.write(pair.reports, record, record.count), 24)
    }

    static func readOutcome(_ pair: Pair, timeout: TimeInterval) -> String {
        do { return "data \(String(decoding: try pair.connection.read(upTo: 100, timeout: timeout), as: UTF8.self))" } catch {
            switch error as? TransportError {
            case .peerAwaitsInput?: return "awaits input"
            case .timedOut?: return "timed out"
            default: return "\(error)"
            }
        }
    }

    func testBlockedWithEverythingRead_endsTheReadAtOnce() throws {
        let pair = try makePair()
        try pair.connection.write(Data("Client: OK".utf8), timeout: 1)
        report(pair, blocked: true, read: 10)
        // 30 s: were the report ignored, this read would wait them out and end `timed out`.
        XCTAssertEqual(Self.readOutcome(pair, timeout: 30), "awaits input")
    }

    func testAReportArrivingDuringTheRead_wakesIt() throws {
        let pair = try makePair()
        let reader = DispatchQueue(label: "reader")
        let outcome = Locked("")
        let done = DispatchSemaphore(value: 0)
        reader.async {
            let result = Self.readOutcome(pair, timeout: 30)
            outcome.withLock { $0 = result }
            done.signal()
        }
        report(pair, blocked: true, read: 0)
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(outcome.withLock { $0 }, "awaits input")
    }

    func testEveryOtherState_waitsAsOverTCP() throws {
        let pair = try makePair()
        try pair.connection.write(Data("hello".utf8), timeout: 1)
        report(pair, blocked: true, read: 3)
        XCTAssertEqual(Self.readOutcome(pair, timeout: 0.05), "timed out", "two bytes are still unread: the server will read them")
        report(pair, blocked: false, read: 5)
        XCTAssertEqual(Self.readOutcome(pair, timeout: 0.05), "timed out", "it has read them and is working on an answer")
        report(pair, blocked: true, read: 5, deadlineIn: 0.01)
        XCTAssertEqual(Self.readOutcome(pair, timeout: 0.2), "timed out", "its own read ends before ours: it may answer then")
        report(pair, blocked: true, read: 5, deadlineIn: 3600)
        XCTAssertEqual(Self.readOutcome(pair, timeout: 0.2), "awaits input", "its read ends long after ours")
    }

    func testWhatTheServerWroteBeforeBlocking_isReadFirst() throws {
        let pair = try makePair()
        XCTAssertEqual(Glibc.send(pair.serverEnd, "Server: OK", 10, 0), 10)
        report(pair, blocked: true, read: 0)
        XCTAssertEqual(Self.readOutcome(pair, timeout: 30), "data Server: OK")
        XCTAssertEqual(Self.readOutcome(pair, timeout: 30), "awaits input")
    }

    func testAfterAHalfClose_orOnceTheHostClosesItsEnd_readsWaitAsOverTCP() throws {
        let pair = try makePair()
        report(pair, blocked: true, read: 0)
        pair.connection.shutdownWrite()
        XCTAssertEqual(Self.readOutcome(pair, timeout: 0.05), "timed out", "the server reads the end of the stream: it does not block")

        let other = try makePair()
        report(other, blocked: true, read: 0)
        other.closeReports()  // the handler ended; its last report is void
        XCTAssertEqual(Self.readOutcome(other, timeout: 0.05), "timed out")
    }
}

/// SocketDriver with the read watch: a quiet line the client has nothing to say to is not a stall
/// until `timeout` of silence, as over TCP, unless the server's own read outlasts that too.
final class SocketDriverReadWatchTests: XCTestCase {
    /// Sends `Quit`; done when `Server stopped` arrives.
    final class QuitMachine: SessionMachine {
        private(set) var closed = false
        func start() -> [SessionAction] { [.send(Data("Quit".utf8))] }
        func receive(_ data: Data) -> [SessionAction] {
            guard String(decoding: data, as: UTF8.self).contains("Server stopped") else { return [] }
            closed = true
            return [.event(.serverStopped), .close]
        }
        func idle() -> [SessionAction] { [] }
    }

    /// The server's side, on its own thread: reads `Quit`, then reads on with a deadline of its own
    /// (`ownDeadline`; nil: none), reported as team_host reports it; when that read times out it
    /// says `Server stopped`.
    func serve(_ pair: PeerReadWatchTests.Pair, ownDeadline: Double?) -> DispatchSemaphore {
        let served = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4)
            _ = recv(pair.serverEnd, &buffer, 4, Int32(MSG_WAITALL))
            PeerReadWatchTests.report(pair, blocked: true, read: 4, deadlineIn: ownDeadline)
            var ready = pollfd(fd: pair.serverEnd, events: Int16(POLLIN), revents: 0)
            if let ownDeadline, poll(&ready, 1, Int32(ownDeadline * 1000)) == 0 {
                PeerReadWatchTests.report(pair, blocked: false, read: 4)
                _ = send(pair.serverEnd, "Server stopped\n", 15, 0)
            }
            served.signal()
        }
        return served
    }

    func testAServerThatAnswersWhenItsOwnReadGivesUp_isWaitedFor() throws {
        let pair = try PeerReadWatchTests.Pair()
        let served = serve(pair, ownDeadline: 0.3)
        let transcript = SocketDriver.drive(QuitMachine(), over: pair.connection, quietGap: 0.05, timeout: 10, deadline: 20)
        XCTAssertEqual(transcript.events, [.serverStopped], transcript.transportError ?? "")
        XCTAssertNil(transcript.transportError)
        XCTAssertEqual(served.wait(timeout: .now() + 30), .success)
    }

    func testAServerWaitingBeyondTheWholeTimeout_stallsTheConversationAtOnce() throws {
        let pair = try PeerReadWatchTests.Pair()
        _ = serve(pair, ownDeadline: nil)
        // 10 s: were the reports ignored, the driver would end after them with "sent nothing for 10 s".
        let transcript = SocketDriver.drive(QuitMachine(), over: pair.connection, quietGap: 0.05, timeout: 10, deadline: 20)
        XCTAssertEqual(transcript.events, [])
        XCTAssertEqual(transcript.transportError, "the peer sent nothing for 10.0 s: it is waiting for input the client does not send")
    }
}
