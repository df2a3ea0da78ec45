import Foundation
import PythonBridge
import WireCrypto
import WireProtocol
import StrictFormats

/// The client profiles a check can run: `reference` (crosscheck's hardened clients) or `seed-app`
/// (the seed apps' wire behaviours, docs/PROTOCOL.md "Client profiles").
public enum ClientProfile: String, Sendable, CaseIterable {
    case reference
    case seedApp = "seed-app"
}

/// Seed 000's app as an rsa-socket client (pi-to-phone only; it has no server).
public struct SeedAppSessions: SessionFactory {
    public let name = "seed-app"
    public init() {}

    public func rsaSocketServer(_ spec: RSASocketServerSpec) throws -> SessionMachine {
        throw PeerFailure(.unsupported, "the seed app is a client; it has no rsa-socket server")
    }

    /// The app as it is: only pi-to-phone, legacy framing, PKCS#1 v1.5; the spec's key is the app's.
    public func rsaSocketClient(_ spec: RSASocketClientSpec) throws -> SessionMachine {
        guard spec.direction == .piToPhone, spec.framing == .legacy else {
            throw PeerFailure(.unsupported, "the seed app speaks only pi-to-phone with legacy framing")
        }
        guard let pem = spec.privateKeyPEM else { throw PeerFailure(.badInput, "the seed app needs its key pair") }
        return SeedAppRSASocketClient(privateKey: try RSAPrivateKey(importing: pem))
    }
}

/// Seed 001's app as an aes-https client: login and secure-data as AFNetworking and its code do them.
public struct SeedAppAESHTTPS: AESHTTPSClientRole {
    public let name = "seed-app"
    public init() {}

    public func loginRequest(username: String, password: String) throws -> WebRequest {
        SeedAppAESHTTPSClient.loginRequest(username: username, password: password)
    }
    /// The app has no key modes: it always copies the key string with getCString.
    public func parseLogin(_ response: WebResponse, mode: KeyDerivationMode) throws -> (token: String, key: Data) {
        let login = try SeedAppAESHTTPSClient.parseLogin(response)
        return (login.token, try SeedAppAESHTTPSClient.key(from: login.encryptionKey))
    }
    public func secureRequest(params: [String: PythonValue], token: String, key: Data) throws -> WebRequest {
        try SeedAppAESHTTPSClient.secureRequest(params: try JSONValues.encode(.dict(params)), token: token, key: key)
    }
    public func parseSecure(_ response: WebResponse, key: Data) throws -> PythonValue {
        try JSONValues.decode(try SeedAppAESHTTPSClient.parseSecure(response, key: key))
    }
}
