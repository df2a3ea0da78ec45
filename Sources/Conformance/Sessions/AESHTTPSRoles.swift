import Foundation
import PythonBridge
import WireCrypto
import WireProtocol

/// The aes-https client logic of one implementation: requests built and answers parsed.
/// Params and echoes are JSON objects, carried as `PythonValue` dictionaries.
protocol AESHTTPSClientRole: Sendable {
    var name: String { get }
    func loginRequest(username: String, password: String) throws -> WebRequest
    func parseLogin(_ response: WebResponse, mode: KeyDerivationMode) throws -> (token: String, key: Data)
    func secureRequest(params: [String: PythonValue], token: String, key: Data) throws -> WebRequest
    func parseSecure(_ response: WebResponse, key: Data) throws -> PythonValue
}

/// The aes-https server logic of one implementation.
protocol AESHTTPSServerRole: Sendable {
    var name: String { get }
    func makeServer(users: [String: String], mode: KeyDerivationMode, encryptionKey: String) throws -> @Sendable (WebRequest) throws -> WebResponse
}

struct SwiftAESHTTPS: AESHTTPSClientRole, AESHTTPSServerRole {
    let name = "swift"

    func loginRequest(username: String, password: String) throws -> WebRequest {
        AESHTTPSClient.loginRequest(username: username, password: password)
    }
    func parseLogin(_ response: WebResponse, mode: KeyDerivationMode) throws -> (token: String, key: Data) {
        try AESHTTPSClient.parseLogin(response, mode: mode)
    }
    func secureRequest(params: [String: PythonValue], token: String, key: Data) throws -> WebRequest {
        try AESHTTPSClient.secureRequest(params: try JSONValues.encode(.dict(params)), token: token, key: key)
    }
    func parseSecure(_ response: WebResponse, key: Data) throws -> PythonValue {
        try JSONValues.decode(try AESHTTPSClient.parseSecure(response, key: key))
    }
    func makeServer(users: [String: String], mode: KeyDerivationMode, encryptionKey: String) throws -> @Sendable (WebRequest) throws -> WebResponse {
        let server = AESHTTPSServer(config: AESHTTPSServerConfig(users: users, keyMode: mode, encryptionKey: encryptionKey))
        return { server.handle($0) }
    }
}

struct PythonAESHTTPS: AESHTTPSClientRole, AESHTTPSServerRole {
    let name = "python"
    let peer: PythonPeer

    func loginRequest(username: String, password: String) throws -> WebRequest {
        try Self.request(peer.handle("aes-https.client.login_request", ["username": .string(username), "password": .string(password)]))
    }
    func parseLogin(_ response: WebResponse, mode: KeyDerivationMode) throws -> (token: String, key: Data) {
        let reply = try peer.handle("aes-https.client.parse_login", ["response": Self.value(response), "key_mode": .string(mode.rawValue)])
        guard let token = reply["token"]?.stringValue, let key = reply["key"]?.bytesValue else {
            throw PeerFailure(.internal, "parse_login returned \(reply)")
        }
        return (token, key)
    }
    func secureRequest(params: [String: PythonValue], token: String, key: Data) throws -> WebRequest {
        try Self.request(peer.handle("aes-https.client.secure_request", ["token": .string(token), "key": .bytes(key), "params": .dict(params)]))
    }
    func parseSecure(_ response: WebResponse, key: Data) throws -> PythonValue {
        try peer.handle("aes-https.client.parse_secure", ["response": Self.value(response), "key": .bytes(key)])
    }
    func makeServer(users: [String: String], mode: KeyDerivationMode, encryptionKey: String) throws -> @Sendable (WebRequest) throws -> WebResponse {
        let config: [String: PythonValue] = ["users": .dict(users.mapValues(PythonValue.string)), "key_mode": .string(mode.rawValue),
                                             "encryption_key": .string(encryptionKey)]
        let reply = try peer.handle("session.open", ["role": "aes-https.server", "config": .dict(config)])
        guard let session = reply["session"]?.intValue else { throw PeerFailure(.internal, "session.open returned \(reply)") }
        let peer = self.peer
        return { request in
            let answer = try peer.handle("session.request", ["session": .int(session), "request": Self.value(request)])
            guard let status = answer["status"]?.intValue, let body = answer["body"]?.bytesValue else {
                throw PeerFailure(.internal, "session.request returned \(answer)")
            }
            var headers: [String: String] = [:]
            if case let .dict(fields)? = answer["headers"] { headers = fields.compactMapValues(\.stringValue) }
            return WebResponse(status: status, headers: headers, body: body)
        }
    }

    static func value(_ request: WebRequest) -> PythonValue {
        ["method": .string(request.method), "path": .string(request.path),
         "headers": .dict(request.headers.mapValues(PythonValue.string)), "body": .bytes(request.body)]
    }
    static func value(_ response: WebResponse) -> PythonValue {
        ["status": .int(response.status), "headers": .dict(response.headers.mapValues(PythonValue.string)), "body": .bytes(response.body)]
    }
    static func request(_ value: PythonValue) throws -> WebRequest {
        guard let method = value["method"]?.stringValue, let path = value["path"]?.stringValue, let body = value["body"]?.bytesValue else {
            throw PeerFailure(.internal, "pythonref built no request: \(value)")
        }
        var headers: [String: String] = [:]
        if case let .dict(fields)? = value["headers"] { headers = fields.compactMapValues(\.stringValue) }
        return WebRequest(method: method, path: path, headers: headers, body: body)
    }
}

/// JSON ⇄ `PythonValue`, so both implementations' JSON can be compared as values, not bytes.
enum JSONValues {
    static func encode(_ value: PythonValue) throws -> Data {
        try JSONSerialization.data(withJSONObject: any(value), options: [.sortedKeys])
    }

    static func decode(_ data: Data) throws -> PythonValue {
        value(try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }

    private static func any(_ value: PythonValue) -> Any {
        switch value {
        case .none: return NSNull()
        case let .bool(flag): return flag
        case let .int(number): return number
        case let .float(number): return number
        case let .bytes(data): return data.base64EncodedString()
        case let .string(text): return text
        case let .list(items): return items.map(any)
        case let .dict(fields): return fields.mapValues(any)
        }
    }

    private static func value(_ object: Any) -> PythonValue {
        switch object {
        case is NSNull: return .none
        case let number as NSNumber:
            // Foundation boxes JSON true/false as a boolean NSNumber (objCType "c"), ints as "i"/"q".
            switch String(cString: number.objCType) {
            case "c", "B": return .bool(number.boolValue)
            case "d", "f": return .float(number.doubleValue)
            default: return .int(number.intValue)
            }
        case let text as String: return .string(text)
        case let items as [Any]: return .list(items.map(value))
        case let fields as [String: Any]: return .dict(fields.mapValues(value))
        default: return .string("\(object)")
        }
    }
}
