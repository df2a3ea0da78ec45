import Foundation
import StrictFormats

/// How the aes-https client turns the server's `encryptionKey` string into AES key bytes.
public enum KeyDerivationMode: String, Sendable, CaseIterable {
    /// The seed's CommonCrypto code: the string's UTF-8 bytes zero-padded to 16 (AES-128).
    /// A password, not a key; reported as a weakness. Strings of 16 UTF-8 bytes or more make
    /// `getCString(maxLength: 17)` into a 16-byte buffer fail, so they are an error here.
    case weakUTF8ZeroPad16 = "utf8-zeropad16"
    /// Standard base64 of 16, 24 or 32 random bytes (AES-128/192/256).
    case base64Raw = "base64-raw"

    public var isWeak: Bool { self == .weakUTF8ZeroPad16 }

    public func deriveKey(from encryptionKey: String) throws -> Data {
        switch self {
        case .weakUTF8ZeroPad16:
            let bytes = Data(encryptionKey.utf8)
            guard !bytes.isEmpty else {
                throw WireCryptoError.keyDerivation(mode: rawValue, reason: "the encryptionKey string is empty")
            }
            guard bytes.count < 16 else {
                throw WireCryptoError.keyDerivation(mode: rawValue, reason:
                    "the encryptionKey is \(bytes.count) UTF-8 bytes; CommonCrypto's getCString(maxLength: 17) into a 16-byte buffer fails for 16 or more, so the seed client would encrypt with a buffer that is not the key")
            }
            return bytes + Data(count: 16 - bytes.count)
        case .base64Raw:
            guard let bytes = StrictBase64.decode(encryptionKey), AESCBC.allowedKeySizes.contains(bytes.count) else {
                throw WireCryptoError.keyDerivation(mode: rawValue, reason:
                    "the encryptionKey is not standard base64 of 16, 24 or 32 bytes")
            }
            return bytes
        }
    }
}

/// The aes-https message body: `{"data": base64(AES-CBC(key, iv, plaintext)), "iv": base64(iv)}`.
public struct CBCEnvelope: Equatable, Sendable {
    public var ciphertext: Data
    public var iv: Data

    public init(ciphertext: Data, iv: Data) { self.ciphertext = ciphertext; self.iv = iv }

    /// Encrypts `plaintext` under `key` with `iv` (a fresh random one unless given).
    public static func seal(_ plaintext: Data, key: Data, iv: Data = AESCBC.randomIV()) throws -> CBCEnvelope {
        CBCEnvelope(ciphertext: try AESCBC.encrypt(plaintext, key: key, iv: iv), iv: iv)
    }

    public func open(key: Data) throws -> Data { try AESCBC.decrypt(ciphertext, key: key, iv: iv) }

    /// Compact UTF-8 JSON with `data` first, then `iv`, standard base64 with padding.
    public var jsonData: Data {
        // Base64 has no characters JSON needs to escape, so the object is written directly.
        Data("{\"data\":\"\(ciphertext.base64EncodedString())\",\"iv\":\"\(iv.base64EncodedString())\"}".utf8)
    }

    /// Parses a JSON object with string fields `data` and `iv` holding strict base64; other fields
    /// are ignored. Anything else is `.malformedEnvelope` with what was wrong.
    public init(json: Data) throws {
        guard let object = StrictJSON.object(json) else {
            throw WireCryptoError.malformedEnvelope(reason: "not JSON")
        }
        guard let fields = object as? [String: Any] else {
            throw WireCryptoError.malformedEnvelope(reason: "not a JSON object")
        }
        func base64Field(_ name: String) throws -> Data {
            guard let value = fields[name] else { throw WireCryptoError.malformedEnvelope(reason: "no \"\(name)\" field") }
            guard let text = value as? String else {
                throw WireCryptoError.malformedEnvelope(reason: "\"\(name)\" is not a string")
            }
            guard let bytes = StrictBase64.decode(text) else {
                throw WireCryptoError.malformedEnvelope(reason: "\"\(name)\" is not standard base64")
            }
            return bytes
        }
        self.init(ciphertext: try base64Field("data"), iv: try base64Field("iv"))
    }
}
