import Foundation
import WireProtocol

/// An HTTP/1.1 request. Header names are lowercase; a repeated header's values are joined by ", ".
public struct HTTPRequest: Equatable, Sendable {
    public var method: String
    /// The request target in origin form: `/login`, `/search?q=1`.
    public var path: String
    /// Lowercase names → values.
    public var headers: [String: String]
    public var body: Data

    /// Header names are lowercased here (two names differing only in case are joined by ", ").
    public init(method: String, path: String, headers: [String: String] = [:], body: Data = Data()) {
        self.method = method
        self.path = path
        self.headers = lowercasedHeaders(headers)
        self.body = body
    }

    /// The request as bytes on the wire, for raw TCP clients: `host` goes in the Host header,
    /// Content-Length is set from `body`, and `Connection: close`.
    /// - Throws: `.httpProtocol` for a method, path or header that cannot be written safely.
    public func serialized(host: String) throws -> Data {
        guard !method.isEmpty, method.utf8.allSatisfy(isTokenByte) else {
            throw TransportError.httpProtocol(detail: "method '\(method)' is not an HTTP token")
        }
        guard path.hasPrefix("/"), path.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw TransportError.httpProtocol(detail: "path '\(path)' is not an origin-form request target")
        }
        var fields = headers.filter { !["host", "content-length", "connection", "transfer-encoding"].contains($0.key.lowercased()) }
        fields["host"] = host
        fields["content-length"] = String(body.count)
        fields["connection"] = "close"
        var head = "\(method) \(path) HTTP/1.1\r\n"
        head += try serializeHeaderFields(fields)
        head += "\r\n"
        return Data(head.utf8) + body
    }
}

/// An HTTP/1.1 response. Header names are lowercase.
public struct HTTPResponse: Equatable, Sendable {
    public var status: Int
    /// Lowercase names → values.
    public var headers: [String: String]
    public var body: Data
    /// The reason phrase of the status line as the server sent it (`Bad Request`); nil when the
    /// response did not come over the wire (in-process) or had none. For comparing refusals.
    public var reason: String?

    public init(status: Int, headers: [String: String] = [:], body: Data = Data(), reason: String? = nil) {
        self.status = status
        self.headers = lowercasedHeaders(headers)
        self.body = body
        self.reason = reason
    }

    /// A JSON answer: `content-type: application/json`, as every aes-https answer carries.
    public static func json(status: Int, _ body: Data) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["content-type": "application/json"], body: body)
    }

    /// A JSON answer from a UTF-8 string, e.g. `.json(status: 404, #"{"error":"not found"}"#)`.
    public static func json(status: Int, _ body: String) -> HTTPResponse { json(status: status, Data(body.utf8)) }

    /// The response on the wire: status line, the headers sorted by name, then `content-length`
    /// (omitted for 1xx, 204 and 304, which carry no body) and `connection: close`.
    /// - Throws: `.httpProtocol` for a status outside 100–999 or a header with CR, LF or another
    ///   control character (which would let a value inject headers).
    public func serialized() throws -> Data {
        guard (100...999).contains(status) else {
            throw TransportError.httpProtocol(detail: "status \(status) is not a three-digit HTTP status")
        }
        let bodiless = (100..<200).contains(status) || status == 204 || status == 304
        var fields = headers.filter { !["content-length", "connection", "transfer-encoding"].contains($0.key.lowercased()) }
        if !bodiless { fields["content-length"] = String(body.count) }
        fields["connection"] = "close"
        var head = "HTTP/1.1 \(status) \(HTTPResponse.reasonPhrase(for: status))\r\n"
        head += try serializeHeaderFields(fields)
        head += "\r\n"
        return bodiless ? Data(head.utf8) : Data(head.utf8) + body
    }

    /// Parses a whole response as read until the server closed the connection (`Connection: close`).
    /// A Content-Length body must be complete; a chunked one (RFC 9112 §7.1, which every HTTP/1.1
    /// recipient must parse) is decoded; without either the body is the rest.
    /// - Throws: `.httpProtocol` (a malformed or unfinished chunked body, another transfer coding),
    ///   `.tooLarge(.responseBody)`.
    public static func parse(_ data: Data, maxBodyBytes: Int = 4 << 20) throws -> HTTPResponse {
        let bytes = [UInt8](data)
        guard let headEnd = findHeadEnd(bytes, from: 0) else {
            throw TransportError.httpProtocol(detail: "response ends before the blank line after the headers")
        }
        let lines = try splitHeadLines(bytes[0..<headEnd])
        let statusLine = lines[0]
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "HTTP/1.1" || parts[0] == "HTTP/1.0",
              parts[1].count == 3, let status = Int(parts[1]), parts[1].allSatisfy(\.isASCII) else {
            throw TransportError.httpProtocol(detail: "malformed status line '\(statusLine)'")
        }
        var headers = try parseHeaderLines(lines.dropFirst())
        var body = Data(bytes[(headEnd + 4)...])
        if let encoding = headers["transfer-encoding"] {
            // RFC 9112 §6.1: chunked is the final coding; crosscheck asks for no other (no TE header).
            guard encoding.trimmingCharacters(in: .whitespaces).lowercased() == "chunked" else {
                throw TransportError.httpProtocol(detail: "response Transfer-Encoding '\(encoding)': crosscheck reads Content-Length and chunked bodies only")
            }
            body = try decodeChunked(body, maxBodyBytes: maxBodyBytes)
            // The body as it arrived once decoded: its length is known, as a Content-Length says (§7.1.3).
            headers["transfer-encoding"] = nil
            headers["content-length"] = String(body.count)
        } else if let field = headers["content-length"] {
            let length = try parseContentLength(field)
            guard length <= maxBodyBytes else { throw TransportError.tooLarge(.responseBody, limit: maxBodyBytes) }
            guard body.count >= length else {
                throw TransportError.httpProtocol(detail: "response body truncated: \(body.count) of \(length) bytes")
            }
            body = body.prefix(length)
        } else if body.count > maxBodyBytes {
            throw TransportError.tooLarge(.responseBody, limit: maxBodyBytes)
        }
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// A chunked body (RFC 9112 §7.1): chunks of `size[;ext] CRLF data CRLF`, a last chunk of
    /// size 0, trailer fields (read past) and a CRLF.
    static func decodeChunked(_ data: Data, maxBodyBytes: Int) throws -> Data {
        let bytes = [UInt8](data)
        var body = Data()
        var index = 0
        func line() throws -> ArraySlice<UInt8> {
            var end = index
            while end + 1 < bytes.count, !(bytes[end] == 0x0D && bytes[end + 1] == 0x0A) { end += 1 }
            guard end + 1 < bytes.count else { throw TransportError.httpProtocol(detail: "chunked response body ends in the middle of a chunk line") }
            defer { index = end + 2 }
            return bytes[index..<end]
        }
        while true {
            let sizeLine = try line()
            let sizeText = String(decoding: sizeLine.prefix { $0 != UInt8(ascii: ";") }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            guard !sizeText.isEmpty, sizeText.count <= 8, sizeText.allSatisfy(\.isHexDigit), let size = Int(sizeText, radix: 16) else {
                throw TransportError.httpProtocol(detail: "chunked response body: '\(String(decoding: sizeLine, as: UTF8.self))' is no chunk size")
            }
            if size == 0 {
                while try !line().isEmpty {}  // trailer fields, up to the blank line
                return body
            }
            guard body.count + size <= maxBodyBytes else { throw TransportError.tooLarge(.responseBody, limit: maxBodyBytes) }
            guard index + size + 2 <= bytes.count else { throw TransportError.httpProtocol(detail: "chunked response body truncated: a chunk of \(size) bytes did not arrive whole") }
            body += bytes[index..<(index + size)]
            index += size
            guard bytes[index] == 0x0D, bytes[index + 1] == 0x0A else { throw TransportError.httpProtocol(detail: "chunked response body: no CRLF after a chunk of \(size) bytes") }
            index += 2
        }
    }

    /// The standard reason phrase, or "Status" for codes without one.
    public static func reasonPhrase(for status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 411: return "Length Required"
        case 413: return "Content Too Large"
        case 415: return "Unsupported Media Type"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 503: return "Service Unavailable"
        case 505: return "HTTP Version Not Supported"
        default: return "Status"
        }
    }
}

/// Size limits on a request the server reads.
public struct HTTPLimits: Equatable, Sendable {
    /// The request line and header fields, including their CRLFs and the blank line.
    public var maxHeadBytes: Int
    /// The Content-Length body.
    public var maxBodyBytes: Int

    public init(maxHeadBytes: Int = 16 * 1024, maxBodyBytes: Int = 1 << 20) {
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
    }
}

// MARK: - Shared helpers

private func lowercasedHeaders(_ headers: [String: String]) -> [String: String] {
    var result: [String: String] = [:]
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
        let key = name.lowercased()
        result[key] = result[key].map { "\($0), \(value)" } ?? value
    }
    return result
}

/// tchar from RFC 9110 §5.6.2.
func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        return true
    default:
        return "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
}

/// Field-value bytes: HTAB, SP, visible ASCII and obs-text; no CR, LF or other controls.
private func isFieldValueByte(_ byte: UInt8) -> Bool {
    byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
}

private func serializeHeaderFields(_ fields: [String: String]) throws -> String {
    var text = ""
    for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
        guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else {
            throw TransportError.httpProtocol(detail: "header name '\(name)' is not an HTTP token")
        }
        guard value.utf8.allSatisfy(isFieldValueByte) else {
            throw TransportError.httpProtocol(detail: "header '\(name)' has a control character (CR, LF, …) in its value")
        }
        text += "\(name.lowercased()): \(value)\r\n"
    }
    return text
}

/// The index of the CRLFCRLF that ends the head, searching from `start`.
func findHeadEnd(_ bytes: [UInt8], from start: Int) -> Int? {
    guard bytes.count >= 4 else { return nil }
    var index = max(0, start)
    while index + 3 < bytes.count {
        if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 { return index }
        index += 1
    }
    return nil
}

/// Splits the head (without the final CRLFCRLF) into lines; a bare CR or LF is an error.
private func splitHeadLines(_ head: ArraySlice<UInt8>) throws -> [String] {
    var lines: [String] = []
    var current: [UInt8] = []
    var index = head.startIndex
    while index < head.endIndex {
        let byte = head[index]
        if byte == 13 {
            guard index + 1 < head.endIndex, head[index + 1] == 10 else {
                throw TransportError.httpProtocol(detail: "bare CR in the head (lines must end with CRLF)")
            }
            lines.append(try decodeLine(current))
            current = []
            index += 2
            continue
        }
        if byte == 10 { throw TransportError.httpProtocol(detail: "bare LF in the head (lines must end with CRLF)") }
        current.append(byte)
        index += 1
    }
    lines.append(try decodeLine(current))
    return lines
}

private func decodeLine(_ bytes: [UInt8]) throws -> String {
    guard let line = String(validating: bytes, as: UTF8.self) else {
        throw TransportError.httpProtocol(detail: "a line of the head is not valid UTF-8")
    }
    return line
}

/// Header lines → lowercase names; rejects obs-fold, whitespace before the colon, bad names,
/// control characters, and more than one Content-Length.
private func parseHeaderLines<Lines: Sequence>(_ lines: Lines) throws -> [String: String] where Lines.Element == String {
    var headers: [String: String] = [:]
    for line in lines {
        guard let first = line.utf8.first else {
            throw TransportError.httpProtocol(detail: "empty header line")
        }
        if first == 0x20 || first == 0x09 {
            throw TransportError.httpProtocol(detail: "folded header line (obs-fold) is not accepted")
        }
        guard let colon = line.firstIndex(of: ":") else {
            throw TransportError.httpProtocol(detail: "header line without a colon: '\(line.prefix(80))'")
        }
        let name = String(line[..<colon])
        guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else {
            throw TransportError.httpProtocol(detail: "invalid header name '\(name.prefix(80))'")
        }
        let rawValue = line[line.index(after: colon)...]
        guard rawValue.utf8.allSatisfy(isFieldValueByte) else {
            throw TransportError.httpProtocol(detail: "control character in the value of header '\(name)'")
        }
        let value = rawValue.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        let key = name.lowercased()
        if let existing = headers[key] {
            if key == "content-length" {
                throw TransportError.httpProtocol(detail: "more than one Content-Length header")
            }
            headers[key] = existing + ", " + value
        } else {
            headers[key] = value
        }
    }
    return headers
}

private func parseContentLength(_ field: String) throws -> Int {
    guard !field.isEmpty, field.utf8.count <= 18, field.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
          let length = Int(field) else {
        throw TransportError.httpProtocol(detail: "invalid Content-Length '\(field.prefix(40))'")
    }
    return length
}

// MARK: - Request parser

/// A strict, bounded, incremental HTTP/1.1 request parser: feed it bytes as they arrive.
///
/// Accepts `METHOD /target HTTP/1.1` (or 1.0) with CRLF line ends, a Host header for 1.1, and a
/// body only by Content-Length. Refuses (throws) as soon as the input shows it must:
/// - `.tooLarge(.requestHead, limit:)` when the head passes `limits.maxHeadBytes` (answer 431);
/// - `.tooLarge(.requestBody, limit:)` when Content-Length passes `limits.maxBodyBytes`, before the
///   body is read (answer 413);
/// - `.transferEncodingRefused` for any Transfer-Encoding, chunked included (answer 411);
/// - `.httpProtocol` for anything malformed (answer 400).
/// Bytes after the declared body (a pipelined second request) are ignored: one request per connection.
public struct HTTPRequestParser: Sendable {
    public let limits: HTTPLimits
    private var buffer: [UInt8] = []
    private var scannedUpTo = 0
    private var head: (method: String, path: String, headers: [String: String], contentLength: Int)?
    private var body = Data()

    public init(limits: HTTPLimits = HTTPLimits()) { self.limits = limits }

    /// Whether any byte has arrived (a connection that sent nothing can be closed without an answer).
    public var hasStarted: Bool { !buffer.isEmpty || head != nil }

    /// Feeds bytes; returns the request once it is complete, nil while more is needed.
    public mutating func consume(_ data: Data) throws -> HTTPRequest? {
        if let head {
            body.append(data.prefix(max(0, head.contentLength - body.count)))
            return complete()
        }
        buffer.append(contentsOf: data)
        guard let headEnd = findHeadEnd(buffer, from: max(0, scannedUpTo - 3)) else {
            if buffer.count > limits.maxHeadBytes {
                throw TransportError.tooLarge(.requestHead, limit: limits.maxHeadBytes)
            }
            scannedUpTo = buffer.count
            return nil
        }
        guard headEnd + 4 <= limits.maxHeadBytes else {
            throw TransportError.tooLarge(.requestHead, limit: limits.maxHeadBytes)
        }
        let parsed = try parseHead(buffer[0..<headEnd])
        head = parsed
        body = Data(buffer[(headEnd + 4)...].prefix(parsed.contentLength))
        buffer = []
        return complete()
    }

    /// Parses one complete request from `data`.
    /// - Throws: as `consume`, and `.httpProtocol` if `data` ends before the request does.
    public static func parse(_ data: Data, limits: HTTPLimits = HTTPLimits()) throws -> HTTPRequest {
        var parser = HTTPRequestParser(limits: limits)
        guard let request = try parser.consume(data) else {
            throw TransportError.httpProtocol(detail: "the request is incomplete")
        }
        return request
    }

    private func complete() -> HTTPRequest? {
        guard let head, body.count >= head.contentLength else { return nil }
        var request = HTTPRequest(method: head.method, path: head.path, body: body)
        request.headers = head.headers
        return request
    }

    private func parseHead(_ bytes: ArraySlice<UInt8>) throws
        -> (method: String, path: String, headers: [String: String], contentLength: Int) {
        let lines = try splitHeadLines(bytes)
        let requestLine = lines[0]
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw TransportError.httpProtocol(detail: "malformed request line '\(requestLine.prefix(80))'")
        }
        let (method, target, version) = (String(parts[0]), String(parts[1]), String(parts[2]))
        guard !method.isEmpty, method.utf8.allSatisfy(isTokenByte) else {
            throw TransportError.httpProtocol(detail: "invalid method '\(method.prefix(40))'")
        }
        guard target.hasPrefix("/"), target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw TransportError.httpProtocol(detail: "request target '\(target.prefix(80))' is not an origin-form path")
        }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            throw TransportError.httpProtocol(detail: "unsupported HTTP version '\(version.prefix(20))' (HTTP/1.1 only)")
        }
        let headers = try parseHeaderLines(lines.dropFirst())
        if version == "HTTP/1.1", headers["host"] == nil {
            throw TransportError.httpProtocol(detail: "HTTP/1.1 request without a Host header")
        }
        if let encoding = headers["transfer-encoding"] {
            throw TransportError.transferEncodingRefused(encoding: encoding)
        }
        let contentLength = try headers["content-length"].map(parseContentLength) ?? 0
        guard contentLength <= limits.maxBodyBytes else {
            throw TransportError.tooLarge(.requestBody, limit: limits.maxBodyBytes)
        }
        return (method, target, headers, contentLength)
    }
}

extension HTTPResponse {
    /// The answer a server gives to a request it refused to parse: 431 head too large, 413 body
    /// too large, 411 Transfer-Encoding, 408 timed out, 400 anything else. JSON, like aes-https.
    public static func rejecting(_ error: TransportError) -> HTTPResponse {
        switch error {
        case .tooLarge(.requestHead, _): return .json(status: 431, #"{"error":"request header fields too large"}"#)
        case .tooLarge: return .json(status: 413, #"{"error":"too large"}"#)
        case .transferEncodingRefused: return .json(status: 411, #"{"error":"length required"}"#)
        case .timedOut: return .json(status: 408, #"{"error":"request timeout"}"#)
        default: return .json(status: 400, #"{"error":"bad request"}"#)
        }
    }
}

// The protocol layer's request and answer (WireProtocol's `WebRequest`, `WebResponse`) as Transport
// carries them: one conversion for every check that sends one over HTTPS or to an in-process app.
extension HTTPRequest {
    public init(_ request: WebRequest) {
        self.init(method: request.method, path: request.path, headers: request.headers, body: request.body)
    }
}

extension WebResponse {
    public init(_ response: HTTPResponse) {
        self.init(status: response.status, headers: response.headers, body: response.body)
        reason = response.reason
    }
}
