import Foundation
import WireCrypto

/// One implementation under test: the Swift side (WireCrypto), the Python reference (PythonRef
/// through the embedded interpreter), or a variant a test plants. Every check talks to peers only
/// through this protocol, so swapping one in changes nothing else.
///
/// Keys cross as encoded bytes (PEM or DER), the way they cross the wire between phone and Pi.
/// Failures are thrown as `PeerFailure`, already mapped to the shared kinds of `FailureKind`.
public protocol CryptoPeer: Sendable {
    /// Short lowercase name used in testsuite and class names: "swift", "python".
    var name: String { get }

    func generateRSAKey(bits: Int) throws -> GeneratedRSAKey
    func publicKeyInfo(_ key: Data) throws -> RSAKeyInfo
    func privateKeyInfo(_ key: Data, passphrase: Data?) throws -> RSAKeyInfo
    func exportPublicKey(_ key: Data, format: RSAPublicKeyFormat) throws -> Data
    func exportPrivateKey(_ key: Data, format: RSAPrivateKeyFormat, exportPassphrase: Data?) throws -> Data
    func rsaEncrypt(publicKey: Data, padding: RSAEncryptionPadding, plaintext: Data) throws -> Data
    func rsaDecrypt(privateKey: Data, passphrase: Data?, padding: RSAEncryptionPadding, ciphertext: Data) throws -> Data

    func cbcEncrypt(key: Data, iv: Data, plaintext: Data) throws -> Data
    func cbcDecrypt(key: Data, iv: Data, ciphertext: Data) throws -> Data
    /// The aes-https body `{"data","iv"}` as UTF-8 JSON; a fresh IV unless one is given.
    func sealEnvelope(key: Data, plaintext: Data, iv: Data?) throws -> Data
    func openEnvelope(key: Data, envelope: Data) throws -> Data
    func deriveKey(mode: KeyDerivationMode, encryptionKey: String) throws -> Data

    /// CryptoKit combined representation: nonce (12) ‖ ciphertext ‖ tag (16).
    func aeadSeal(_ algorithm: AEADAlgorithm, key: Data, plaintext: Data, nonce: Data?, aad: Data?) throws -> Data
    func aeadOpen(_ algorithm: AEADAlgorithm, key: Data, combined: Data, aad: Data?) throws -> Data
    /// CryptoKit's separate parts (`seal(_:using:nonce:authenticating:)` read as ciphertext and
    /// tag, `SealedBox(nonce:ciphertext:tag:)`): what `combined` cannot carry, an AES-GCM nonce
    /// longer than 12 bytes. Nonces under 12 bytes and tags other than 16 are `BadLength`, as in
    /// CryptoKit; a nonce an implementation cannot take is `Unsupported`.
    func aeadSealParts(_ algorithm: AEADAlgorithm, key: Data, nonce: Data, plaintext: Data, aad: Data?) throws -> AEADParts
    func aeadOpenParts(_ algorithm: AEADAlgorithm, key: Data, nonce: Data, parts: AEADParts, aad: Data?) throws -> Data
}

/// A sealed box's ciphertext and tag, apart from its nonce.
public struct AEADParts: Sendable, Equatable {
    public var ciphertext: Data
    public var tag: Data
    /// Zero-based copies: a sealed box's parts are slices of its combined buffer (as in
    /// swift-crypto), whose indices start where they sit in it; callers here index from 0.
    public init(ciphertext: Data, tag: Data) { self.ciphertext = Data([UInt8](ciphertext)); self.tag = Data([UInt8](tag)) }
}

/// A fresh key pair as its generator exports it.
public struct GeneratedRSAKey: Sendable, Equatable {
    /// PKCS#8 `BEGIN PRIVATE KEY` PEM.
    public var privateKeyPEM: Data
    /// SPKI `BEGIN PUBLIC KEY` PEM in the iOS layout.
    public var publicKeyPEM: Data
    public init(privateKeyPEM: Data, publicKeyPEM: Data) {
        self.privateKeyPEM = privateKeyPEM; self.publicKeyPEM = publicKeyPEM
    }
}

/// The failure classes both implementations share. Two peers "agree" on a rejection when they
/// report the same kind; the mapping from each implementation's own errors lives in
/// `ErrorEquivalence.swift`, in one place.
public enum FailureKind: String, Sendable, CaseIterable {
    case badInput = "BadInput"
    case badKey = "BadKey"
    case tooLong = "TooLong"
    case decryptFailed = "DecryptFailed"
    case badLength = "BadLength"
    case badPadding = "BadPadding"
    case authFailed = "AuthFailed"
    case keyDerivation = "KeyDerivation"
    case badEnvelope = "BadEnvelope"
    case unsupported = "Unsupported"
    case unknownOp = "UnknownOp"
    case `internal` = "Internal"
}

/// A peer's refusal, as data.
public struct PeerFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public var kind: FailureKind
    public var detail: String
    public init(_ kind: FailureKind, _ detail: String) { self.kind = kind; self.detail = detail }
    public var description: String { "\(kind.rawValue): \(detail)" }
}

/// A peer that is another peer with a few calls changed (planted flaws in tests and `--plant`): it
/// states only what it changes; every other call goes to `real` unchanged.
public protocol DelegatingPeer: CryptoPeer {
    var real: CryptoPeer { get }
}

extension DelegatingPeer {
    public var name: String { real.name }
    public func generateRSAKey(bits: Int) throws -> GeneratedRSAKey { try real.generateRSAKey(bits: bits) }
    public func publicKeyInfo(_ key: Data) throws -> RSAKeyInfo { try real.publicKeyInfo(key) }
    public func privateKeyInfo(_ key: Data, passphrase: Data?) throws -> RSAKeyInfo { try real.privateKeyInfo(key, passphrase: passphrase) }
    public func exportPublicKey(_ key: Data, format: RSAPublicKeyFormat) throws -> Data { try real.exportPublicKey(key, format: format) }
    public func exportPrivateKey(_ key: Data, format: RSAPrivateKeyFormat, exportPassphrase: Data?) throws -> Data {
        try real.exportPrivateKey(key, format: format, exportPassphrase: exportPassphrase)
    }
    public func rsaEncrypt(publicKey: Data, padding: RSAEncryptionPadding, plaintext: Data) throws -> Data {
        try real.rsaEncrypt(publicKey: publicKey, padding: padding, plaintext: plaintext)
    }
    public func rsaDecrypt(privateKey: Data, passphrase: Data?, padding: RSAEncryptionPadding, ciphertext: Data) throws -> Data {
        try real.rsaDecrypt(privateKey: privateKey, passphrase: passphrase, padding: padding, ciphertext: ciphertext)
    }
    public func cbcEncrypt(key: Data, iv: Data, plaintext: Data) throws -> Data { try real.cbcEncrypt(key: key, iv: iv, plaintext: plaintext) }
    public func cbcDecrypt(key: Data, iv: Data, ciphertext: Data) throws -> Data { try real.cbcDecrypt(key: key, iv: iv, ciphertext: ciphertext) }
    public func sealEnvelope(key: Data, plaintext: Data, iv: Data?) throws -> Data { try real.sealEnvelope(key: key, plaintext: plaintext, iv: iv) }
    public func openEnvelope(key: Data, envelope: Data) throws -> Data { try real.openEnvelope(key: key, envelope: envelope) }
    public func deriveKey(mode: KeyDerivationMode, encryptionKey: String) throws -> Data { try real.deriveKey(mode: mode, encryptionKey: encryptionKey) }
    public func aeadSeal(_ algorithm: AEADAlgorithm, key: Data, plaintext: Data, nonce: Data?, aad: Data?) throws -> Data {
        try real.aeadSeal(algorithm, key: key, plaintext: plaintext, nonce: nonce, aad: aad)
    }
    public func aeadOpen(_ algorithm: AEADAlgorithm, key: Data, combined: Data, aad: Data?) throws -> Data {
        try real.aeadOpen(algorithm, key: key, combined: combined, aad: aad)
    }
    public func aeadSealParts(_ algorithm: AEADAlgorithm, key: Data, nonce: Data, plaintext: Data, aad: Data?) throws -> AEADParts {
        try real.aeadSealParts(algorithm, key: key, nonce: nonce, plaintext: plaintext, aad: aad)
    }
    public func aeadOpenParts(_ algorithm: AEADAlgorithm, key: Data, nonce: Data, parts: AEADParts, aad: Data?) throws -> Data {
        try real.aeadOpenParts(algorithm, key: key, nonce: nonce, parts: parts, aad: aad)
    }
}
