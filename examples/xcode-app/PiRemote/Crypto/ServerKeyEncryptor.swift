import Foundation
import Security

/// Encrypts to the Raspberry Pi's RSA public key, which it hands out as PEM (`openssl rsa -pubout`).
final class ServerKeyEncryptor {
    enum EncryptorError: Error { case badKey, encryptionFailed(String) }

    /// The Pi's key shipped in the app bundle (PiRemote/Resources/pi_public.pem).
    static func bundledServerKeyPEM() -> String? {
        guard let url = Bundle(for: ServerKeyEncryptor.self).url(forResource: "pi_public", withExtension: "pem") else { return nil }
        return try? String(contentsOf: url, encoding: .utf8)
    }

    static func publicKey(fromPEM pem: String) throws -> SecKey {
        let base64 = pem.replacingOccurrences(of: "-----BEGIN PUBLIC KEY-----", with: "")
            .replacingOccurrences(of: "-----END PUBLIC KEY-----", with: "")
            .components(separatedBy: .whitespacesAndNewlines).joined()
        guard let data = Data(base64Encoded: base64) else { throw EncryptorError.badKey }
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
            kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
        ]
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateWithData(data as CFData, attributes as CFDictionary, &error) else { throw EncryptorError.badKey }
        return key
    }

    static func encrypt(_ message: String, publicKeyPEM: String) throws -> String {
        let key = try publicKey(fromPEM: publicKeyPEM)
        var error: Unmanaged<CFError>?
        guard let encrypted = SecKeyCreateEncryptedData(key, .rsaEncryptionOAEPSHA256, Data(message.utf8) as CFData, &error) as Data? else {
            throw EncryptorError.encryptionFailed("\(String(describing: error?.takeRetainedValue()))")
        }
        return encrypted.base64EncodedString()
    }
}
