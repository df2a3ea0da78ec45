import Foundation
import WireCrypto
import StrictFormats

/// An HTTP request or response as the aes-https logic sees it: header names in lowercase.
public struct WebRequest: Equatable, Sendable {
    public var method: String
    public var path: String
    public var headers: [String: String]
    public var body: Data
    public init(method: String, path: String, headers: [String: String] = [:], body: Data = Data()) {
        self.method = method; self.path = path
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
    }
}

public struct WebResponse: Equatable, Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data
    /// The status line's reason phrase as sent (nil in-process or when there was none).
    public var reason: String?
    public init(status: Int, headers: [String: String] = [:], body: Data = Data(), reason: String? = nil) {
        self.reason = reason
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
    }

    /// A JSON answer with the content type every aes-https answer carries.
    static func json(_ status: Int, _ body: Data) -> WebResponse {
        WebResponse(status: status, headers: ["content-type": "application/json"], body: body)
    }
    static func error(_ status: Int, _ text: String) -> WebResponse { json(status, Data("{\"error\":\"\(text)\"}".utf8)) }
}

public struct AESHTTPSServerConfig: Sendable {
    public var users: [String: String]
    public var keyMode: KeyDerivationMode
    /// The `encryptionKey` string handed out at login. It must derive under `keyMode` (in
    /// `utf8-zeropad16`: 1–15 UTF-8 bytes, or the seed app cannot use it); otherwise every
    /// secure-data request is answered 400.
    public var encryptionKey: String
    public static let bodyLimit = 1 << 20

    public init(users: [String: String], keyMode: KeyDerivationMode, encryptionKey: String) {
        self.users = users; self.keyMode = keyMode; self.encryptionKey = encryptionKey
    }

    /// A server with a fresh key for the mode (see `freshEncryptionKey(for:)`).
    public init(users: [String: String], keyMode: KeyDerivationMode) {
        self.init(users: users, keyMode: keyMode, encryptionKey: Self.freshEncryptionKey(for: keyMode))
    }

    /// A fresh `encryptionKey`, as PythonRef makes one: in `utf8-zeropad16`, 12 URL-safe base64
    /// characters (9 random bytes; short enough for the seed's 16-byte `getCString` buffer); in
    /// `base64-raw`, standard base64 of 32 random bytes.
    public static func freshEncryptionKey(for mode: KeyDerivationMode) -> String {
        switch mode {
        case .weakUTF8ZeroPad16:
            return secureRandomBytes(9).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        case .base64Raw:
            return secureRandomBytes(32).base64EncodedString()
        }
    }
}

/// How a login body is written: JSON (the reference client) or a form (seed 001's
/// `AFHTTPSessionManager().post(…, parameters:)`, through AFNetworking's `AFHTTPRequestSerializer`).
public enum LoginEncoding: String, Sendable, CaseIterable {
    case json, form
}

/// Reading a login body, the same way PythonRef does (docs/PROTOCOL.md, "aes-https as
/// implemented"): the body decides, whatever its Content-Type says. One that starts, after JSON
/// whitespace, with `{` is strict JSON; any other is `application/x-www-form-urlencoded`.
enum LoginBody {
    /// The username and password, or nil (a 400).
    static func credentials(_ body: Data) -> (username: String, password: String)? {
        let first = body.first { !jsonWhitespace.contains($0) }
        if first == UInt8(ascii: "{") {
            guard let fields = StrictJSON.object(body) as? [String: Any],
                  let username = fields["username"] as? String, let password = fields["password"] as? String else {
                return nil
            }
            return (username, password)
        }
        guard let fields = form(body), let username = fields["username"], let password = fields["password"] else {
            return nil
        }
        return (username, password)
    }

    private static let jsonWhitespace: Set<UInt8> = [0x20, 0x09, 0x0D, 0x0A]

    /// `&`-separated `name=value` pairs: empty pairs skipped, no `=` an empty value, a name given
    /// twice the last one. nil for a broken escape or bytes that are not UTF-8.
    static func form(_ body: Data) -> [String: String]? {
        var fields: [String: String] = [:]
        for pair in [UInt8](body).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            guard let name = unescape(pair[..<(equals ?? pair.endIndex)]),
                  let value = unescape(equals.map { pair[($0 + 1)...] } ?? []) else { return nil }
            fields[name] = value
        }
        return fields
    }

    /// `+` is a space, `%HH` (either case) a byte; then the bytes must be UTF-8 (no surrogates, no
    /// overlong forms). A `%` without two hex digits after it is nil.
    static func unescape(_ part: ArraySlice<UInt8>) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(part.count)
        var index = part.startIndex
        while index < part.endIndex {
            switch part[index] {
            case UInt8(ascii: "+"):
                bytes.append(0x20)
                index += 1
            case UInt8(ascii: "%"):
                guard index + 2 < part.endIndex, let high = HexDigit.value(part[index + 1]), let low = HexDigit.value(part[index + 2]) else { return nil }
                bytes.append(high << 4 | low)
                index += 3
            case let byte:
                bytes.append(byte)
                index += 1
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

}

/// The aes-https server logic (seeds 001/002) as a pure function of its state and a request.
/// Every envelope failure gets the same `400` bytes: no padding oracle.
public final class AESHTTPSServer: @unchecked Sendable {
    let config: AESHTTPSServerConfig
    private var tokens: Set<String> = []
    private let lock = NSLock()

    public init(config: AESHTTPSServerConfig) { self.config = config }

    public func handle(_ request: WebRequest) -> WebResponse {
        guard request.body.count <= AESHTTPSServerConfig.bodyLimit else { return .error(413, "too large") }
        switch request.path {
        case "/login", "/secure-data": break
        default: return .error(404, "not found")
        }
        guard request.method == "POST" else { return .error(405, "method not allowed") }
        return request.path == "/login" ? login(request) : secureData(request)
    }

    private func login(_ request: WebRequest) -> WebResponse {
        guard let (username, password) = LoginBody.credentials(request.body) else { return .error(400, "bad request") }
        // UTF-8 bytes, as PythonRef compares them: Swift's String == would also match canonically
        // equivalent spellings (a precomposed "é" and "e" + U+0301), which PythonRef refuses.
        guard let expected = config.users.first(where: { $0.key.utf8.elementsEqual(username.utf8) })?.value,
              expected.utf8.elementsEqual(password.utf8) else { return .error(401, "unauthorized") }
        let token = secureRandomBytes(16).hexString
        lock.lock(); tokens.insert(token); lock.unlock()
        let body = try! JSONSerialization.data(withJSONObject: ["token": token, "encryptionKey": config.encryptionKey], options: [.sortedKeys])
        return .json(200, body)
    }

    private func secureData(_ request: WebRequest) -> WebResponse {
        lock.lock(); let known = request.headers["authorization"].map(tokens.contains) ?? false; lock.unlock()
        guard known else { return .error(401, "unauthorized") }
        do {
            let key = try config.keyMode.deriveKey(from: config.encryptionKey)
            let plaintext = try CBCEnvelope(json: request.body).open(key: key)
            guard let params = StrictJSON.object(plaintext) as? [String: Any] else {
                return .error(400, "bad request")
            }
            let answer = try JSONSerialization.data(withJSONObject: ["echo": params], options: [.sortedKeys])
            return .json(200, try CBCEnvelope.seal(answer, key: key).jsonData)
        } catch {
            return .error(400, "bad request")
        }
    }
}

/// Why an aes-https client could not finish.
public enum AESHTTPSClientError: Error, Equatable, Sendable, CustomStringConvertible {
    case status(Int, body: String)
    case malformedResponse(String)
    case crypto(String)

    public var description: String {
        switch self {
        case let .status(code, body): return "server answered \(code): \(body.prefix(200))"
        case let .malformedResponse(what): return "malformed response: \(what)"
        case let .crypto(what): return what
        }
    }
}

/// The aes-https client logic (what the iOS app does), as request builders and response parsers.
public enum AESHTTPSClient {
    /// `POST /login`: as JSON (the reference client), or as the seed app's form (`encoding: .form`).
    public static func loginRequest(username: String, password: String, encoding: LoginEncoding = .json) -> WebRequest {
        switch encoding {
        case .json:
            let body = try! JSONSerialization.data(withJSONObject: ["username": username, "password": password], options: [.sortedKeys])
            return WebRequest(method: "POST", path: "/login", headers: ["content-type": "application/json"], body: body)
        case .form:
            let body = "password=\(afPercentEscaped(password))&username=\(afPercentEscaped(username))"
            return WebRequest(method: "POST", path: "/login", headers: ["content-type": "application/x-www-form-urlencoded"],
                              body: Data(body.utf8))
        }
    }

    /// A form name or value as AFNetworking's `AFPercentEscapedStringFromString` writes it: its
    /// UTF-8 bytes, every one but ASCII letters, digits and `-._~/?` as `%HH` (upper case). That is
    /// `URLQueryAllowedCharacterSet` less the RFC 3986 delimiters `:#[]@` and `!$&'()*+,;=`.
    public static func afPercentEscaped(_ text: String) -> String {
        var escaped = ""
        for byte in text.utf8 {
            if afUnescaped.contains(byte) {
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                escaped += (byte < 0x10 ? "%0" : "%") + String(byte, radix: 16, uppercase: true)
            }
        }
        return escaped
    }

    private static let afUnescaped = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/?".utf8)

    /// The token and the AES key derived from `encryptionKey` with `mode`.
    public static func parseLogin(_ response: WebResponse, mode: KeyDerivationMode) throws -> (token: String, key: Data) {
        guard response.status == 200 else { throw AESHTTPSClientError.status(response.status, body: String(decoding: response.body, as: UTF8.self)) }
        guard let fields = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any],
              let token = fields["token"] as? String, let encryptionKey = fields["encryptionKey"] as? String else {
            throw AESHTTPSClientError.malformedResponse("login answer is not {\"token\",\"encryptionKey\"}")
        }
        do { return (token, try mode.deriveKey(from: encryptionKey)) } catch { throw AESHTTPSClientError.crypto("\(error)") }
    }

    /// `POST /secure-data` with the bare token (as the seed sends it) and `params` sealed under a fresh IV.
    public static func secureRequest(params: Data, token: String, key: Data, iv: Data = AESCBC.randomIV()) throws -> WebRequest {
        let envelope: CBCEnvelope
        do { envelope = try CBCEnvelope.seal(params, key: key, iv: iv) } catch { throw AESHTTPSClientError.crypto("\(error)") }
        return WebRequest(method: "POST", path: "/secure-data",
                          headers: ["authorization": token, "content-type": "application/json"], body: envelope.jsonData)
    }

    /// The decrypted JSON of a secure-data answer.
    public static func parseSecure(_ response: WebResponse, key: Data) throws -> Data {
        guard response.status == 200 else { throw AESHTTPSClientError.status(response.status, body: String(decoding: response.body, as: UTF8.self)) }
        let envelope: CBCEnvelope
        do { envelope = try CBCEnvelope(json: response.body) } catch { throw AESHTTPSClientError.crypto("\(error)") }
        do { return try envelope.open(key: key) } catch WireCryptoError.badPadding {
            // Issue 33: a server that pads another way is told so, not "wrong key or IV, or tampered".
            if let diagnosis = envelope.paddingDiagnosis(key: key) {
                throw AESHTTPSClientError.crypto("the server's answer has invalid AES-CBC padding: \(diagnosis)")
            }
            throw AESHTTPSClientError.crypto("\(WireCryptoError.badPadding)")
        } catch { throw AESHTTPSClientError.crypto("\(error)") }
    }
}
