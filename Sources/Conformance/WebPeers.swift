import Foundation
import PythonBridge
import WireCrypto
import WireProtocol
import StrictFormats

/// The aes-https client logic of one implementation: requests built and answers parsed.
/// Params and echoes are JSON objects, carried as `PythonValue` dictionaries.
public protocol AESHTTPSClientRole: Sendable {
    var name: String { get }
    func loginRequest(username: String, password: String) throws -> WebRequest
    func parseLogin(_ response: WebResponse, mode: KeyDerivationMode) throws -> (token: String, key: Data)
    func secureRequest(params: [String: PythonValue], token: String, key: Data) throws -> WebRequest
    func parseSecure(_ response: WebResponse, key: Data) throws -> PythonValue
}

/// The aes-https server logic of one implementation.
public protocol AESHTTPSServerRole: Sendable {
    var name: String { get }
    func makeServer(users: [String: String], mode: KeyDerivationMode, encryptionKey: String) throws -> @Sendable (WebRequest) throws -> WebResponse
}

public struct SwiftAESHTTPS: AESHTTPSClientRole, AESHTTPSServerRole {
    public let name = "swift"
    public init() {}

    public func loginRequest(username: String, password: String) throws -> WebRequest {
        AESHTTPSClient.loginRequest(username: username, password: password)
    }
    public func parseLogin(_ response: WebResponse, mode: KeyDerivationMode) throws -> (token: String, key: Data) {
        try AESHTTPSClient.parseLogin(response, mode: mode)
    }
    public func secureRequest(params: [String: PythonValue], token: String, key: Data) throws -> WebRequest {
        try AESHTTPSClient.secureRequest(params: try JSONValues.encode(.dict(params)), token: token, key: key)
    }
    public func parseSecure(_ response: WebResponse, key: Data) throws -> PythonValue {
        try JSONValues.decode(try AESHTTPSClient.parseSecure(response, key: key))
    }
    public func makeServer(users: [String: String], mode: KeyDerivationMode, encryptionKey: String) throws -> @Sendable (WebRequest) throws -> WebResponse {
        let server = AESHTTPSServer(config: AESHTTPSServerConfig(users: users, keyMode: mode, encryptionKey: encryptionKey))
        return { server.handle($0) }
    }
}

public struct PythonAESHTTPS: AESHTTPSClientRole, AESHTTPSServerRole {
    public let name = "python"
    public let peer: PythonPeer
    public init(peer: PythonPeer) { self.peer = peer }

    public func loginRequest(username: String, password: String) throws -> WebRequest {
        try Self.request(peer.handle("aes-https.client.login_request", ["username": .string(username), "password": .string(password)]))
    }
    public func parseLogin(_ response: WebResponse, mode: KeyDerivationMode) throws -> (token: String, key: Data) {
        let reply = try peer.handle("aes-https.client.parse_login", ["response": Self.value(response), "key_mode": .string(mode.rawValue)])
        guard let token = reply["token"]?.stringValue, let key = reply["key"]?.bytesValue else {
            throw PeerFailure(.internal, "parse_login returned \(reply)")
        }
        return (token, key)
    }
    public func secureRequest(params: [String: PythonValue], token: String, key: Data) throws -> WebRequest {
        try Self.request(peer.handle("aes-https.client.secure_request", ["token": .string(token), "key": .bytes(key), "params": .dict(params)]))
    }
    public func parseSecure(_ response: WebResponse, key: Data) throws -> PythonValue {
        try peer.handle("aes-https.client.parse_secure", ["response": Self.value(response), "key": .bytes(key)])
    }
    public func makeServer(users: [String: String], mode: KeyDerivationMode, encryptionKey: String) throws -> @Sendable (WebRequest) throws -> WebResponse {
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

    public static func value(_ request: WebRequest) -> PythonValue {
        ["method": .string(request.method), "path": .string(request.path),
         "headers": .dict(request.headers.mapValues(PythonValue.string)), "body": .bytes(request.body)]
    }
    public static func value(_ response: WebResponse) -> PythonValue {
        ["status": .int(response.status), "headers": .dict(response.headers.mapValues(PythonValue.string)), "body": .bytes(response.body)]
    }
    public static func request(_ value: PythonValue) throws -> WebRequest {
        guard let method = value["method"]?.stringValue, let path = value["path"]?.stringValue, let body = value["body"]?.bytesValue else {
            throw PeerFailure(.internal, "pythonref built no request: \(value)")
        }
        var headers: [String: String] = [:]
        if case let .dict(fields)? = value["headers"] { headers = fields.compactMapValues(\.stringValue) }
        return WebRequest(method: method, path: path, headers: headers, body: body)
    }
}
