import Foundation

extension TCPConnection {
    /// One plain-HTTP request on this connection and its response: the request goes out with
    /// `Connection: close` (`HTTPRequest.serialized`), and the response is read until the server
    /// closes or a whole response (head and Content-Length body) is in, under one deadline for the
    /// whole exchange and a size bound. What every raw-TCP HTTP client here does (an own-process
    /// team server, a plain request to a TLS port, a described protocol over `http`).
    /// - Parameter host: the Host header (`host:port`).
    public func exchange(_ request: HTTPRequest, host: String, timeout: TimeInterval, maxResponseBytes: Int = 8 << 20) throws -> HTTPResponse {
        let deadline = Date().addingTimeInterval(timeout)
        try write(try request.serialized(host: host), timeout: timeout)
        var answer = Data()
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw TransportError.timedOut(operation: "reading the answer to \(request.method) \(request.path)", seconds: timeout) }
            let chunk = try read(upTo: 65536, timeout: left)
            if chunk.isEmpty { break }
            answer.append(chunk)
            guard answer.count <= maxResponseBytes else { throw TransportError.tooLarge(.responseBody, limit: maxResponseBytes) }
            if let whole = try? HTTPResponse.parse(answer), whole.body.count == Self.contentLength(answer) { return whole }
        }
        return try HTTPResponse.parse(answer)
    }

    /// The Content-Length a response head declares (nil: none, or the head is not whole yet).
    static func contentLength(_ data: Data) -> Int? {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).lowercased()
        for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
            return Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
