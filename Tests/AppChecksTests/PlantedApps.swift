// Apps written for these tests against Apple's API (crosscheck's CryptoKit, Security and
// CommonCrypto), as a team would: one done by the book, and planted flaws, each of which must
// fail the checks named for it and nothing else. Deliberately wrong where marked PLANTED.
import Foundation
import CryptoKit
import Security
import CommonCrypto
import AppUnderTest

/// By the book: fresh nonces, RSA-OAEP-SHA256 to a key pair it makes, keys in the keychain,
/// trust anchored on the pin with the SSL policy for the host.
final class TextbookApp: AppUnderTest, AEADSealing, FileSealing, RSAOwnKeyEncryption, SymmetricKeyStorage, CertificatePinning {
    let identifier: String
    let summary = "tests: an app written by the book against CryptoKit and Security"
    let aeadAlgorithm = "aes-gcm"
    let fixedPlaintext: Data? = nil
    let rsaPadding = "oaep-sha256"
    let fileKey = SymmetricKey(size: .bits256)
    let keychain = InMemoryKeychain()

    init(identifier: String = "textbook") { self.identifier = identifier }

    func seal(_ plaintext: Data, key: Data) throws -> Data {
        guard let combined = try AES.GCM.seal(plaintext, using: SymmetricKey(data: key)).combined else { throw AppFailure("seal", "no combined form") }
        return combined
    }

    func open(_ combined: Data, key: Data) throws -> Data {
        try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: SymmetricKey(data: key))
    }

    func currentKey() throws -> Data { fileKey.withUnsafeBytes { Data($0) } }

    func sealFile(at source: URL, to destination: URL) throws {
        let sealed = try seal(try Data(contentsOf: source), key: try currentKey())
        try sealed.write(to: destination)
    }

    func openFile(at source: URL, to destination: URL) throws {
        try open(try Data(contentsOf: source), key: try currentKey()).write(to: destination)
    }

    func encryptWithNewKey(_ plaintext: Data) throws -> (ciphertext: Data, privateKeyPKCS1DER: Data) {
        try encrypt(plaintext, algorithm: .rsaEncryptionOAEPSHA256)
    }

    func encrypt(_ plaintext: Data, algorithm: SecKeyAlgorithm) throws -> (ciphertext: Data, privateKeyPKCS1DER: Data) {
        var error: Unmanaged<CFError>?
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048]
        guard let privateKey = SecKeyCreateRandomKey(attributes as CFDictionary, &error), let publicKey = SecKeyCopyPublicKey(privateKey) else {
            throw AppFailure("key", "\(String(describing: error?.takeRetainedValue()))")
        }
        guard let ciphertext = SecKeyCreateEncryptedData(publicKey, algorithm, plaintext as CFData, &error) as Data? else {
            throw AppFailure("encrypt", "\(String(describing: error?.takeRetainedValue()))")
        }
        guard let exported = SecKeyCopyExternalRepresentation(privateKey, &error) as Data? else {
            throw AppFailure("export", "\(String(describing: error?.takeRetainedValue()))")
        }
        return (ciphertext, exported)
    }

    func storeKey(_ key: Data, tag: String) throws {
        try InMemoryKeychain.withKeychain(keychain) {
            let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag]
            SecItemDelete(query as CFDictionary)
            var add = query
            add[kSecValueData as String] = key
            let status = SecItemAdd(add as CFDictionary, nil)
            guard status == errSecSuccess else { throw AppFailure("store", "SecItemAdd returned \(status)") }
        }
    }

    func readKey(tag: String) throws -> Data {
        try InMemoryKeychain.withKeychain(keychain) {
            let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnData as String: true]
            var item: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &item)
            guard status == errSecSuccess, let data = item as? Data else { throw AppFailure("read", "SecItemCopyMatching returned \(status)") }
            return data
        }
    }

    func evaluateServerTrust(chainDER: [Data], host: String, pinnedCertificateDER: Data) throws -> Bool {
        let chain = chainDER.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
        guard chain.count == chainDER.count, let pin = SecCertificateCreateWithData(nil, pinnedCertificateDER as CFData) else { return false }
        var trust: SecTrust?
        guard SecTrustCreateWithCertificates(chain as CFArray, SecPolicyCreateSSL(true, host as CFString), &trust) == errSecSuccess,
              let trust else { return false }
        SecTrustSetAnchorCertificates(trust, [pin] as CFArray)
        SecTrustSetAnchorCertificatesOnly(trust, true)
        return SecTrustEvaluateWithError(trust, nil)
    }
}

/// PLANTED: seals every box and file with one fixed nonce.
final class FixedNonceApp: AppUnderTest, AEADSealing, FileSealing {
    let identifier = "planted-fixed-nonce"
    let summary = "tests: AES.GCM with a constant nonce (PLANTED)"
    let aeadAlgorithm = "aes-gcm"
    let fixedPlaintext: Data? = nil
    let fileKey = SymmetricKey(size: .bits256)
    let nonce = try! AES.GCM.Nonce(data: Data(repeating: 7, count: 12))

    func seal(_ plaintext: Data, key: Data) throws -> Data {
        try AES.GCM.seal(plaintext, using: SymmetricKey(data: key), nonce: nonce).combined ?? Data()
    }
    func open(_ combined: Data, key: Data) throws -> Data {
        try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: SymmetricKey(data: key))
    }
    func currentKey() throws -> Data { fileKey.withUnsafeBytes { Data($0) } }
    func sealFile(at source: URL, to destination: URL) throws {
        try seal(try Data(contentsOf: source), key: try currentKey()).write(to: destination)
    }
    func openFile(at source: URL, to destination: URL) throws {
        try open(try Data(contentsOf: source), key: try currentKey()).write(to: destination)
    }
}

/// PLANTED: says OAEP-SHA256, encrypts with PKCS#1 v1.5.
final class PKCS1ClaimingOAEPApp: AppUnderTest, RSAOwnKeyEncryption {
    let identifier = "planted-pkcs1-as-oaep"
    let summary = "tests: claims RSA-OAEP-SHA256, uses PKCS#1 v1.5 (PLANTED)"
    let rsaPadding = "oaep-sha256"
    func encryptWithNewKey(_ plaintext: Data) throws -> (ciphertext: Data, privateKeyPKCS1DER: Data) {
        try TextbookApp().encrypt(plaintext, algorithm: .rsaEncryptionPKCS1)
    }
}

/// PLANTED: trusts any server (the pin is never looked at).
final class TrustsAnyServerApp: AppUnderTest, CertificatePinning {
    let identifier = "planted-trusts-any-server"
    let summary = "tests: a server-trust delegate that accepts everything (PLANTED)"
    func evaluateServerTrust(chainDER: [Data], host: String, pinnedCertificateDER: Data) throws -> Bool { true }
}

/// PLANTED: pins by comparing the leaf with the pin byte for byte, ignoring names and dates.
final class ComparesBytesOnlyApp: AppUnderTest, CertificatePinning {
    let identifier = "planted-compares-bytes-only"
    let summary = "tests: pinning by DER equality of the leaf, no trust evaluation (PLANTED)"
    func evaluateServerTrust(chainDER: [Data], host: String, pinnedCertificateDER: Data) throws -> Bool {
        chainDER.first == pinnedCertificateDER
    }
}

/// PLANTED: the seed 001 envelope, but every request under an all-zero IV.
final class ZeroIVEnvelopeApp: AppUnderTest, AESEnvelopeClient {
    let identifier = "planted-zero-iv"
    let summary = "tests: AES-128-CBC envelopes under a zero IV (PLANTED)"
    let keyDerivation = "utf8-zeropad16"

    func key(_ encryptionKey: String) throws -> [UInt8] {
        let bytes = [UInt8](encryptionKey.utf8)
        guard !bytes.isEmpty, bytes.count < 16 else { throw AppFailure("key", "not a key this app can use") }
        return bytes + [UInt8](repeating: 0, count: 16 - bytes.count)
    }

    func crypt(_ operation: Int, _ input: Data, key: [UInt8], iv: [UInt8]) throws -> Data {
        var output = [UInt8](repeating: 0, count: input.count + kCCBlockSizeAES128)
        var moved = 0
        let status = CCCrypt(CCOperation(operation), CCAlgorithm(kCCAlgorithmAES), CCOptions(kCCOptionPKCS7Padding), key, key.count, iv,
                             [UInt8](input), input.count, &output, output.count, &moved)
        guard status == kCCSuccess else { throw AppFailure("CCCrypt", "status \(status)") }
        return Data(output.prefix(moved))
    }

    func requestBody(parameters: [String: Any], encryptionKey: String) throws -> Data {
        let iv = [UInt8](repeating: 0, count: 16)
        let ciphertext = try crypt(kCCEncrypt, try JSONSerialization.data(withJSONObject: parameters), key: try key(encryptionKey), iv: iv)
        return try JSONSerialization.data(withJSONObject: ["data": ciphertext.base64EncodedString(), "iv": Data(iv).base64EncodedString()])
    }

    func responseObject(body: Data, encryptionKey: String) throws -> Any {
        guard let envelope = try JSONSerialization.jsonObject(with: body) as? [String: String], let data = envelope["data"].flatMap({ Data(base64Encoded: $0) }),
              let iv = envelope["iv"].flatMap({ Data(base64Encoded: $0) }) else { throw AppFailure("response", "not an envelope") }
        return try JSONSerialization.jsonObject(with: try crypt(kCCDecrypt, data, key: try key(encryptionKey), iv: [UInt8](iv)))
    }
}
