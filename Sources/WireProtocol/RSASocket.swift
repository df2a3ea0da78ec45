import Foundation
import WireCrypto

/// The rsa-socket profile: shared names and message bytes (docs/PROTOCOL.md).
public enum RSASocket {
    public enum Direction: String, Sendable, CaseIterable {
        /// "Encrypt in Python, decrypt in Swift": the client sends its key, the server a ciphertext.
        case piToPhone = "pi-to-phone"
        /// "Encrypt in Swift, decrypt in Python": the server sends its key, the client a ciphertext.
        case phoneToPi = "phone-to-pi"
    }

    public static let hello = "Client: OK"
    public static let keyPrefix = "public_key="
    public static let encryptedPrefix = "encrypted_message="
    public static let ok = "Server: OK"
    public static let error = "Server: ERROR"
    public static let quit = "Quit"
    public static let stopped = "Server stopped"
    public static let defaultMessage = Data("Secret message from RPi server".utf8)

    /// `Server: OK sha256=<hex>` proof for the digest extension.
    static func okWithDigest(_ plaintext: Data) -> String { ok + " sha256=" + Digest.sha256.hash(plaintext).hexString }
}

/// What a client has read since it sent `Quit`, watched for `Server stopped` anywhere in it
/// (however TCP split the bytes): the seed app's reading, and the app-under-test machine's.
public struct StoppedWatch: Sendable {
    private var received = Data()
    public init() {}
    /// Adds `data`; true once `Server stopped` has arrived.
    public mutating func arrived(_ data: Data) -> Bool {
        received += data
        return String(decoding: received, as: UTF8.self).contains(RSASocket.stopped)
    }
}

/// How a client writes its public key after `public_key=`.
public enum ClientKeyFormat: String, Sendable, CaseIterable {
    /// The iOS client: SPKI PEM, 64-column lines, no newline after the END line.
    case spkiPEM = "spki-pem"
    case spkiPEMNewline = "spki-pem-newline"
    case spkiPEMCRLF = "spki-pem-crlf"
    case pkcs1PEM = "pkcs1-pem"

    func encode(_ key: RSAPublicKey) throws -> Data {
        switch self {
        case .spkiPEM: return try key.exported(.spkiPEM)
        case .spkiPEMNewline: return try key.exported(.spkiPEM) + Data("\n".utf8)
        case .spkiPEMCRLF: return Data(String(decoding: try key.exported(.spkiPEM), as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n").utf8)
        case .pkcs1PEM: return try key.exported(.pkcs1PEM)
        }
    }
}

/// Deliberately broken servers, for tests that prove the harness catches them. Never for real use.
public enum RSASocketServerQuirk: String, Sendable, CaseIterable {
    /// The tutorial server's `data.replace("\r\n", "")` on every received chunk, ciphertext included.
    case _TUTORIAL_STRIP_CRLF = "tutorial-strip-crlf"
    /// Pads with PKCS#1 v1.5 whatever padding was configured.
    case _PKCS1_DESPITE_OAEP = "pkcs1-despite-oaep"
}

/// Deliberately broken clients, for tests. Never for real use.
public enum RSASocketClientQuirk: String, Sendable, CaseIterable {
    /// Sends its SPKI key under a `BEGIN RSA PUBLIC KEY` header (the body stays SPKI).
    case _WRONG_PEM_HEADER = "wrong-pem-header"
}
