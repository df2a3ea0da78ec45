import Foundation
import StorageRecords
internal import WireCrypto

/// A key, as Security's `SecKey`: an RSA or EC (P-256/384/521, SecKeyEC.swift) private key (with
/// its public half) or public key, held by WireCrypto's OpenSSL owners. Symmetric keys are not provided.
public final class SecKey: CustomStringConvertible, @unchecked Sendable {
    enum Material {
        case rsaPrivate(RSAPrivateKey)
        case rsaPublic(RSAPublicKey)
        case ecPrivate(ECPrivateKey)
        case ecPublic(ECPublicKey)
    }

    let material: Material
    /// Attributes the key was made with (tag, label, permanence), as SecKeyCopyAttributes reports.
    let extraAttributes: [String: Any]

    init(_ material: Material, attributes: [String: Any] = [:]) {
        self.material = material
        self.extraAttributes = attributes
    }

    var isPrivate: Bool {
        switch material {
        case .rsaPrivate, .ecPrivate: return true
        case .rsaPublic, .ecPublic: return false
        }
    }

    /// The public half of an RSA key, nil for EC keys (`ecPublicKey`).
    var publicKey: RSAPublicKey? {
        switch material {
        case let .rsaPrivate(key): return key.publicKey
        case let .rsaPublic(key): return key
        case .ecPrivate, .ecPublic: return nil
        }
    }

    var bits: Int { ecCurve?.bits ?? publicKey?.bits ?? 0 }
    /// RSA: the modulus bytes; EC: the coordinate bytes (SecECKey.c's `ccec_ctx_size`).
    var blockSize: Int { ecCurve?.coordinateByteCount ?? publicKey?.modulusByteCount ?? 0 }

    /// iOS's external representation: bare PKCS#1 RSAPublicKey or RSAPrivateKey DER; X9.63 for EC.
    func externalRepresentation() throws -> Data {
        if let refusal = exportRefusal { throw refusal }  // a Secure Enclave private key (SecureEnclave.swift)
        switch material {
        case let .ecPublic(key): return key.x963Representation
        case let .ecPrivate(key): return key.x963Representation
        case let .rsaPublic(key): return try key.exported(.pkcs1DER)
        case let .rsaPrivate(key): return try PEM.body(of: key.exported(.pkcs1PEM), label: "RSA PRIVATE KEY")
        }
    }

    /// kSecAttrApplicationLabel on iOS: the SHA-1 of the public key's PKCS#1 DER (RSA) or X9.63 bytes (EC).
    var applicationLabel: Data {
        if let ecPublicKey { return WireCrypto.Digest.sha1.hash(ecPublicKey.x963Representation) }
        return (try? publicKey?.exported(.pkcs1DER)).flatMap { $0 }.map { WireCrypto.Digest.sha1.hash($0) } ?? Data()
    }

    public var description: String {
        if isEC { return ecDescription }
        return "<SecKeyRef algorithm id: 1, key type: \(isPrivate ? "RSAPrivateKey" : "RSAPublicKey"), block size: \(bits) bits>"
    }
}

public func SecKeyGetTypeID() -> CFTypeID { TypeIDs.key }

/// Security's padding choices for the older SecKeyEncrypt/SecKeyDecrypt API.
public struct SecPadding: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let none = SecPadding([])
    public static let PKCS1 = SecPadding(rawValue: 1)
    public static let OAEP = SecPadding(rawValue: 2)
    public static let sigRaw = SecPadding(rawValue: 0x4000)
    public static let PKCS1MD2 = SecPadding(rawValue: 0x8000)
    public static let PKCS1MD5 = SecPadding(rawValue: 0x8001)
    public static let PKCS1SHA1 = SecPadding(rawValue: 0x8002)
    public static let PKCS1SHA224 = SecPadding(rawValue: 0x8003)
    public static let PKCS1SHA256 = SecPadding(rawValue: 0x8004)
    public static let PKCS1SHA384 = SecPadding(rawValue: 0x8005)
    public static let PKCS1SHA512 = SecPadding(rawValue: 0x8006)
}

public enum SecKeyOperationType: Int, Sendable {
    case sign = 0, verify = 1, encrypt = 2, decrypt = 3, keyExchange = 4
}

/// Security's algorithm names, with Apple's raw strings.
public struct SecKeyAlgorithm: Hashable, RawRepresentable, @unchecked Sendable {
    public let rawValue: CFString
    public init(rawValue: CFString) { self.rawValue = rawValue }
    public init(_ rawValue: CFString) { self.rawValue = rawValue }
    public static func == (lhs: SecKeyAlgorithm, rhs: SecKeyAlgorithm) -> Bool { (lhs.rawValue as String) == (rhs.rawValue as String) }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue as String) }

    public static let rsaEncryptionRaw = SecKeyAlgorithm("algid:encrypt:RSA:raw")
    public static let rsaEncryptionPKCS1 = SecKeyAlgorithm("algid:encrypt:RSA:PKCS1")
    public static let rsaEncryptionOAEPSHA1 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA1")
    public static let rsaEncryptionOAEPSHA224 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA224")
    public static let rsaEncryptionOAEPSHA256 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA256")
    public static let rsaEncryptionOAEPSHA384 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA384")
    public static let rsaEncryptionOAEPSHA512 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA512")
    public static let rsaEncryptionOAEPSHA1AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA1:AESGCM")
    public static let rsaEncryptionOAEPSHA224AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA224:AESGCM")
    public static let rsaEncryptionOAEPSHA256AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA256:AESGCM")
    public static let rsaEncryptionOAEPSHA384AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA384:AESGCM")
    public static let rsaEncryptionOAEPSHA512AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA512:AESGCM")

    /// The RSA padding this module implements for the algorithm, or nil.
    var rsaPadding: RSAEncryptionPadding? {
        switch rawValue as String {
        case "algid:encrypt:RSA:PKCS1": return ._WEAK_AND_INSECURE_PKCS_V1_5
        case "algid:encrypt:RSA:OAEP:SHA1": return .oaep(hash: .sha1, mgf1: .sha1)
        case "algid:encrypt:RSA:OAEP:SHA224": return .oaep(hash: .sha224, mgf1: .sha224)
        case "algid:encrypt:RSA:OAEP:SHA256": return .oaep(hash: .sha256, mgf1: .sha256)
        case "algid:encrypt:RSA:OAEP:SHA384": return .oaep(hash: .sha384, mgf1: .sha384)
        case "algid:encrypt:RSA:OAEP:SHA512": return .oaep(hash: .sha512, mgf1: .sha512)
        default: return nil
        }
    }

    /// Algorithms Apple supports for RSA keys that this module does not implement.
    var isKnownButUnimplemented: Bool { (rawValue as String).hasSuffix(":AESGCM") }

    /// `.rsaEncryptionRaw`: textbook RSA, no padding (rawEncrypt, rawDecrypt).
    var isRSARaw: Bool { (rawValue as String) == "algid:encrypt:RSA:raw" }
}

// MARK: - Generating keys

/// Reads an integer attribute given as a number or a numeric string, as Security accepts both.
func integerAttribute(_ value: Any?) -> Int? {
    switch value {
    case let number as Int: return number
    case let number as NSNumber: return number.intValue
    case let text as String: return Int(text)
    case let text as NSString: return Int(text as String)
    default: return nil
    }
}

func stringAttribute(_ value: Any?) -> String? {
    switch value {
    case let text as String: return text
    case let text as NSString: return text as String
    default: return nil
    }
}

/// A string attribute that iOS also takes as a number (kSecAttrKeyType: kSecAttrKeyTypeRSA is the
/// CFString "42"; the number 42 works too).
func stringOrNumberAttribute(_ value: Any?) -> String? {
    stringAttribute(value) ?? integerAttribute(value).map(String.init)
}

func boolAttribute(_ value: Any?) -> Bool {
    switch value {
    case let flag as Bool: return flag
    case let number as NSNumber: return number.boolValue
    case let text as String: return text == "1" || text.lowercased() == "true"
    default: return false
    }
}

/// A CFDictionary's entries with String keys (keys arrive as NSString or String).
func entries(of dictionary: CFDictionary) -> [String: Any] {
    var result: [String: Any] = [:]
    for (key, value) in dictionary {
        if let name = stringAttribute(key) { result[name] = value }
        else if let name = key as? AnyHashable, let text = name.base as? String { result[text] = value }
    }
    return result
}

/// Generates an RSA key pair the way SecKeyGeneratePair/SecKeyCreateRandomKey do: kSecAttrKeyType
/// RSA, kSecAttrKeySizeInBits 512…8192, top-level attributes applied to both keys and
/// kSecPrivateKeyAttrs/kSecPublicKeyAttrs applied to each; kSecAttrIsPermanent stores the key in
/// the (in-memory) keychain. Returns the keys or an OSStatus with a description.
func generateKeyPair(_ parameters: CFDictionary) -> Result<(publicKey: SecKey, privateKey: SecKey), SecFailure> {
    let top = entries(of: parameters)
    if let token = stringAttribute(top[kSecAttrTokenID as String]), let refusal = tokenRefusal(token, top) {  // SecureEnclave.swift
        return .failure(refusal)
    }
    guard let type = stringOrNumberAttribute(top[kSecAttrKeyType as String]) else {
        return .failure(SecFailure(errSecParam, "kSecAttrKeyType is missing (use kSecAttrKeyTypeRSA)"))
    }
    let materials: (privateKey: SecKey.Material, publicKey: SecKey.Material)
    if isECKeyType(type) {
        switch generateECKeyPair(bits: integerAttribute(top[kSecAttrKeySizeInBits as String])) {  // SecKeyEC.swift
        case let .success(pair): materials = pair
        case let .failure(failure): return .failure(failure)
        }
    } else {
        guard type == kSecAttrKeyTypeRSA as String else {
            return .failure(SecFailure(errSecUnimplemented, "key type \(type) is not provided here; only kSecAttrKeyTypeRSA and kSecAttrKeyTypeECSECPrimeRandom"))
        }
        // Apple's SecRSAKey.c (`SecRSAPrivateKeyInit`, kSecGenerateKey): a size below 512 or above
        // kMaximumRSAKeyBits (8192), or none (read as 0), is errSecKeySizeNotAllowed.
        let bits = integerAttribute(top[kSecAttrKeySizeInBits as String]) ?? 0
        guard (512...8192).contains(bits) else {
            return .failure(SecFailure(errSecKeySizeNotAllowed, "RSA key size \(bits) bits: iOS generates 512 to 8192 (use 2048 or more)"))
        }
        do {
            let privateKey = try RSAPrivateKey(appleGeneratorBits: bits)
            materials = (.rsaPrivate(privateKey), .rsaPublic(privateKey.publicKey))
        } catch {
            return .failure(SecFailure(errSecInternalComponent, "RSA key generation failed: \(error)"))
        }
    }
    func attributes(_ perKeyName: CFString) -> [String: Any] {
        var merged = top.filter { ![kSecPrivateKeyAttrs as String, kSecPublicKeyAttrs as String, kSecAttrKeyType as String,
                                    kSecAttrKeySizeInBits as String].contains($0.key) }
        if let perKey = top[perKeyName as String] as? NSDictionary { merged.merge(entries(of: perKey)) { $1 } }
        return merged
    }
    let privateAttributes = attributes(kSecPrivateKeyAttrs)
    let publicAttributes = attributes(kSecPublicKeyAttrs)
    let secPrivate = SecKey(materials.privateKey, attributes: privateAttributes)
    let secPublic = SecKey(materials.publicKey, attributes: publicAttributes)
    for (key, keyAttributes) in [(secPublic, publicAttributes), (secPrivate, privateAttributes)]
    where boolAttribute(keyAttributes[kSecAttrIsPermanent as String]) {
        let status = InMemoryKeychain.current.addKey(key, attributes: keyAttributes)
        guard status == errSecSuccess else {
            return .failure(SecFailure(status, "storing the generated key in the keychain failed (\(status))"))
        }
    }
    return .success((secPublic, secPrivate))
}

/// An OSStatus and what went wrong, for functions that report through a CFError.
struct SecFailure: Error {
    let status: OSStatus
    let message: String
    init(_ status: OSStatus, _ message: String) { self.status = status; self.message = message }
}

@discardableResult
public func SecKeyCreateRandomKey(_ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    switch generateKeyPair(parameters) {
    case let .success(pair): return pair.privateKey
    case let .failure(failure):
        report(failure.status, "Key generation failed, error \(failure.status): \(failure.message)", to: error)
        return nil
    }
}

/// The older generator (seed 000 calls it); returns the OSStatus instead of a CFError.
@discardableResult
public func SecKeyGeneratePair(_ parameters: CFDictionary, _ publicKey: UnsafeMutablePointer<SecKey?>?,
                               _ privateKey: UnsafeMutablePointer<SecKey?>?) -> OSStatus {
    switch generateKeyPair(parameters) {
    case let .success(pair):
        publicKey?.pointee = pair.publicKey
        privateKey?.pointee = pair.privateKey
        return errSecSuccess
    case let .failure(failure):
        return failure.status
    }
}

@discardableResult
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? {
    switch key.material {
    case .rsaPublic, .ecPublic: return key
    case let .rsaPrivate(privateKey): return SecKey(.rsaPublic(privateKey.publicKey))
    case let .ecPrivate(privateKey): return SecKey(.ecPublic(privateKey.publicKey))
    }
}

@discardableResult
public func SecKeyGetBlockSize(_ key: SecKey) -> Int { key.blockSize }

@discardableResult
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
    // The attributes the keychain derives from the key itself, plus what only this call reports.
    var attributes = InMemoryKeychain.derivedAttributes(of: key).mapValues(\.object)
    attributes[kSecClass as String] = kSecClassKey as String
    attributes[kSecAttrIsPermanent as String] = boolAttribute(key.extraAttributes[kSecAttrIsPermanent as String])
    if let tag = key.extraAttributes[kSecAttrApplicationTag as String] { attributes[kSecAttrApplicationTag as String] = tagData(tag) }
    if let label = key.extraAttributes[kSecAttrLabel as String] { attributes[kSecAttrLabel as String] = label }
    if let token = key.extraAttributes[kSecAttrTokenID as String] { attributes[kSecAttrTokenID as String] = token }
    if let data = try? key.externalRepresentation() { attributes[kSecValueData as String] = data }
    return NSDictionary(dictionary: attributes)
}

/// An application tag as the keychain stores it: bytes (a String tag is stored as its UTF-8).
func tagData(_ value: Any) -> Data? {
    switch value {
    case let data as Data: return data
    case let data as NSData: return Data(data)
    case let text as String: return Data(text.utf8)
    case let text as NSString: return Data((text as String).utf8)
    default: return nil
    }
}

@discardableResult
public func SecKeyIsAlgorithmSupported(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) -> Bool {
    if key.isEC { return ecAlgorithmSupported(key, operation, algorithm) }  // SecKeyEC.swift
    if operation == .sign || operation == .verify { return signatureSupported(key, operation, algorithm) }  // SecSignature.swift
    if algorithm.isRSARaw, !key.isEC { return operation == .encrypt ? !key.isPrivate : operation == .decrypt && key.isPrivate }
    guard let padding = algorithm.rsaPadding else { return false }
    switch operation {
    case .encrypt: return !key.isPrivate && padding.maxPlaintextLength(modulusBytes: key.blockSize) > 0
    case .decrypt: return key.isPrivate && padding.maxPlaintextLength(modulusBytes: key.blockSize) > 0
    default: return false
    }
}

// MARK: - Encrypting and decrypting

/// RSA encryption with a public key; failures are SecFailures with Apple's statuses.
func rsaEncrypt(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: Data) -> Result<Data, SecFailure> {
    let name = algorithm.rawValue as String
    if algorithm.isKnownButUnimplemented {
        return .failure(SecFailure(errSecUnimplemented, "\(name): not implemented here (see docs/APPLE-MODULES.md)"))
    }
    if algorithm.isRSARaw, case let .rsaPublic(publicKey) = key.material { return rawEncrypt(publicKey, plaintext) }
    guard let padding = algorithm.rsaPadding, case let .rsaPublic(publicKey) = key.material,
          padding.maxPlaintextLength(modulusBytes: key.blockSize) > 0 else {
        return .failure(SecFailure(errSecParam, "\(name): algorithm not supported by the key \(key)"))
    }
    do {
        return .success(try publicKey.encrypt(plaintext, padding: padding))
    } catch WireCryptoError.plaintextTooLong {
        return .failure(SecFailure(errSecParam, "RSAencrypt wrong input size (err -23)"))
    } catch {
        return .failure(SecFailure(errSecInternalComponent, "RSA encryption failed: \(error)"))
    }
}

/// RSA decryption with a private key. Like iOS, a ciphertext shorter than the modulus is read as a
/// big-endian number (leading zero bytes restored); a longer one, and every OAEP padding failure, is
/// errSecParam; a PKCS#1 v1.5 padding failure is errSecParam before iOS 17.4 and a synthetic message
/// from 17.4 (`--ios`, TargetIOS.swift).
func rsaDecrypt(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: Data) -> Result<Data, SecFailure> {
    if let denied = authorizeUse(of: key) { return .failure(denied) }  // SecAccessControl.swift
    let name = algorithm.rawValue as String
    if algorithm.isKnownButUnimplemented {
        return .failure(SecFailure(errSecUnimplemented, "\(name): not implemented here (see docs/APPLE-MODULES.md)"))
    }
    if algorithm.isRSARaw, case let .rsaPrivate(privateKey) = key.material { return rawDecrypt(privateKey, blockSize: key.blockSize, ciphertext) }
    guard let padding = algorithm.rsaPadding, case let .rsaPrivate(privateKey) = key.material,
          padding.maxPlaintextLength(modulusBytes: key.blockSize) > 0 else {
        return .failure(SecFailure(errSecParam, "\(name): algorithm not supported by the key \(key)"))
    }
    guard ciphertext.count <= key.blockSize else {
        return .failure(SecFailure(errSecParam, "RSAdecrypt wrong input (ciphertext is \(ciphertext.count) bytes, the key's block is \(key.blockSize))"))
    }
    let block = Data(count: key.blockSize - ciphertext.count) + ciphertext
    do {
        // From iOS 17.4 Apple's SecKeyAdaptors.m (`SecKeyRSACopyDecryptedWithPadding`) decodes PKCS#1
        // v1.5 with corecrypto's `ccrsa_eme_pkcs1v15_decode_safe` for software keys: a bad padding
        // (the wrong key, a tampered ciphertext) is a deterministic random message, not an error.
        if padding.isWeak, TargetIOS.current >= TargetIOS.implicitRejection {  // TargetIOS.swift
            if let plaintext = try? privateKey.decrypt(block, padding: padding) { return .success(plaintext) }
            // Recorded, not returned: the app sees what iOS gives it; a check sees that it happened.
            SecurityEventLog.recordImplicitRejection()
            return .success(try privateKey.decryptPKCS1v15ImplicitRejection(block))
        }
        return .success(try privateKey.decrypt(block, padding: padding))
    } catch {
        return .failure(SecFailure(errSecParam, "RSAdecrypt wrong input (err -27)"))
    }
}

/// `.rsaEncryptionRaw` with a public key, as Apple's SecKeyAdaptors.m and SecRSAKey.c have it: the
/// input is a big-endian number of at most the block size (a longer one: "input buffer bad size"),
/// below the modulus ("RSApubkey wrong size of buffer to encrypt"), both errSecParam; the result is
/// mᵉ mod n, block-size bytes with leading zeros. Textbook RSA (RFC 8017 §5.1.1): no padding at all.
func rawEncrypt(_ publicKey: RSAPublicKey, _ plaintext: Data) -> Result<Data, SecFailure> {
    let k = publicKey.modulusByteCount
    guard plaintext.count <= k else { return .failure(SecFailure(errSecParam, "sign - input buffer bad size (\(plaintext.count) bytes)")) }
    let block = Data(count: k - plaintext.count) + plaintext
    guard block.lexicographicallyPrecedes(publicKey.modulus) else {
        return .failure(SecFailure(errSecParam, "RSApubkey wrong size of buffer to encrypt"))
    }
    do { return .success(try publicKey._WEAK_AND_INSECURE_textbookEncrypt(block)) } catch {
        return .failure(SecFailure(errSecInternalComponent, "RSA encryption failed: \(error)"))
    }
}

/// `.rsaEncryptionRaw` with a private key: at most block-size bytes read as a number, cᵈ mod n as
/// block-size bytes, leading zeros kept (the app strips them). A ciphertext not below the modulus
/// is errSecParam (RFC 8017 §5.1.2 step 1; Apple hands the block to corecrypto's ccrsa_priv_crypt).
func rawDecrypt(_ privateKey: RSAPrivateKey, blockSize: Int, _ ciphertext: Data) -> Result<Data, SecFailure> {
    guard ciphertext.count <= blockSize else { return .failure(SecFailure(errSecParam, "sign - input buffer bad size (\(ciphertext.count) bytes)")) }
    do { return .success(try privateKey._WEAK_AND_INSECURE_textbookDecrypt(Data(count: blockSize - ciphertext.count) + ciphertext)) } catch {
        return .failure(SecFailure(errSecParam, "rsa_priv_crypt failed: the ciphertext is not below the modulus"))
    }
}

@discardableResult
public func SecKeyCreateEncryptedData(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: CFData,
                                      _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    let encrypted = key.isEC || algorithm.ecies != nil ? eciesEncrypt(key, algorithm, Data(plaintext)) : rsaEncrypt(key, algorithm, Data(plaintext))
    switch encrypted {
    case let .success(data): return data as NSData
    case let .failure(failure): report(failure.status, failure.message, to: error); return nil
    }
}

@discardableResult
public func SecKeyCreateDecryptedData(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: CFData,
                                      _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    let decrypted = key.isEC || algorithm.ecies != nil ? eciesDecrypt(key, algorithm, Data(ciphertext)) : rsaDecrypt(key, algorithm, Data(ciphertext))
    switch decrypted {
    case let .success(data): return data as NSData
    case let .failure(failure): report(failure.status, failure.message, to: error); return nil
    }
}

/// The algorithm the older API's SecPadding stands for (None → raw, PKCS1, OAEP → OAEP-SHA1).
func legacyAlgorithm(_ padding: SecPadding) -> SecKeyAlgorithm? {
    switch padding.rawValue {
    case SecPadding.none.rawValue: return .rsaEncryptionRaw
    case SecPadding.PKCS1.rawValue: return .rsaEncryptionPKCS1
    case SecPadding.OAEP.rawValue: return .rsaEncryptionOAEPSHA1
    default: return nil
    }
}

/// Copies `result` into a caller's buffer of `*length` bytes, as the older API does.
func copyOut(_ result: Result<Data, SecFailure>, _ buffer: UnsafeMutablePointer<UInt8>, _ length: UnsafeMutablePointer<Int>) -> OSStatus {
    switch result {
    case let .failure(failure): return failure.status
    case let .success(data):
        guard data.count <= length.pointee else { return errSecParam }  // "buffer too small", as Apple reports it
        data.copyBytes(to: buffer, count: data.count)
        length.pointee = data.count
        return errSecSuccess
    }
}

/// The older encryption call (iOS 2): SecPadding.PKCS1 or .OAEP (SHA-1); `cipherTextLen` is the
/// buffer size in and the ciphertext length out. Failures are OSStatus codes (errSecParam).
@discardableResult
public func SecKeyEncrypt(_ key: SecKey, _ padding: SecPadding, _ plainText: UnsafePointer<UInt8>, _ plainTextLen: Int,
                          _ cipherText: UnsafeMutablePointer<UInt8>, _ cipherTextLen: UnsafeMutablePointer<Int>) -> OSStatus {
    guard let algorithm = legacyAlgorithm(padding) else { return errSecParam }
    return copyOut(rsaEncrypt(key, algorithm, Data(bytes: plainText, count: plainTextLen)), cipherText, cipherTextLen)
}

/// The older decryption call seed 000 uses. As in iOS's current implementation (which wraps
/// SecKeyCreateDecryptedData), a padding failure is errSecParam, not errSSLCrypto.
@discardableResult
public func SecKeyDecrypt(_ key: SecKey, _ padding: SecPadding, _ cipherText: UnsafePointer<UInt8>, _ cipherTextLen: Int,
                          _ plainText: UnsafeMutablePointer<UInt8>, _ plainTextLen: UnsafeMutablePointer<Int>) -> OSStatus {
    guard let algorithm = legacyAlgorithm(padding) else { return errSecParam }
    return copyOut(rsaDecrypt(key, algorithm, Data(bytes: cipherText, count: cipherTextLen)), plainText, plainTextLen)
}

// MARK: - External representation

@discardableResult
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    do {
        let data = try key.externalRepresentation()
        if key.isPrivate { InMemoryKeychain.recordExport(data) }  // a key-storage audit looks for it where the app writes
        return data as NSData
    } catch {
        let refusal = error as? SecFailure
        report(refusal?.status ?? errSecInternalComponent, refusal?.message ?? "export failed: \(error)", to: errorOut)
        return nil
    }
}

/// Makes a key from iOS's external representation: kSecAttrKeyType RSA and kSecAttrKeyClass
/// public (PKCS#1 RSAPublicKey or X.509 SubjectPublicKeyInfo DER, as corecrypto's `ccrsa_import_pub`)
/// or private (PKCS#1 RSAPrivateKey DER). Anything else, PEM text or PKCS#8 included, is errSecParam
/// ("… creation from data failed: given <format>; … takes <formats>").
@discardableResult
public func SecKeyCreateWithData(_ keyData: CFData, _ attributes: CFDictionary,
                                 _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    switch secKey(from: Data(keyData), attributes: entries(of: attributes)) {
    case let .success(key): return key
    case let .failure(failure): report(failure.status, failure.message, to: error); return nil
    }
}

func secKey(from data: Data, attributes: [String: Any]) -> Result<SecKey, SecFailure> {
    guard let type = stringOrNumberAttribute(attributes[kSecAttrKeyType as String]) else { return .failure(SecFailure(errSecParam, "kSecAttrKeyType is missing")) }
    guard let keyClass = stringOrNumberAttribute(attributes[kSecAttrKeyClass as String]) else {
        return .failure(SecFailure(errSecParam, "kSecAttrKeyClass is missing"))
    }
    if keyClass == kSecAttrKeyClassSymmetric as String {
        return .failure(SecFailure(errSecUnimplemented, "Unsupported symmetric key type: \(type)"))
    }
    if isECKeyType(type) { return ecSecKey(from: data, keyClass: keyClass, attributes: attributes) }  // SecKeyEC.swift
    guard type == kSecAttrKeyTypeRSA as String else {
        return .failure(SecFailure(errSecUnimplemented, "key type \(type) is not provided here; only RSA and EC"))
    }
    let given = rsaKeyDataFormat(data)
    switch keyClass {
    case String(kSecAttrKeyClassPublic):
        // Apple's SecRSAKey.c (`SecRSAPublicKeyInit`, kSecKeyEncodingBytes) hands the bytes to corecrypto's
        // `ccrsa_import_pub`, which reads an X.509 SubjectPublicKeyInfo first (`ccder_decode_rsa_pub_x509`)
        // and a PKCS#1 RSAPublicKey second (`ccder_decode_rsa_pub`): both DER, no PEM.
        guard given == .spki || given == .pkcs1Public, let key = try? RSAPublicKey(importing: data) else {
            return .failure(SecFailure(errSecParam, "RSA public key creation from data failed: given \(given.name); kSecAttrKeyClassPublic takes "
                                       + "a PKCS#1 RSAPublicKey or an X.509 SubjectPublicKeyInfo (\"BEGIN PUBLIC KEY\"), as DER"))
        }
        return .success(SecKey(.rsaPublic(key), attributes: attributes))
    case String(kSecAttrKeyClassPrivate):
        // SecRSAKey.c (`SecRSAPrivateKeyInit`) → corecrypto's `ccrsa_import_priv`: PKCS#1 RSAPrivateKey DER only.
        guard given == .pkcs1Private, let key = try? RSAPrivateKey(importing: data) else {
            return .failure(SecFailure(errSecParam, "RSA private key creation from data failed: given \(given.name); kSecAttrKeyClassPrivate takes "
                                       + "a PKCS#1 RSAPrivateKey (\"BEGIN RSA PRIVATE KEY\"), as DER"))
        }
        return .success(SecKey(.rsaPrivate(key), attributes: attributes))
    default:
        return .failure(SecFailure(errSecParam, "Unsupported key class: \(keyClass)"))
    }
}

/// What RSA key bytes look like from their outer DER shape, to name in an error (the import decides).
enum RSAKeyDataFormat: Equatable {
    case pkcs1Public, spki, pkcs1Private, pkcs8, pem, empty, other

    var name: String {
        switch self {
        case .pkcs1Public: return "a PKCS#1 RSAPublicKey"
        case .spki: return "an X.509 SubjectPublicKeyInfo"
        case .pkcs1Private: return "a PKCS#1 RSAPrivateKey"
        case .pkcs8: return "a PKCS#8 PrivateKeyInfo"
        case .pem: return "PEM text (decode its base64 body to DER first)"
        case .empty: return "no bytes"
        case .other: return "bytes that are not an RSA key's DER"
        }
    }
}

/// RSAPublicKey is SEQUENCE { INTEGER n, INTEGER e }; SubjectPublicKeyInfo SEQUENCE { SEQUENCE, BIT
/// STRING }; RSAPrivateKey SEQUENCE { INTEGER 0, INTEGER n, … }; PKCS#8 SEQUENCE { INTEGER 0, SEQUENCE, … }.
func rsaKeyDataFormat(_ data: Data) -> RSAKeyDataFormat {
    let bytes = [UInt8](data.prefix(16))
    guard let first = bytes.first else { return .empty }
    if first == UInt8(ascii: "-") || String(decoding: data.prefix(64), as: UTF8.self).contains("-----BEGIN") { return .pem }
    guard first == 0x30, bytes.count >= 2 else { return .other }
    let header = bytes[1] < 0x80 ? 2 : 2 + Int(bytes[1] & 0x7f)
    guard header < bytes.count else { return .other }
    switch bytes[header] {
    case 0x30: return .spki
    case 0x02:
        let versionZero = header + 3 < bytes.count && Array(bytes[header..<header + 3]) == [0x02, 0x01, 0x00]
        guard versionZero else { return .pkcs1Public }
        return bytes[header + 3] == 0x30 ? .pkcs8 : .pkcs1Private
    default: return .other
    }
}
