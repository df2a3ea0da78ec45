import Foundation
import WireCrypto

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
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
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
    /// The `encryptionKey` string handed out at login.
    public var encryptionKey: String
    public static let bodyLimit = 1 << 20

    public init(users: [String: String], keyMode: KeyDerivationMode, encryptionKey: String) {
        self.users = users; self.keyMode = keyMode; self.encryptionKey = encryptionKey
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
        guard let fields = StrictJSON.object(request.body) as? [String: Any],
              let username = fields["username"] as? String, let password = fields["password"] as? String else {
            return .error(400, "bad request")
        }
        guard let expected = config.users[username], expected == password else { return .error(401, "unauthorized") }
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
    public static func loginRequest(username: String, password: String) -> WebRequest {
        let body = try! JSONSerialization.data(withJSONObject: ["username": username, "password": password], options: [.sortedKeys])
        return WebRequest(method: "POST", path: "/login", headers: ["content-type": "application/json"], body: body)
    }

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
        do { return try CBCEnvelope(json: response.body).open(key: key) } catch { throw AESHTTPSClientError.crypto("\(error)") }
    }
}
