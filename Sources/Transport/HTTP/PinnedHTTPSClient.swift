import Foundation
import WireCrypto
internal import CCurl
internal import COpenSSL
internal import CCurlShims

/// libcurl's process-wide setup, done once before the first handle (curl_global_init is not
/// reentrant; a Swift global is initialized exactly once, thread-safely).
private let curlGlobalInitResult: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

/// An HTTPS client that trusts one certificate and nothing else: the iOS seed's
/// `SecTrustSetAnchorCertificates` with the bundled server certificate, over libcurl.
///
/// - Trust: only the pinned PEM certificate (CURLOPT_CAINFO), no system CA directory, peer and
///   host name verified (the certificate must name the URL's host).
/// - Only `https://` (CURLOPT_PROTOCOLS_STR): an `http://` URL is refused before any connection.
/// - No proxies, no redirects, no connection reuse, HTTP/1.1, TLS 1.2 or later.
/// - `timeout` bounds connecting and the whole exchange; responses over `maxResponseBytes` are refused.
/// One libcurl handle per request: `send` may be called from several threads at once.
public final class PinnedHTTPSClient: Sendable {
    /// The only certificate trusted; nil for the `_INSECURE_` control client.
    public let pinnedCertificatePath: String?
    public let timeout: TimeInterval
    public let maxResponseBytes: Int

    /// - Throws: `.tlsConfiguration` if the file is missing or holds no PEM certificate.
    public init(pinnedCertificatePath: String, timeout: TimeInterval = 10, maxResponseBytes: Int = 4 << 20) throws {
        try checkPEMCertificate(at: pinnedCertificatePath)
        self.pinnedCertificatePath = pinnedCertificatePath
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
    }

    private init(insecureTimeout timeout: TimeInterval, maxResponseBytes: Int) {
        self.pinnedCertificatePath = nil
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
    }

    /// **Accepts any certificate for any name.** For test controls only: proving that a server the
    /// pinned client refused was up and speaking TLS. Still https-only.
    public static func _INSECURE_acceptingAnyCertificate(timeout: TimeInterval = 10,
                                                        maxResponseBytes: Int = 4 << 20) -> PinnedHTTPSClient {
        PinnedHTTPSClient(insecureTimeout: timeout, maxResponseBytes: maxResponseBytes)
    }

    /// Sends `request` to the server named by `url` and returns its response (any status).
    ///
    /// `url` gives scheme, host, port and an optional base path; `request.path` is appended to it:
    /// `https://localhost:8443` + `/login`. `resolve` maps the URL's host name to an address
    /// (CURLOPT_RESOLVE) so a certificate can be served under any name from loopback; certificate
    /// and name checks still use the URL's host.
    /// - Throws: `.certificateRefused(reason, detail)`, `.plainHTTPRefused`, `.connectionRefused`,
    ///   `.timedOut`, `.tlsHandshakeFailed`, `.tooLarge(.responseBody)`, `.invalidAddress`, …
    public func send(_ request: HTTPRequest, to url: URL, resolve: (host: String, address: String)? = nil) throws -> HTTPResponse {
        _ = curlGlobalInitResult
        guard curlGlobalInitResult == CURLE_OK else {
            throw TransportError.unexpected(library: "libcurl", code: Int(curlGlobalInitResult.rawValue),
                                            detail: "curl_global_init: " + String(cString: curl_easy_strerror(curlGlobalInitResult)))
        }
        let target = try requestURL(url, path: request.path)
        let port = url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443)
        let easy = try CurlEasy()
        let collector = ResponseCollector(limit: maxResponseBytes)
        let milliseconds = Int(max(1, min(timeout * 1000, Double(Int32.max))).rounded(.up))

        try easy.set(CURLOPT_URL, target)
        try easy.set(CURLOPT_PROTOCOLS_STR, "https")
        try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "https")
        try easy.set(CURLOPT_FOLLOWLOCATION, 0)
        try easy.set(CURLOPT_NOSIGNAL, 1)
        try easy.set(CURLOPT_PROXY, "")
        try easy.set(CURLOPT_NOPROXY, "*")
        try easy.set(CURLOPT_FORBID_REUSE, 1)
        try easy.set(CURLOPT_FRESH_CONNECT, 1)
        try easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        try easy.set(CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2))
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
        try easy.set(CURLOPT_TIMEOUT_MS, milliseconds)
        try easy.set(CURLOPT_MAXFILESIZE_LARGE, offset: Int64(maxResponseBytes))
        try easy.set(CURLOPT_CAPATH, nil)
        if let pinnedCertificatePath {
            try easy.set(CURLOPT_CAINFO, pinnedCertificatePath)
            try easy.set(CURLOPT_SSL_VERIFYPEER, 1)
            try easy.set(CURLOPT_SSL_VERIFYHOST, 2)
        } else {
            try easy.set(CURLOPT_CAINFO, nil)
            try easy.set(CURLOPT_SSL_VERIFYPEER, 0)
            try easy.set(CURLOPT_SSL_VERIFYHOST, 0)
        }
        if let resolve {
            let address = resolve.address.contains(":") && !resolve.address.hasPrefix("[") ? "[\(resolve.address)]" : resolve.address
            try easy.set(CURLOPT_RESOLVE, list: ["\(resolve.host):\(port):\(address)"])
        }

        // Headers: the caller's (but libcurl computes Content-Length), and no "Expect: 100-continue".
        var headerLines = request.headers
            .filter { !["content-length", "transfer-encoding", "expect"].contains($0.key) }
            .sorted { $0.key < $1.key }
            .map { "\($0.key): \($0.value)" }
        for line in headerLines where line.contains("\r") || line.contains("\n") {
            throw TransportError.httpProtocol(detail: "request header '\(line.prefix(40))…' contains CR or LF")
        }
        headerLines.append("Expect:")
        try easy.set(CURLOPT_HTTPHEADER, list: headerLines)

        switch request.method {
        case "GET" where request.body.isEmpty:
            try easy.set(CURLOPT_HTTPGET, 1)
        case "HEAD" where request.body.isEmpty:
            try easy.set(CURLOPT_NOBODY, 1)
        default:
            guard !request.method.isEmpty, request.method.utf8.allSatisfy(isTokenByte) else {
                throw TransportError.httpProtocol(detail: "method '\(request.method)' is not an HTTP token")
            }
            try easy.set(CURLOPT_POST, 1)
            try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(request.body.count))
            // COPYPOSTFIELDS copies the bytes now, so nothing has to outlive this call's buffer.
            try request.body.withUnsafeBytes { bytes in
                var empty: UInt8 = 0
                try withUnsafePointer(to: &empty) { fallback in
                    try easy.set(CURLOPT_COPYPOSTFIELDS, pointer: bytes.baseAddress ?? UnsafeRawPointer(fallback))
                }
            }
            if request.method != "POST" { try easy.set(CURLOPT_CUSTOMREQUEST, request.method) }
        }

        let code: CURLcode = withExtendedLifetime(collector) {
            let context = UnsafeMutableRawPointer(Unmanaged.passUnretained(collector).toOpaque())
            guard (try? easy.setCallbacks(context: context)) != nil else { return CURLE_FAILED_INIT }
            return curl_easy_perform(easy.handle)
        }
        if code != CURLE_OK {
            throw mapCurlError(code, easy: easy, collector: collector, url: url, target: target, port: port,
                               method: request.method)
        }
        return HTTPResponse(status: easy.longInfo(CURLINFO_RESPONSE_CODE), headers: collector.headers, body: collector.body,
                            reason: collector.reason)
    }

    private func mapCurlError(_ code: CURLcode, easy: CurlEasy, collector: ResponseCollector, url: URL, target: String,
                              port: Int, method: String) -> TransportError {
        let message = easy.errorMessage
        let detail = message.isEmpty ? String(cString: curl_easy_strerror(code)) : message
        let host = url.host ?? ""
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .plainHTTPRefused(url: target)
        case CURLE_URL_MALFORMAT:
            return .invalidAddress(target, reason: detail)
        case CURLE_COULDNT_RESOLVE_HOST:
            return .invalidAddress(host, reason: "cannot resolve the host name: \(detail)")
        case CURLE_COULDNT_CONNECT:
            let osError = Int32(clamping: easy.longInfo(CURLINFO_OS_ERRNO))
            if osError == ECONNREFUSED || detail.lowercased().contains("refused") {
                return .connectionRefused(host: host, port: UInt16(clamping: port))
            }
            if osError != 0 {
                return .io(operation: "HTTPS connect to \(hostPort(host, UInt16(clamping: port)))", errno: osError, message: errnoText(osError))
            }
            return .unexpected(library: "libcurl", code: Int(code.rawValue), detail: detail)
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut(operation: "HTTPS \(method) \(target)", seconds: timeout)
        case CURLE_PEER_FAILED_VERIFICATION:
            let verify = easy.longInfo(CURLINFO_SSL_VERIFYRESULT)
            let reason = certificateRefusal(verifyResult: verify, message: detail)
            return .certificateRefused(reason, detail: verify > 1 ? "\(detail) [X509_V_ERR \(verify)]" : detail)
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CIPHER, CURLE_SSL_CERTPROBLEM, CURLE_SSL_ENGINE_INITFAILED:
            return .tlsHandshakeFailed(detail: detail)
        case CURLE_SSL_CACERT_BADFILE:
            return .tlsConfiguration(path: pinnedCertificatePath ?? "(none)", reason: detail)
        case CURLE_WRITE_ERROR where collector.bodyExceeded, CURLE_FILESIZE_EXCEEDED:
            return .tooLarge(.responseBody, limit: maxResponseBytes)
        case CURLE_WRITE_ERROR where collector.headersExceeded:
            return .tooLarge(.responseHeaders, limit: ResponseCollector.headerLimit)
        case CURLE_GOT_NOTHING:
            return .connectionClosed(peer: hostPort(host, UInt16(clamping: port)), detail: "without sending a response")
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR:
            if detail.lowercased().contains("reset") { return .connectionReset(peer: hostPort(host, UInt16(clamping: port))) }
            return .connectionClosed(peer: hostPort(host, UInt16(clamping: port)), detail: "mid-exchange: \(detail)")
        case CURLE_WEIRD_SERVER_REPLY, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_BAD_CONTENT_ENCODING:
            return .httpProtocol(detail: detail)
        default:
            return .unexpected(library: "libcurl", code: Int(code.rawValue),
                               detail: "\(String(cString: curl_easy_strerror(code)))" + (message.isEmpty ? "" : ": \(message)"))
        }
    }
}

/// Maps OpenSSL's verify result (CURLINFO_SSL_VERIFYRESULT) to a reason; when it says nothing
/// specific (0, or 1 "unspecified", which libcurl 7.88 sets after its own host name check fails),
/// libcurl's message decides.
func certificateRefusal(verifyResult: Int, message: String) -> TransportError.CertificateRefusal {
    switch Int32(clamping: verifyResult) {
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
         X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
        return .unknownIssuer
    case X509_V_ERR_CERT_HAS_EXPIRED:
        return .expired
    case X509_V_ERR_CERT_NOT_YET_VALID:
        return .notYetValid
    case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
        return .hostNameMismatch
    case X509_V_OK, X509_V_ERR_UNSPECIFIED, X509_V_ERR_APPLICATION_VERIFICATION:
        let text = message.lowercased()
        if text.contains("target host name") || text.contains("does not match") || text.contains("subject name") {
            return .hostNameMismatch
        }
        if text.contains("expired") { return .expired }
        if text.contains("self-signed") || text.contains("self signed") || text.contains("issuer") { return .unknownIssuer }
        return .other(code: verifyResult)
    default:
        return .other(code: verifyResult)
    }
}

/// `base` (scheme, host, port, optional base path; no query or fragment) + `path`.
private func requestURL(_ base: URL, path: String) throws -> String {
    guard path.hasPrefix("/") else {
        throw TransportError.invalidAddress(path, reason: "a request path must start with '/'")
    }
    guard base.scheme != nil, base.host != nil else {
        throw TransportError.invalidAddress(base.absoluteString, reason: "not an absolute URL with a host")
    }
    guard base.query == nil, base.fragment == nil else {
        throw TransportError.invalidAddress(base.absoluteString, reason: "the server URL must not have a query or fragment; put them in the request path")
    }
    var text = base.absoluteString
    while text.hasSuffix("/") { text.removeLast() }
    return text + path
}

/// Throws `.tlsConfiguration` unless `path` holds a PEM certificate OpenSSL can read.
private func checkPEMCertificate(at path: String) throws {
    guard FileManager.default.isReadableFile(atPath: path) else {
        throw TransportError.tlsConfiguration(path: path, reason: "no such file, or not readable")
    }
    ERR_clear_error()
    guard let bio = BIO_new_file(path, "r") else {
        throw TransportError.tlsConfiguration(path: path, reason: "cannot open: \(OpenSSLError.drain(after: "BIO_new_file").stackText())")
    }
    defer { BIO_free(bio) }
    guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else {
        let error = OpenSSLError.drain(after: "PEM_read_bio_X509")
        throw TransportError.tlsConfiguration(path: path, reason: "no PEM certificate ('BEGIN CERTIFICATE') in it"
                                              + (error.stack.isEmpty ? "" : " (\(error.stackText()))"))
    }
    X509_free(certificate)
}

// MARK: - libcurl handle

/// Owns one libcurl easy handle and what it points into: the error buffer and the string lists
/// (libcurl keeps pointers to slists, so they are freed after the handle).
final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var lists: [UnsafeMutablePointer<curl_slist>] = []

    init() throws {
        guard let handle = curl_easy_init() else {
            throw TransportError.unexpected(library: "libcurl", code: Int(CURLE_FAILED_INIT.rawValue), detail: "curl_easy_init failed")
        }
        self.handle = handle
        let size = Int(CURL_ERROR_SIZE)
        errorBuffer = .allocate(capacity: size + 1)
        errorBuffer.initialize(repeating: 0, count: size + 1)
        try check(CCurlShims_curl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer), CURLOPT_ERRORBUFFER)
    }

    deinit {
        curl_easy_cleanup(handle)
        lists.forEach { curl_slist_free_all($0) }
        errorBuffer.deallocate()
    }

    var errorMessage: String {
        String(cString: errorBuffer).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func set(_ option: CURLoption, _ value: Int) throws {
        try check(CCurlShims_curl_easy_setopt_long(handle, option, value), option)
    }

    func set(_ option: CURLoption, offset value: Int64) throws {
        try check(CCurlShims_curl_easy_setopt_off_t(handle, option, curl_off_t(value)), option)
    }

    /// A string option (libcurl copies it) or nil to reset it.
    func set(_ option: CURLoption, _ value: String?) throws {
        if let value {
            try value.withCString { try check(CCurlShims_curl_easy_setopt_pointer(handle, option, $0), option) }
        } else {
            try check(CCurlShims_curl_easy_setopt_pointer(handle, option, nil), option)
        }
    }

    func set(_ option: CURLoption, pointer: UnsafeRawPointer) throws {
        try check(CCurlShims_curl_easy_setopt_pointer(handle, option, pointer), option)
    }

    func set(_ option: CURLoption, list: [String]) throws {
        var head: UnsafeMutablePointer<curl_slist>? = nil
        for item in list {
            guard let extended = curl_slist_append(head, item) else {
                if let head { curl_slist_free_all(head) }
                throw TransportError.unexpected(library: "libcurl", code: Int(CURLE_OUT_OF_MEMORY.rawValue), detail: "curl_slist_append")
            }
            head = extended
        }
        guard let head else { return }
        lists.append(head)
        try check(CCurlShims_curl_easy_setopt_slist(handle, option, head), option)
    }

    /// Installs the body and header callbacks, which append to the `ResponseCollector` at `context`.
    func setCallbacks(context: UnsafeMutableRawPointer) throws {
        try check(CCurlShims_curl_easy_setopt_write_callback(handle, CURLOPT_WRITEFUNCTION, { data, size, count, context in
            guard let context else { return 0 }
            let collector = Unmanaged<ResponseCollector>.fromOpaque(context).takeUnretainedValue()
            return collector.appendBody(data, size * count) ? size * count : 0
        }), CURLOPT_WRITEFUNCTION)
        try check(CCurlShims_curl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, context), CURLOPT_WRITEDATA)
        try check(CCurlShims_curl_easy_setopt_write_callback(handle, CURLOPT_HEADERFUNCTION, { data, size, count, context in
            guard let context else { return 0 }
            let collector = Unmanaged<ResponseCollector>.fromOpaque(context).takeUnretainedValue()
            return collector.appendHeaderLine(data, size * count) ? size * count : 0
        }), CURLOPT_HEADERFUNCTION)
        try check(CCurlShims_curl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, context), CURLOPT_HEADERDATA)
    }

    func longInfo(_ info: CURLINFO) -> Int {
        var value = 0
        return CCurlShims_curl_easy_getinfo_long(handle, info, &value) == CURLE_OK ? value : 0
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws {
        guard code == CURLE_OK else {
            throw TransportError.unexpected(library: "libcurl", code: Int(code.rawValue),
                                            detail: "curl_easy_setopt(option \(option.rawValue)): \(String(cString: curl_easy_strerror(code)))")
        }
    }
}

/// Collects a response's headers and body as libcurl delivers them, within limits.
final class ResponseCollector {
    static let headerLimit = 64 * 1024
    let limit: Int
    private(set) var body = Data()
    private(set) var headers: [String: String] = [:]
    /// The last status line's reason phrase (after `HTTP/1.1 400 `), nil when it had none.
    private(set) var reason: String?
    private var headerBytes = 0
    private(set) var bodyExceeded = false
    private(set) var headersExceeded = false

    init(limit: Int) { self.limit = limit }

    func appendBody(_ data: UnsafeMutablePointer<CChar>?, _ length: Int) -> Bool {
        guard body.count + length <= limit else {
            bodyExceeded = true
            return false
        }
        if let data, length > 0 { body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length) }
        return true
    }

    /// One header line per call, with its CRLF. A new status line (after a 1xx) starts over.
    func appendHeaderLine(_ data: UnsafeMutablePointer<CChar>?, _ length: Int) -> Bool {
        headerBytes += length
        guard headerBytes <= ResponseCollector.headerLimit else {
            headersExceeded = true
            return false
        }
        guard let data, length > 0 else { return true }
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
            .trimmingCharacters(in: CharacterSet(charactersIn: "\r\n"))
        if line.hasPrefix("HTTP/") {
            headers = [:]
            // "HTTP/1.1 400 Bad Request": the phrase is what follows the second space.
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            reason = parts.count == 3 && !parts[2].isEmpty ? String(parts[2]) : nil
            return true
        }
        guard let colon = line.firstIndex(of: ":") else { return true }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        return true
    }
}
