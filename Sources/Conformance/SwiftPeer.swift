import Foundation
import WireCrypto

/// The Swift side under test: WireCrypto, the crypto the iOS client does.
public struct SwiftPeer: CryptoPeer {
    public let name = "swift"
    public init() {}

    public func generateRSAKey(bits: Int) throws -> GeneratedRSAKey {
        try mapped {
            let key = try RSAPrivateKey(bits: bits)
            return GeneratedRSAKey(privateKeyPEM: try key.exported(.pkcs8PEM), publicKeyPEM: try key.publicKey.exported(.spkiPEM))
        }
    }

    /// Like PythonRef's `rsa.public_info` (and `exportPublicKey` here): the public half of
    /// private-key bytes too. The wire import, which refuses private keys, is the machines' job.
    public func publicKeyInfo(_ key: Data) throws -> RSAKeyInfo {
        try mapped { try publicKey(from: key).info }
    }

    public func privateKeyInfo(_ key: Data, passphrase: Data?) throws -> RSAKeyInfo {
        try mapped { try RSAPrivateKey(importing: key, passphrase: passphrase).info }
    }

    public func exportPublicKey(_ key: Data, format: RSAPublicKeyFormat) throws -> Data {
        try mapped { try publicKey(from: key).exported(format) }
    }

    public func exportPrivateKey(_ key: Data, format: RSAPrivateKeyFormat, exportPassphrase: Data?) throws -> Data {
        try mapped { try RSAPrivateKey(importing: key).exported(format, passphrase: exportPassphrase) }
    }

    public func rsaEncrypt(publicKey key: Data, padding: RSAEncryptionPadding, plaintext: Data) throws -> Data {
        try mapped { try publicKey(from: key).encrypt(plaintext, padding: padding) }
    }

    public func rsaDecrypt(privateKey: Data, passphrase: Data?, padding: RSAEncryptionPadding, ciphertext: Data) throws -> Data {
        try mapped { try RSAPrivateKey(importing: privateKey, passphrase: passphrase).decrypt(ciphertext, padding: padding) }
    }

    public func cbcEncrypt(key: Data, iv: Data, plaintext: Data) throws -> Data {
        try mapped { try AESCBC.encrypt(plaintext, key: key, iv: iv) }
    }

    public func cbcDecrypt(key: Data, iv: Data, ciphertext: Data) throws -> Data {
        try mapped { try AESCBC.decrypt(ciphertext, key: key, iv: iv) }
    }

    public func sealEnvelope(key: Data, plaintext: Data, iv: Data?) throws -> Data {
        try mapped { try CBCEnvelope.seal(plaintext, key: key, iv: iv ?? AESCBC.randomIV()).jsonData }
    }

    public func openEnvelope(key: Data, envelope: Data) throws -> Data {
        try mapped { try CBCEnvelope(json: envelope).open(key: key) }
    }

    public func deriveKey(mode: KeyDerivationMode, encryptionKey: String) throws -> Data {
        try mapped { try mode.deriveKey(from: encryptionKey) }
    }

    public func aeadSeal(_ algorithm: AEADAlgorithm, key: Data, plaintext: Data, nonce: Data?, aad: Data?) throws -> Data {
        try mapped {
            let key = SymmetricKey(data: key)
            switch algorithm {
            case .aesGCM:
                let box = try AES.GCM.seal(plaintext, using: key, nonce: try nonce.map { try AES.GCM.Nonce(data: $0) },
                                           authenticating: aad ?? Data())
                guard let combined = box.combined else {
                    throw PeerFailure(.badLength, "an AES-GCM nonce other than 12 bytes has no combined form")
                }
                return combined
            case .chaChaPoly:
                return try ChaChaPoly.seal(plaintext, using: key, nonce: try nonce.map { try ChaChaPoly.Nonce(data: $0) },
                                           authenticating: aad ?? Data()).combined
            }
        }
    }

    public func aeadOpen(_ algorithm: AEADAlgorithm, key: Data, combined: Data, aad: Data?) throws -> Data {
        try mapped {
            let key = SymmetricKey(data: key)
            switch algorithm {
            case .aesGCM: return try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: key, authenticating: aad ?? Data())
            case .chaChaPoly: return try ChaChaPoly.open(ChaChaPoly.SealedBox(combined: combined), using: key, authenticating: aad ?? Data())
            }
        }
    }

    public func aeadSealParts(_ algorithm: AEADAlgorithm, key: Data, nonce: Data, plaintext: Data, aad: Data?) throws -> AEADParts {
        try mapped {
            let key = SymmetricKey(data: key)
            switch algorithm {
            case .aesGCM:
                let box = try AES.GCM.seal(plaintext, using: key, nonce: try AES.GCM.Nonce(data: nonce), authenticating: aad ?? Data())
                return AEADParts(ciphertext: box.ciphertext, tag: box.tag)
            case .chaChaPoly:
                let box = try ChaChaPoly.seal(plaintext, using: key, nonce: try ChaChaPoly.Nonce(data: nonce), authenticating: aad ?? Data())
                return AEADParts(ciphertext: box.ciphertext, tag: box.tag)
            }
        }
    }

    public func aeadOpenParts(_ algorithm: AEADAlgorithm, key: Data, nonce: Data, parts: AEADParts, aad: Data?) throws -> Data {
        try mapped {
            let key = SymmetricKey(data: key)
            switch algorithm {
            case .aesGCM:
                let box = try AES.GCM.SealedBox(nonce: try AES.GCM.Nonce(data: nonce), ciphertext: parts.ciphertext, tag: parts.tag)
                return try AES.GCM.open(box, using: key, authenticating: aad ?? Data())
            case .chaChaPoly:
                let box = try ChaChaPoly.SealedBox(nonce: try ChaChaPoly.Nonce(data: nonce), ciphertext: parts.ciphertext, tag: parts.tag)
                return try ChaChaPoly.open(box, using: key, authenticating: aad ?? Data())
            }
        }
    }

    /// A public key from public-key bytes, or the public half of private-key bytes (as PythonRef does).
    private func publicKey(from bytes: Data) throws -> RSAPublicKey {
        do { return try RSAPublicKey(importing: bytes) } catch {
            guard let key = try? RSAPrivateKey(importing: bytes) else { throw error }
            return key.publicKey
        }
    }

    private func mapped<R>(_ body: () throws -> R) throws -> R {
        do { return try body() } catch { throw ErrorEquivalence.failure(from: error) }
    }
}
