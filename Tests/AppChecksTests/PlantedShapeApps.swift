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

/// X25519 with the `openssl` command (a stand-in for CryptoKit's Curve25519.KeyAgreement until the
/// EC modules land) and HKDF-SHA256 written from RFC 5869 over CryptoKit's HMAC: nothing of it is
/// pyca's, which judges it. The key pair is made once; the box is CryptoKit's AES.GCM.
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
