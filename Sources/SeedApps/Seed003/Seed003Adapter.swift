// The adapter for seed 003 (not seed code): the snippets' store/read, seal/open and RSA steps.
import Foundation
import Security
import CryptoKit
import AppUnderTest

public final class Seed003Adapter: AppUnderTest, SymmetricKeyStorage, AEADSealing, RSAOwnKeyEncryption {
    public let identifier = "seed-003"
    public let summary = "seed 003: CryptoKit AES.GCM, a SymmetricKey kept in the keychain as kSecValueData, RSA-OAEP-SHA256 with SecKeyCreateRandomKey"
    public let aeadAlgorithm = "aes-gcm"
    public let rsaPadding = "oaep-sha256"
    /// The app seals only this (its `plainText`).
    public let fixedPlaintext: Data? = "this is our golden secret. Encrypt it!".data(using: .utf8)!

    let app = Seed003App()
    let keychain = InMemoryKeychain()

    public init() {}

    public func storeKey(_ key: Data, tag: String) throws {
        try InMemoryKeychain.withKeychain(keychain) { try app.store(key: SymmetricKey(data: key), withTag: tag) }
    }

    public func readKey(tag: String) throws -> Data {
        try InMemoryKeychain.withKeychain(keychain) { try app.read(tag: tag).withUnsafeBytes { Data($0) } }
    }

    public func seal(_ plaintext: Data, key: Data) throws -> Data {
        guard plaintext == fixedPlaintext else {
            throw AppFailure("seal", "the app seals only its own plaintext \"this is our golden secret. Encrypt it!\"")
        }
        return try app.sealGoldenSecret(secretKey: SymmetricKey(data: key)).cipherText
    }

    public func open(_ combined: Data, key: Data) throws -> Data {
        try app.open(cipherText: combined, secretKey: SymmetricKey(data: key))
    }

    public func encryptWithNewKey(_ plaintext: Data) throws -> (ciphertext: Data, privateKeyPKCS1DER: Data) {
        try InMemoryKeychain.withKeychain(keychain) {
            let (privateKey, cipher) = try app.encryptWithNewRSAKey(plainText: plaintext)
            guard let cipher else { throw AppFailure("encrypt", "SecKeyCreateEncryptedData returned nil") }
            var error: Unmanaged<CFError>?
            guard let exported = SecKeyCopyExternalRepresentation(privateKey, &error) as Data? else {
                throw AppFailure("export", "\(String(describing: error?.takeRetainedValue()))")
            }
            return (cipher, exported)
        }
    }

    /// The app's certificate listing (showCertificateInfo), from its keychain.
    public func certificateInfo() -> String {
        InMemoryKeychain.withKeychain(keychain) { app.showCertificateInfo() }
    }

    /// Adds a certificate to the app's keychain, as another part of an app would.
    public func addCertificate(_ der: Data) throws {
        guard let certificate = SecCertificateCreateWithData(nil, der as CFData) else { throw AppFailure("certificate", "not DER X.509") }
        let status = InMemoryKeychain.withKeychain(keychain) { SecItemAdd([kSecValueRef as String: certificate] as CFDictionary, nil) }
        guard status == errSecSuccess else { throw AppFailure("certificate", "SecItemAdd returned \(status)") }
    }
}
