import Foundation
internal import COpenSSL

/// Hash functions used for OAEP (as the hash and as MGF1's hash), named as OpenSSL names them.
public enum Digest: String, CaseIterable, Sendable, Equatable {
    case sha1 = "SHA1"
    case sha224 = "SHA224"
    case sha256 = "SHA256"
    case sha384 = "SHA384"
    case sha512 = "SHA512"
    case sha512_224 = "SHA512-224"
    case sha512_256 = "SHA512-256"

    /// Output length in bytes (hLen in RFC 8017).
    public var byteCount: Int {
        switch self {
        case .sha1: return 20
        case .sha224, .sha512_224: return 28
        case .sha256, .sha512_256: return 32
        case .sha384: return 48
        case .sha512: return 64
        }
    }

    /// The digest of `data`.
    public func hash(_ data: Data) -> Data {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let status = data.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &output, &length, EVP_get_digestbyname(rawValue), nil)
        }
        // The default provider always has these digests; failing here means OpenSSL itself is broken.
        precondition(status == 1, "EVP_Digest(\(rawValue)) failed: \(OpenSSLError.drainQueue())")
        return Data(output.prefix(Int(length)))
    }

    /// Accepts OpenSSL's names and the spellings Wycheproof uses ("SHA-256", "SHA-512/224").
    public init?(name: String) {
        let normalized = name.uppercased().replacingOccurrences(of: "/", with: "-")
        switch normalized {
        case "SHA1", "SHA-1": self = .sha1
        case "SHA224", "SHA-224": self = .sha224
        case "SHA256", "SHA-256": self = .sha256
        case "SHA384", "SHA-384": self = .sha384
        case "SHA512", "SHA-512": self = .sha512
        case "SHA512-224", "SHA-512-224": self = .sha512_224
        case "SHA512-256", "SHA-512-256": self = .sha512_256
        default: return nil
        }
    }
}

/// Facts about the linked OpenSSL, for report properties.
public enum OpenSSLInfo {
    /// e.g. "OpenSSL 3.0.19 27 Jan 2026".
    public static var version: String { String(cString: OpenSSL_version(OPENSSL_VERSION)) }
}
