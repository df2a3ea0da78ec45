import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on 127.0.0.1 that damages traffic on purpose, for tests of how `crosscheck remote`
/// copes with a bad network or a broken server. Plain blocking sockets and a thread per direction:
/// test code, loopback only, every connection bounded by the test's own lifetime.
final class FaultProxy: @unchecked Sendable {
    enum Fault: String, CaseIterable {
        /// Every chunk is forwarded 50 ms late (both directions).
        case delay
        /// The server's answers arrive one byte per write.
        case fragments
        /// The server's answers are held until it has been quiet for 50 ms, then sent at once.
        case joined
        /// The first 8 bytes of the server's answer pass, then the connection is reset.
        case resetMidMessage = "reset"
        /// Connections are accepted and never answered.
        case stall
        /// The server's answer is replaced by garbage.
        case garbage
        /// The server's answer is replaced by 100 MB of junk.
        case flood

        /// Whether a conforming server behind this fault can still pass.
        var survivable: Bool { [.delay, .fragments, .joined].contains(self) }
    }

    let fault: Fault
    let upstreamPort: UInt16
    private(set) var port: UInt16 = 0
    private let listener: Int32
    private let lock = NSLock()
    private var stopped = false
    private var sockets: [Int32] = []

    init(fault: Fault, upstreamPort: UInt16) throws {
        self.fault = fault
        self.upstreamPort = upstreamPort
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(listener, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        port = UInt16(bigEndian: address.sin_port)
        signal(SIGPIPE, SIG_IGN)
        Thread { [weak self] in self?.acceptLoop() }.start()
    }

    func stop() {
        lock.lock(); stopped = true; let open = sockets; sockets = []; lock.unlock()
        shutdown(listener, Int32(SHUT_RDWR)); close(listener)
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }
    }

    private func track(_ fd: Int32) { lock.lock(); sockets.append(fd); lock.unlock() }
    private var isStopped: Bool { lock.lock(); defer { lock.unlock() }; return stopped }

    private func acceptLoop() {
        while !isStopped {
            let client = accept(listener, nil, nil)
            if client < 0 { if isStopped { return } else { continue } }
            track(client)
            if fault == .stall { continue }  // accepted, never answered
            let upstream = connectUpstream()
            guard upstream >= 0 else { close(client); continue }
            track(upstream)
            Thread { self.pump(from: client, to: upstream, serverSide: false) }.start()
            Thread { self.pump(from: upstream, to: client, serverSide: true) }.start()
        }
    }

    private func connectUpstream() -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = upstreamPort.bigEndian
        let status = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        return status == 0 ? fd : -1
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    private func pump(from source: Int32, to destination: Int32, serverSide: Bool) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var forwarded = 0
        defer { shutdown(destination, Int32(SHUT_WR)) }
        while true {
            let count = recv(source, &buffer, buffer.count, 0)
            if count <= 0 { return }
            var chunk = Array(buffer[0..<count])
            switch (fault, serverSide) {
            case (.delay, _):
                usleep(50_000)
            case (.fragments, true):
                for byte in chunk where !send(destination, [byte]) { return }
                continue
            case (.joined, true):
                // Keep reading until the server has been quiet for 50 ms, then send it all at once.
                var poller = pollfd(fd: source, events: Int16(POLLIN), revents: 0)
                while poll(&poller, 1, 50) > 0 {
                    let more = recv(source, &buffer, buffer.count, 0)
                    if more <= 0 { break }
                    chunk += buffer[0..<more]
                }
            case (.resetMidMessage, true):
                let keep = max(0, min(chunk.count, 8 - forwarded))
                if keep > 0 { _ = send(destination, Array(chunk[0..<keep])) }
                forwarded += keep
                if forwarded >= 8 {
                    var linger = Glibc.linger(l_onoff: 1, l_linger: 0)  // close with RST
                    setsockopt(destination, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                    close(destination)
                    return
                }
                continue
            case (.garbage, true):
                chunk = Array("HTTP/1.1 500 Oops\r\n\r\n<html>not this protocol</html>".utf8)
                _ = send(destination, chunk)
                return
            case (.flood, true):
                let junk = [UInt8](repeating: 0x41, count: 1 << 20)
                for _ in 0..<100 where !send(destination, junk) { return }
                return
            default:
                break
            }
            if !send(destination, chunk) { return }
        }
    }
}
