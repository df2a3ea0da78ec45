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

// MARK: - issue 35: the Pi's public key and signed requests, written as app helpers usually are

/// An RSA helper as iOS tutorials write it: strip the PEM header of the Pi's public key, base64-decode,
/// `SecKeyCreateWithData`, `SecKeyCreateEncryptedData`. `algorithm` is what its code passes.
enum PiRSAHelper {
    static func publicKey(fromPEM pem: String) -> SecKey? {
        let base64 = pem.replacingOccurrences(of: "-----BEGIN PUBLIC KEY-----", with: "")
            .replacingOccurrences(of: "-----END PUBLIC KEY-----", with: "")
            .replacingOccurrences(of: "\n", with: "")
            .trimmingCharacters(in: .whitespaces)
        guard let data = Data(base64Encoded: base64) else { return nil }
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPublic]
        var error: Unmanaged<CFError>?
        return SecKeyCreateWithData(data as CFData, attributes as CFDictionary, &error)
    }

    static func encrypt(_ message: String, publicKeyPEM: String, algorithm: SecKeyAlgorithm) throws -> String {
        guard let key = publicKey(fromPEM: publicKeyPEM) else { throw AppFailure("PiRSAHelper.encrypt", "the server's public key could not be read") }
        guard SecKeyIsAlgorithmSupported(key, .encrypt, algorithm) else { throw AppFailure("PiRSAHelper.encrypt", "algorithm not supported") }
        var error: Unmanaged<CFError>?
        guard let encrypted = SecKeyCreateEncryptedData(key, algorithm, Data(message.utf8) as CFData, &error) as Data? else {
            throw AppFailure("PiRSAHelper.encrypt", "\(String(describing: error?.takeRetainedValue()))")
        }
        return encrypted.base64EncodedString()
    }
}

/// The adapter over `PiRSAHelper`: declares OAEP-SHA256; `algorithm` is what the helper really uses.
final class PiKeyApp: AppUnderTest, PeerKeyEncryption {
    let identifier: String
    let summary = "tests: an RSA helper that imports the Pi's PEM public key and encrypts to it"
    let algorithm: SecKeyAlgorithm
    var peerKeyScheme: PeerKeyScheme {
        PeerKeyScheme(keyFormats: ["pem-spki", "base64-spki"], padding: "oaep-sha256", appFunction: "PiRSAHelper.encrypt(_:publicKeyPEM:algorithm:)")
    }

    init(identifier: String = "pi-key-oaep", algorithm: SecKeyAlgorithm = .rsaEncryptionOAEPSHA256) {
        self.identifier = identifier; self.algorithm = algorithm
    }

    func encrypt(_ plaintext: Data, toPeerKey key: Data, format: String) throws -> Data {
        // The helper takes text; crosscheck's plaintexts here are bytes, so they go through as Latin-1-free UTF-8 only when they are text.
        let text = String(decoding: plaintext, as: UTF8.self)
        guard Data(text.utf8) == plaintext else { return try rawEncrypt(plaintext, key: key) }
        let base64 = try PiRSAHelper.encrypt(text, publicKeyPEM: String(decoding: key, as: UTF8.self), algorithm: algorithm)
        guard let ciphertext = Data(base64Encoded: base64) else { throw AppFailure("adapter", "the helper returned no base64") }
        return ciphertext
    }

    /// The helper's own steps on bytes that are not text.
    func rawEncrypt(_ plaintext: Data, key: Data) throws -> Data {
        guard let secKey = PiRSAHelper.publicKey(fromPEM: String(decoding: key, as: UTF8.self)) else { throw AppFailure("PiRSAHelper.publicKey", "unreadable key") }
        var error: Unmanaged<CFError>?
        guard let encrypted = SecKeyCreateEncryptedData(secKey, algorithm, plaintext as CFData, &error) as Data? else {
            throw AppFailure("PiRSAHelper.encrypt", "\(String(describing: error?.takeRetainedValue()))")
        }
        return encrypted
    }
}

/// A `CCHmac` request signer as apps write it: "METHOD\npath\ntimestamp\nbody", HMAC-SHA256 with
/// the hex secret the Pi handed out, lowercase hex. Each PLANTED flaw is one switch.
struct RequestSigner {
    enum Flaw { case none, sha1, keyAsText, leavesOutTimestamp }
    let flaw: Flaw

    func sign(method: String, path: String, timestamp: String, body: String, secretHex: String) -> String {
        let message = flaw == .leavesOutTimestamp ? "\(method)\n\(path)\n\(body)" : "\(method)\n\(path)\n\(timestamp)\n\(body)"
        let key: Data
        if flaw == .keyAsText {
            key = Data(secretHex.utf8)  // PLANTED: the hex text, not the bytes it encodes
        } else {
            var bytes = Data()
            var index = secretHex.startIndex
            while index < secretHex.endIndex {
                let next = secretHex.index(index, offsetBy: 2)
                bytes.append(UInt8(secretHex[index..<next], radix: 16) ?? 0)
                index = next
            }
            key = bytes
        }
        let algorithm = flaw == .sha1 ? CCHmacAlgorithm(kCCHmacAlgSHA1) : CCHmacAlgorithm(kCCHmacAlgSHA256)  // PLANTED when .sha1
        let length = flaw == .sha1 ? Int(CC_SHA1_DIGEST_LENGTH) : Int(CC_SHA256_DIGEST_LENGTH)
        var digest = [UInt8](repeating: 0, count: length)
        let data = Data(message.utf8)
        key.withUnsafeBytes { keyBytes in
            data.withUnsafeBytes { dataBytes in
                CCHmac(algorithm, keyBytes.baseAddress, key.count, dataBytes.baseAddress, data.count, &digest)
            }
        }
        return digest.map { String(format: "%02x", $0) }.joined()
    }
}

final class HMACSignerApp: AppUnderTest, RequestSigning {
    let identifier: String
    let summary = "tests: a CCHmac request signer"
    let signer: RequestSigner
    let requestSigningScheme = RequestSigningScheme(algorithm: "hmac-sha256", canonicalTemplate: "{method}\n{path}\n{timestamp}\n{body}", secretEncoding: "hex",
                                                    signatureEncoding: "hex", appFunction: "RequestSigner.sign(method:path:timestamp:body:secretHex:)")

    init(identifier: String = "hmac-signer", flaw: RequestSigner.Flaw = .none) { self.identifier = identifier; signer = RequestSigner(flaw: flaw) }

    func signRequest(_ request: SignableRequest, secret: Data) throws -> Data {
        Data(signer.sign(method: request.method, path: request.path, timestamp: request.timestamp, body: String(decoding: request.body, as: UTF8.self),
                         secretHex: String(decoding: secret, as: UTF8.self)).utf8)
    }
}

/// Request signing with a P-256 key the app keeps (CryptoKit), base64 DER signature over
/// "METHOD path\ntimestamp\nSHA-256(body) hex".
final class P256RequestSignerApp: AppUnderTest, RequestSigning {
    let identifier: String
    /// PLANTED when true: the timestamp line is not signed.
    let leavesOutTimestamp: Bool
    let summary = "tests: CryptoKit P-256 request signatures"
    let key = P256.Signing.PrivateKey()
    let requestSigningScheme = RequestSigningScheme(algorithm: "ecdsa-p256-sha256", canonicalTemplate: "{method} {path}\n{timestamp}\n{body-sha256-hex}",
                                                    secretEncoding: "", signatureEncoding: "base64", appFunction: "P256RequestSignerApp.signRequest")

    func signRequest(_ request: SignableRequest, secret: Data) throws -> Data {
        let bodyHash = SHA256.hash(data: request.body).map { String(format: "%02x", $0) }.joined()
        let canonical = leavesOutTimestamp ? "\(request.method) \(request.path)\n\(bodyHash)" : "\(request.method) \(request.path)\n\(request.timestamp)\n\(bodyHash)"
        return Data(try key.signature(for: Data(canonical.utf8)).derRepresentation.base64EncodedString().utf8)
    }

    func requestSigningPublicKey() throws -> Data { key.publicKey.x963Representation }

    init(identifier: String = "p256-request-signer", leavesOutTimestamp: Bool = false) {
        self.identifier = identifier; self.leavesOutTimestamp = leavesOutTimestamp
    }
}

/// Imports the Pi's key in every form apps meet: PEM (either label), DER (SPKI or PKCS#1), bare
/// base64, and modulus + exponent (the app writes the PKCS#1 RSAPublicKey DER itself, as helpers
/// on the web do), then `SecKeyCreateWithData` and OAEP-SHA256. PLANTED when `fallsBack`: a key it
/// cannot import is replaced by one it made earlier, so it encrypts anyway.
final class AllFormsPiKeyApp: AppUnderTest, PeerKeyEncryption {
    let identifier: String
    let summary = "tests: every form of the Pi's public key, imported by the app's own code"
    let fallsBack: Bool
    let peerKeyScheme = PeerKeyScheme(keyFormats: PeerKeyScheme.formats, padding: "oaep-sha256", appFunction: "KeyImporter.key(from:format:)")
    lazy var fallback: SecKey? = {
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048]
        return SecKeyCreateRandomKey(attributes as CFDictionary, nil).flatMap(SecKeyCopyPublicKey)
    }()

    init(identifier: String = "all-forms", fallsBack: Bool = false) { self.identifier = identifier; self.fallsBack = fallsBack }

    static func der(fromPEM text: String) -> Data? {
        let body = text.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return Data(base64Encoded: body)
    }

    /// DER INTEGER of unsigned big-endian bytes, and a SEQUENCE around parts.
    static func derLength(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        if count < 0x100 { return [0x81, UInt8(count)] }
        return [0x82, UInt8(count >> 8), UInt8(count & 0xff)]
    }
    static func integer(_ bytes: Data) -> [UInt8] {
        var value = [UInt8](bytes.drop { $0 == 0 })
        if value.isEmpty { value = [0] }
        if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return [0x02] + derLength(value.count) + value
    }

    func key(from key: Data, format: String) -> SecKey? {
        var der: Data?
        switch format {
        case "pem-spki", "pem-pkcs1": der = Self.der(fromPEM: String(decoding: key, as: UTF8.self))
        case "base64-spki", "base64-pkcs1": der = Data(base64Encoded: String(decoding: key, as: UTF8.self))
        case "modulus-exponent":
            guard let object = try? JSONSerialization.jsonObject(with: key) as? [String: String],
                  let modulus = object["modulus"].flatMap({ Data(base64Encoded: $0) }), let exponent = object["exponent"].flatMap({ Data(base64Encoded: $0) }) else { return nil }
            let content = Self.integer(modulus) + Self.integer(exponent)
            der = Data([0x30] + Self.derLength(content.count) + content)
        default: der = key
        }
        guard let der else { return nil }
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPublic]
        return SecKeyCreateWithData(der as CFData, attributes as CFDictionary, nil)
    }

    func encrypt(_ plaintext: Data, toPeerKey key: Data, format: String) throws -> Data {
        guard let publicKey = self.key(from: key, format: format) ?? (fallsBack ? fallback : nil) else {  // PLANTED when fallsBack
            throw AppFailure("KeyImporter.key(from:format:)", "the Pi's key (\(format)) could not be imported")
        }
        var error: Unmanaged<CFError>?
        guard let ciphertext = SecKeyCreateEncryptedData(publicKey, .rsaEncryptionOAEPSHA256, plaintext as CFData, &error) as Data? else {
            throw AppFailure("encrypt", "\(String(describing: error?.takeRetainedValue()))")
        }
        return ciphertext
    }
}
