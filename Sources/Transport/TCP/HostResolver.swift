import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Host names → an IP literal, under a deadline (getaddrinfo itself has none, so it runs on its
/// own thread and is abandoned if it takes too long).
public enum HostResolver {
    /// An IP literal for `host` (literals and `localhost` pass through), or `.cannotResolve`.
    public static func resolve(_ host: String, timeout: TimeInterval) throws -> String {
        if isLiteral(host) { return host }
        // An address, not a name, is what callers pin a connection to (libcurl's CURLOPT_RESOLVE
        // takes only addresses); localhost is this machine's IPv4 loopback, as the servers bind it.
        if host == "localhost" { return "127.0.0.1" }
        let box = ResultBox()
        let thread = Thread {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var result: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, nil, &hints, &result)
            defer { if let result { freeaddrinfo(result) } }
            guard status == 0, let first = result else {
                box.set(.failure(TransportError.cannotResolve(host: host, reason: String(cString: gai_strerror(status)))))
                return
            }
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let named = getnameinfo(first.pointee.ai_addr, first.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST)
            if named == 0 {
                box.set(.success(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
            } else {
                box.set(.failure(TransportError.cannotResolve(host: host, reason: String(cString: gai_strerror(named)))))
            }
        }
        thread.start()
        guard let result = box.wait(timeout: timeout) else {
            throw TransportError.cannotResolve(host: host, reason: "no answer within \(timeout) s")
        }
        return try result.get()
    }

    public static func isLiteral(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    final class ResultBox: @unchecked Sendable {
        private let condition = NSCondition()
        private var value: Result<String, Error>?
        func set(_ result: Result<String, Error>) { condition.lock(); value = result; condition.signal(); condition.unlock() }
        func wait(timeout: TimeInterval) -> Result<String, Error>? {
            condition.lock(); defer { condition.unlock() }
            let end = Date().addingTimeInterval(timeout)
            while value == nil, condition.wait(until: end) {}
            return value
        }
    }
}
