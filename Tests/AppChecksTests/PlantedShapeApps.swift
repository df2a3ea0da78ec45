// Apps of the shapes real app code has (a key kept inside, a signer, a key agreement with the Pi;
// the password stores are in Tests/PlantedStorageApps, each in a container of its own), written for these tests against Apple's API (crosscheck's CryptoKit,
// Security and CommonCrypto) as a team would: one by the book per shape, and planted flaws, each
// of which must fail the checks named for it and nothing else. Deliberately wrong where marked PLANTED.
import Foundation
import CryptoKit
import Security
import CommonCrypto
import AppUnderTest
import TestSupport

// MARK: a key kept inside

/// By the book: one key made once and kept, AES.GCM combined boxes, as base64 text (as such
/// helpers return strings).
final class KeptKeySealer: AppUnderTest, SelfContainedSealing {
    let identifier = "textbook-kept-key"
    let summary = "tests: seals with one key it keeps (by the book)"
    let boxAlgorithm = "aes-gcm"
    private let key = SymmetricKey(size: .bits256)

    func seal(_ plaintext: Data) throws -> Data {
        guard let combined = try AES.GCM.seal(plaintext, using: key).combined else { throw AppFailure("seal", "no combined box") }
        return Data(combined.base64EncodedString().utf8)
    }

    func open(_ box: Data) throws -> Data {
        guard let combined = Data(base64Encoded: box) else { throw AppFailure("open", "not base64") }
        return try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: key)
    }
}

/// PLANTED: a key made afresh inside every call, sealing and opening alike.
final class KeyPerCallSealer: AppUnderTest, SelfContainedSealing {
    let identifier = "planted-key-per-call"
    let summary = "tests: SymmetricKey(size: .bits256) inside seal and open (PLANTED)"
    let boxAlgorithm = "aes-gcm"

    func seal(_ plaintext: Data) throws -> Data {
        try AES.GCM.seal(plaintext, using: SymmetricKey(size: .bits256)).combined ?? Data()
    }

    func open(_ box: Data) throws -> Data {
        try AES.GCM.open(AES.GCM.SealedBox(combined: box), using: SymmetricKey(size: .bits256))
    }
}

/// PLANTED: a fresh key for every seal, kept only until the next one.
final class KeyPerSealSealer: AppUnderTest, SelfContainedSealing {
    let identifier = "planted-key-per-seal"
    let summary = "tests: a new key each seal, the last one kept (PLANTED)"
    let boxAlgorithm = "chachapoly"
    private var key = SymmetricKey(size: .bits256)

    func seal(_ plaintext: Data) throws -> Data {
        key = SymmetricKey(size: .bits256)
        return try ChaChaPoly.seal(plaintext, using: key).combined
    }

    func open(_ box: Data) throws -> Data { try ChaChaPoly.open(ChaChaPoly.SealedBox(combined: box), using: key) }
}

/// PLANTED: one key kept, one nonce for every box.
final class ConstantNonceSealer: AppUnderTest, SelfContainedSealing {
    let identifier = "planted-constant-nonce"
    let summary = "tests: AES.GCM under a constant nonce (PLANTED)"
    let boxAlgorithm = "aes-gcm"
    private let key = SymmetricKey(size: .bits256)

    func seal(_ plaintext: Data) throws -> Data {
        try AES.GCM.seal(plaintext, using: key, nonce: AES.GCM.Nonce(data: Data(repeating: 0x2A, count: 12))).combined ?? Data()
    }

    func open(_ box: Data) throws -> Data { try AES.GCM.open(AES.GCM.SealedBox(combined: box), using: key) }
}

/// PLANTED: AES-256-CBC with the IV in front and no MAC: a changed IV or ciphertext block opens.
final class UnauthenticatedCBCSealer: AppUnderTest, SelfContainedSealing {
    let identifier = "planted-tamper-accepted"
    let summary = "tests: AES-CBC without a MAC (PLANTED)"
    let boxAlgorithm = ""
    private let key = [UInt8](repeating: 0x5C, count: 32)

    func crypt(_ operation: Int, _ input: [UInt8], iv: [UInt8]) throws -> Data {
        var output = [UInt8](repeating: 0, count: input.count + kCCBlockSizeAES128)
        var moved = 0
        let status = CCCrypt(CCOperation(operation), CCAlgorithm(kCCAlgorithmAES), CCOptions(kCCOptionPKCS7Padding), key, key.count, iv,
                             input, input.count, &output, output.count, &moved)
        guard status == kCCSuccess else { throw AppFailure("CCCrypt", "status \(status)") }
        return Data(output.prefix(moved))
    }

    func seal(_ plaintext: Data) throws -> Data {
        var iv = [UInt8](repeating: 0, count: 16)
        guard CCRandomGenerateBytes(&iv, iv.count) == kCCSuccess else { throw AppFailure("seal", "no random IV") }
        return Data(iv) + (try crypt(kCCEncrypt, [UInt8](plaintext), iv: iv))
    }

    func open(_ box: Data) throws -> Data {
        let bytes = [UInt8](box)
        guard bytes.count >= 32 else { throw AppFailure("open", "too short") }
        return try crypt(kCCDecrypt, Array(bytes[16...]), iv: Array(bytes[..<16]))
    }
}

// MARK: signing

/// An RSA-2048 key pair made once with SecKeyCreateRandomKey.
final class RSAKeyPair {
    let privateKey: SecKey
    let publicKey: SecKey

    init() {
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048]
        privateKey = SecKeyCreateRandomKey(attributes as CFDictionary, nil)!
        publicKey = SecKeyCopyPublicKey(privateKey)!
    }

    func sign(_ data: Data, _ algorithm: SecKeyAlgorithm) throws -> Data {
        var error: Unmanaged<CFError>?
        guard let signature = SecKeyCreateSignature(privateKey, algorithm, data as CFData, &error) as Data? else {
            throw AppFailure("sign", "\(String(describing: error?.takeRetainedValue()))")
        }
        return signature
    }

    func exported() throws -> Data {
        var error: Unmanaged<CFError>?
        guard let data = SecKeyCopyExternalRepresentation(publicKey, &error) as Data? else {
            throw AppFailure("export", "\(String(describing: error?.takeRetainedValue()))")
        }
        return data
    }
}

/// By the book: SecKeyCreateSignature with a message algorithm, the public key exported as
/// SecKey's external representation (PKCS#1 DER).
final class TextbookSigner: AppUnderTest, MessageSigning {
    let identifier: String
    let summary = "tests: signs with SecKeyCreateSignature (by the book)"
    let signatureAlgorithm: String
    let algorithm: SecKeyAlgorithm
    let keys = RSAKeyPair()

    init(pss: Bool = false) {
        identifier = pss ? "textbook-signer-pss" : "textbook-signer"
        signatureAlgorithm = pss ? "rsa-pss-sha256" : "rsa-pkcs1v15-sha256"
        algorithm = pss ? .rsaSignatureMessagePSSSHA256 : .rsaSignatureMessagePKCS1v15SHA256
    }

    func sign(_ message: Data) throws -> Data { try keys.sign(message, algorithm) }
    func publicKey() throws -> Data { try keys.exported() }
}

/// PLANTED: hashes the message itself, then signs the hash with a *message* algorithm (which
/// hashes again): the signature is over SHA-256(message), not the message.
final class WrongBytesSigner: AppUnderTest, MessageSigning {
    let identifier = "planted-signs-the-hash"
    let summary = "tests: a message algorithm over a digest (PLANTED)"
    let signatureAlgorithm = "rsa-pkcs1v15-sha256"
    let keys = RSAKeyPair()

    func sign(_ message: Data) throws -> Data { try keys.sign(Data(SHA256.hash(data: message)), .rsaSignatureMessagePKCS1v15SHA256) }
    func publicKey() throws -> Data { try keys.exported() }
}

/// PLANTED: hands out the public key of another key pair than the one it signs with.
final class MismatchedKeySigner: AppUnderTest, MessageSigning {
    let identifier = "planted-mismatched-public-key"
    let summary = "tests: exports another key pair's public key (PLANTED)"
    let signatureAlgorithm = "rsa-pkcs1v15-sha256"
    let signing = RSAKeyPair(), other = RSAKeyPair()

    func sign(_ message: Data) throws -> Data { try signing.sign(message, .rsaSignatureMessagePKCS1v15SHA256) }
    func publicKey() throws -> Data { try other.exported() }
}

/// PLANTED: a key pair made afresh on every call (the signer's version of a key made per call).
final class KeyPairPerCallSigner: AppUnderTest, MessageSigning {
    let identifier = "planted-key-pair-per-call"
    let summary = "tests: SecKeyCreateRandomKey in each call (PLANTED)"
    let signatureAlgorithm = "rsa-pkcs1v15-sha256"

    func sign(_ message: Data) throws -> Data { try RSAKeyPair().sign(message, .rsaSignatureMessagePKCS1v15SHA256) }
    func publicKey() throws -> Data { try RSAKeyPair().exported() }
}

// MARK: a key agreed with the Pi

/// X25519 with the `openssl` command (where CryptoKit's Curve25519.KeyAgreement would be) and
/// HKDF-SHA256 written from RFC 5869 over CryptoKit's HMAC: no EC of crosscheck's own and nothing
/// of pyca's, which judges it. The key pair is made once; the box is CryptoKit's AES.GCM.
class OpenSSLX25519Agreement: AppUnderTest, KeyAgreementSealing {
    let identifier: String
    let summary: String
    let keyAgreementScheme: KeyAgreementScheme
    let folder: TestSupport.Scratch
    let publicKeyRaw: Data
    static let spkiPrefix = Data([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x03, 0x21, 0x00])

    init(identifier: String = "textbook-x25519-hkdf", summary: String = "tests: X25519 (openssl) + HKDF-SHA256 (RFC 5869) + AES.GCM (by the book)") {
        self.identifier = identifier
        self.summary = summary
        keyAgreementScheme = KeyAgreementScheme(curve: "x25519", publicKeyFormat: "raw", kdf: "hkdf-sha256", salt: Data("crosscheck salt".utf8),
                                                sharedInfo: Data("door v1".utf8), keyLength: 32, cipher: "aes-gcm")
        folder = try! TestSupport.Scratch()
        _ = try! folder.openssl(["genpkey", "-algorithm", "X25519", "-out", folder.path("app.pem")])
        publicKeyRaw = try! folder.openssl(["pkey", "-in", folder.path("app.pem"), "-pubout", "-outform", "DER"]).suffix(32)
    }

    func sharedSecret(_ piPublicKey: Data) throws -> Data {
        guard piPublicKey.count == 32 else { throw AppFailure("agree", "an X25519 key is 32 bytes") }
        try folder.write("pi.der", Self.spkiPrefix + piPublicKey)
        return try folder.openssl(["pkeyutl", "-derive", "-inkey", folder.path("app.pem"), "-peerkey", folder.path("pi.der"), "-peerform", "DER"])
    }

    /// RFC 5869 with HMAC-SHA256.
    static func hkdf(_ secret: Data, salt: Data, info: Data, length: Int) -> Data {
        let prk = Data(HMAC<SHA256>.authenticationCode(for: secret, using: SymmetricKey(data: salt.isEmpty ? Data(count: 32) : salt)))
        var output = Data(), block = Data(), counter: UInt8 = 1
        while output.count < length {
            block = Data(HMAC<SHA256>.authenticationCode(for: block + info + Data([counter]), using: SymmetricKey(data: prk)))
            output += block
            counter += 1
        }
        return output.prefix(length)
    }

    func derive(_ secret: Data) -> Data {
        Self.hkdf(secret, salt: keyAgreementScheme.salt, info: keyAgreementScheme.sharedInfo, length: keyAgreementScheme.keyLength)
    }

    func agreeAndSeal(piPublicKey: Data, plaintext: Data) throws -> (publicKey: Data, box: Data) {
        let key = SymmetricKey(data: derive(try sharedSecret(piPublicKey)))
        guard let box = try AES.GCM.seal(plaintext, using: key).combined else { throw AppFailure("seal", "no combined box") }
        return (publicKeyRaw, box)
    }
}

/// PLANTED: declares HKDF with a salt and info, derives without them.
final class WrongKDFAgreement: OpenSSLX25519Agreement {
    init() { super.init(identifier: "planted-wrong-kdf", summary: "tests: HKDF without the salt and info it declares (PLANTED)") }
    override func derive(_ secret: Data) -> Data { Self.hkdf(secret, salt: Data(), info: Data(), length: 32) }
}

// MARK: EC on the openssl command: apps whose EC is neither crosscheck's (WireCrypto) nor pyca's

/// ECDSA P-256 with the `openssl` command (where SecKeyCreateSignature with
/// ecdsaSignatureMessageX962SHA256, or CryptoKit's P256.Signing, would be): the public key exported as X9.63
/// (04 ‖ X ‖ Y, as SecKeyCopyExternalRepresentation does), the signature as DER or, `raw`, as
/// r ‖ s (CryptoKit's rawRepresentation), taken apart from the DER here.
final class OpenSSLECDSASigner: AppUnderTest, MessageSigning {
    let identifier: String
    let summary = "tests: ECDSA P-256 (openssl) with an X9.63 public key (by the book)"
    let signatureAlgorithm: String
    let folder = try! TestSupport.Scratch()
    let raw: Bool

    init(raw: Bool = false) {
        self.raw = raw
        identifier = raw ? "textbook-ecdsa-raw" : "textbook-ecdsa"
        signatureAlgorithm = raw ? "ecdsa-p256-sha256-raw" : "ecdsa-p256-sha256"
        _ = try! folder.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", folder.path("key.pem")])
    }

    func sign(_ message: Data) throws -> Data {
        try folder.write("message.bin", message)
        let der = try folder.openssl(["dgst", "-sha256", "-sign", folder.path("key.pem"), folder.path("message.bin")])
        return raw ? try Self.rawSignature(der) : der
    }

    func publicKey() throws -> Data { try folder.openssl(["pkey", "-in", folder.path("key.pem"), "-pubout", "-outform", "DER"]).suffix(65) }

    /// SEQUENCE { INTEGER r, INTEGER s } → r ‖ s, 32 bytes each.
    static func rawSignature(_ der: Data) throws -> Data {
        let bytes = [UInt8](der)
        func integer(at index: Int) throws -> (value: [UInt8], next: Int) {
            guard index + 2 <= bytes.count, bytes[index] == 0x02 else { throw AppFailure("sign", "not a DER ECDSA signature") }
            let length = Int(bytes[index + 1]), start = index + 2
            guard start + length <= bytes.count else { throw AppFailure("sign", "a short DER integer") }
            let value = Array(bytes[start..<start + length].drop { $0 == 0 })
            guard value.count <= 32 else { throw AppFailure("sign", "an integer over 32 bytes") }
            return ([UInt8](repeating: 0, count: 32 - value.count) + value, start + length)
        }
        guard bytes.count > 2, bytes[0] == 0x30 else { throw AppFailure("sign", "not a DER ECDSA signature") }
        let r = try integer(at: 2), s = try integer(at: r.next)
        return Data(r.value + s.value)
    }
}

/// ECDH P-256 with the `openssl` command and the X9.63 KDF written from ANSI X9.63 (SHA-256 of
/// secret ‖ counter ‖ shared info) over CryptoKit's SHA256, sealing with ChaChaPoly: the shape of
/// SecKeyCopyKeyExchangeResult with ecdhKeyExchangeStandardX963SHA256, or CryptoKit's
/// x963DerivedSymmetricKey. Public keys cross as X9.63.
final class OpenSSLP256X963Agreement: AppUnderTest, KeyAgreementSealing {
    let identifier = "textbook-p256-x963"
    let summary = "tests: ECDH P-256 (openssl) + X9.63 KDF (ANSI X9.63) + ChaChaPoly (by the book)"
    let keyAgreementScheme = KeyAgreementScheme(curve: "p256", publicKeyFormat: "x963", kdf: "x963-sha256", salt: Data(),
                                                sharedInfo: Data("door v1".utf8), keyLength: 32, cipher: "chachapoly")
    let folder = try! TestSupport.Scratch()
    static let spkiPrefix = Data([0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce,
                                  0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00])

    init() { _ = try! folder.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", folder.path("app.pem")]) }

    func agreeAndSeal(piPublicKey: Data, plaintext: Data) throws -> (publicKey: Data, box: Data) {
        guard piPublicKey.count == 65, piPublicKey.first == 0x04 else { throw AppFailure("agree", "not an X9.63 P-256 key") }
        try folder.write("pi.der", Self.spkiPrefix + piPublicKey)
        let secret = try folder.openssl(["pkeyutl", "-derive", "-inkey", folder.path("app.pem"), "-peerkey", folder.path("pi.der"), "-peerform", "DER"])
        var key = Data(), counter: UInt32 = 1
        while key.count < 32 {
            key += Data(SHA256.hash(data: secret + withUnsafeBytes(of: counter.bigEndian) { Data($0) } + keyAgreementScheme.sharedInfo))
            counter += 1
        }
        let box = try ChaChaPoly.seal(plaintext, using: SymmetricKey(data: key.prefix(32))).combined
        let publicKey = try folder.openssl(["pkey", "-in", folder.path("app.pem"), "-pubout", "-outform", "DER"]).suffix(65)
        return (Data(publicKey), box)
    }
}

// MARK: EC with Apple's API (Security's SecKey EC, CryptoKit's P256 and Curve25519)

/// By the book: a P-256 SecKey, SecKeyCreateSignature with ecdsaSignatureMessageX962SHA256 (DER),
/// the public key as SecKey's external representation (X9.63).
final class SecKeyECDSASigner: AppUnderTest, MessageSigning {
    let identifier = "textbook-seckey-ecdsa"
    let summary = "tests: ECDSA P-256 with SecKey (by the book)"
    let signatureAlgorithm = "ecdsa-p256-sha256"
    let privateKey: SecKey

    init() {
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]
        privateKey = SecKeyCreateRandomKey(attributes as CFDictionary, nil)!
    }

    func sign(_ message: Data) throws -> Data {
        var error: Unmanaged<CFError>?
        guard let signature = SecKeyCreateSignature(privateKey, .ecdsaSignatureMessageX962SHA256, message as CFData, &error) as Data? else {
            throw AppFailure("sign", "\(String(describing: error?.takeRetainedValue()))")
        }
        return signature
    }

    func publicKey() throws -> Data {
        var error: Unmanaged<CFError>?
        guard let publicKey = SecKeyCopyPublicKey(privateKey), let data = SecKeyCopyExternalRepresentation(publicKey, &error) as Data? else {
            throw AppFailure("export", "\(String(describing: error?.takeRetainedValue()))")
        }
        return data
    }
}

/// By the book: CryptoKit's P256.Signing, the signature's rawRepresentation (r ‖ s), the key's rawRepresentation (X ‖ Y).
final class CryptoKitP256Signer: AppUnderTest, MessageSigning {
    let identifier = "textbook-cryptokit-p256"
    let summary = "tests: P256.Signing with raw signatures and keys (by the book)"
    let signatureAlgorithm = "ecdsa-p256-sha256-raw"
    let key = P256.Signing.PrivateKey()

    func sign(_ message: Data) throws -> Data { try key.signature(for: message).rawRepresentation }
    func publicKey() throws -> Data { key.publicKey.rawRepresentation }
}

/// By the book: CryptoKit's P256.KeyAgreement, the Pi's key as X9.63, hkdfDerivedSymmetricKey, AES.GCM.
class CryptoKitP256Agreement: AppUnderTest, KeyAgreementSealing {
    let identifier: String
    let summary: String
    let keyAgreementScheme = KeyAgreementScheme(curve: "p256", publicKeyFormat: "x963", kdf: "hkdf-sha256", salt: Data("crosscheck salt".utf8),
                                                sharedInfo: Data("door v1".utf8), keyLength: 32, cipher: "aes-gcm")
    let key = P256.KeyAgreement.PrivateKey()

    init(identifier: String = "textbook-cryptokit-p256-hkdf", summary: String = "tests: P256.KeyAgreement + hkdfDerivedSymmetricKey + AES.GCM (by the book)") {
        self.identifier = identifier
        self.summary = summary
    }

    func derive(_ secret: SharedSecret) -> SymmetricKey {
        secret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: keyAgreementScheme.salt, sharedInfo: keyAgreementScheme.sharedInfo, outputByteCount: 32)
    }

    func agreeAndSeal(piPublicKey: Data, plaintext: Data) throws -> (publicKey: Data, box: Data) {
        let pi = try P256.KeyAgreement.PublicKey(x963Representation: piPublicKey)
        let secret = try key.sharedSecretFromKeyAgreement(with: pi)
        guard let box = try AES.GCM.seal(plaintext, using: derive(secret)).combined else { throw AppFailure("seal", "no combined box") }
        return (key.publicKey.x963Representation, box)
    }
}

/// PLANTED: declares HKDF, derives with X9.63 (the two SharedSecret methods side by side in CryptoKit).
final class X963InsteadOfHKDFAgreement: CryptoKitP256Agreement {
    init() { super.init(identifier: "planted-x963-for-hkdf", summary: "tests: x963DerivedSymmetricKey where HKDF is declared (PLANTED)") }
    override func derive(_ secret: SharedSecret) -> SymmetricKey {
        secret.x963DerivedSymmetricKey(using: SHA256.self, sharedInfo: keyAgreementScheme.sharedInfo, outputByteCount: 32)
    }
}

/// By the book: CryptoKit's Curve25519.KeyAgreement, x963DerivedSymmetricKey, ChaChaPoly.
final class CryptoKitX25519Agreement: AppUnderTest, KeyAgreementSealing {
    let identifier = "textbook-cryptokit-x25519-x963"
    let summary = "tests: Curve25519.KeyAgreement + x963DerivedSymmetricKey + ChaChaPoly (by the book)"
    let keyAgreementScheme = KeyAgreementScheme(curve: "x25519", publicKeyFormat: "raw", kdf: "x963-sha256", salt: Data(),
                                                sharedInfo: Data("door v1".utf8), keyLength: 32, cipher: "chachapoly")
    let key = Curve25519.KeyAgreement.PrivateKey()

    func agreeAndSeal(piPublicKey: Data, plaintext: Data) throws -> (publicKey: Data, box: Data) {
        let secret = try key.sharedSecretFromKeyAgreement(with: Curve25519.KeyAgreement.PublicKey(rawRepresentation: piPublicKey))
        let derived = secret.x963DerivedSymmetricKey(using: SHA256.self, sharedInfo: keyAgreementScheme.sharedInfo, outputByteCount: 32)
        return (key.publicKey.rawRepresentation, try ChaChaPoly.seal(plaintext, using: derived).combined)
    }
}

/// By the book: SecKeyCopyKeyExchangeResult with ecdhKeyExchangeStandardX963SHA256 (the Pi's key
/// from its X9.63 bytes with SecKeyCreateWithData), AES.GCM with a 16-byte key.
final class SecKeyECDHAgreement: AppUnderTest, KeyAgreementSealing {
    let identifier = "textbook-seckey-ecdh-x963"
    let summary = "tests: SecKeyCopyKeyExchangeResult, ECDH X9.63 SHA-256 (by the book)"
    let keyAgreementScheme = KeyAgreementScheme(curve: "p256", publicKeyFormat: "x963", kdf: "x963-sha256", salt: Data(),
                                                sharedInfo: Data("door v1".utf8), keyLength: 16, cipher: "aes-gcm")
    let privateKey: SecKey

    init() {
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]
        privateKey = SecKeyCreateRandomKey(attributes as CFDictionary, nil)!
    }

    func agreeAndSeal(piPublicKey: Data, plaintext: Data) throws -> (publicKey: Data, box: Data) {
        var error: Unmanaged<CFError>?
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassPublic]
        guard let pi = SecKeyCreateWithData(piPublicKey as CFData, attributes as CFDictionary, &error) else {
            throw AppFailure("pi key", "\(String(describing: error?.takeRetainedValue()))")
        }
        let parameters: [String: Any] = [kSecKeyKeyExchangeParameterRequestedSize as String: 16,
                                         kSecKeyKeyExchangeParameterSharedInfo as String: keyAgreementScheme.sharedInfo]
        guard let key = SecKeyCopyKeyExchangeResult(privateKey, .ecdhKeyExchangeStandardX963SHA256, pi, parameters as CFDictionary, &error) as Data?,
              let publicKey = SecKeyCopyPublicKey(privateKey), let exported = SecKeyCopyExternalRepresentation(publicKey, &error) as Data? else {
            throw AppFailure("agree", "\(String(describing: error?.takeRetainedValue()))")
        }
        guard let box = try AES.GCM.seal(plaintext, using: SymmetricKey(data: key)).combined else { throw AppFailure("seal", "no combined box") }
        return (exported, box)
    }
}
