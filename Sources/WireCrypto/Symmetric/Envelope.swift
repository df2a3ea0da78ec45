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

extension CBCEnvelope {
    /// Issue 33: why a PKCS#7 unpadding failed, when the plaintext says: the envelope decrypted
    /// without removing any padding, and its end read. A plaintext that ends in spaces or zero
    /// bytes, or in text with no padding at all, is a server that pads another way (the right key,
    /// the wrong padding); nil when the end looks like noise (a wrong key or IV, a tampered ciphertext).
    public func paddingDiagnosis(key: Data) -> String? {
        guard !ciphertext.isEmpty, ciphertext.count % 16 == 0, iv.count == 16,
              let context = try? key.withUnsafeBytes({ try AESCipherContext(mode: .cbc, encrypt: false, key: $0, iv: [UInt8](iv)) }) else { return nil }
        var plain = [UInt8](repeating: 0, count: ciphertext.count)
        guard (try? ciphertext.withUnsafeBytes { input in try plain.withUnsafeMutableBytes { try context.update(input, into: $0.baseAddress!) } }) != nil
        else { return nil }
        let pkcs7 = "PKCS#7 pads with n bytes of value n (Python: padding.PKCS7(128).padder())"
        for (byte, name) in [(UInt8(0x20), "space (0x20)"), (UInt8(0x00), "zero (0x00)")] {
            let run = plain.reversed().prefix { $0 == byte }.count
            guard run > 0, run <= 16 else { continue }
            let text = plain.dropLast(run)
            guard !text.isEmpty, String(bytes: text, encoding: .utf8) != nil else { continue }
            let ending = byte == 0x20 ? "spaces" : "zero bytes"
            return "the right key, the wrong padding: the plaintext decrypts to text followed by \(run) \(name) byte\(run == 1 ? "" : "s"), so it was padded with \(ending), not PKCS#7; \(pkcs7)"
        }
        if let last = plain.last, last > 16 || last == 0, let text = String(bytes: plain, encoding: .utf8),
           text.unicodeScalars.allSatisfy({ $0.value >= 0x20 || $0 == "\n" || $0 == "\t" }) {
            return "the right key, no padding: the plaintext decrypts to text that fills its last block without any padding; \(pkcs7)"
        }
        return nil
    }
}
