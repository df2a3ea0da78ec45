import Foundation
internal import COpenSSL
internal import COpenSSLShims

/// Owns one `EVP_PKEY`. EVP_PKEY is reference counted and safe to share for encrypt/decrypt.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer
    private let lock = NSLock()
    private var spkiDER: Data?

    init(takingOwnershipOf pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    /// The public key as SubjectPublicKeyInfo DER, encoded once: an rsa-socket server sends it in
    /// every phone-to-pi conversation, and OpenSSL's encoder costs about a tenth of an RSA decryption.
    func subjectPublicKeyInfo() throws -> Data {
        lock.lock()
        if let spkiDER { lock.unlock(); return spkiDER }
        lock.unlock()
        let encoded = try encodeKey(self, selection: COpenSSLShims_EVP_PKEY_PUBLIC_KEY(), output: "DER", structure: "SubjectPublicKeyInfo")
        lock.lock(); spkiDER = encoded; lock.unlock()
        return encoded
    }
}

/// Keys imported before, by the SHA-256 of what they were imported from (and the passphrase), as
/// PythonRef's loaders remember theirs (`lru_cache`): servers import the same PEM for every
/// conversation, and a 2048-bit import plus the RSA blinding set-up a fresh key needs cost about
/// as much as the decryption itself. Holds the most recent `capacity` keys of each kind.
final class ImportedKeys<Key>: @unchecked Sendable {
    private let lock = NSLock()
    private var keys: [Data: Key] = [:]
    private var order: [Data] = []
    private let capacity = 128

    static func id(_ data: Data, passphrase: Data?) -> Data {
        Digest.sha256.hash(data + Data([passphrase == nil ? 0 : 1]) + (passphrase ?? Data()))
    }

    func key(_ id: Data) -> Key? {
        lock.lock(); defer { lock.unlock() }
        return keys[id]
    }

    func remember(_ key: Key, as id: Data) {
        lock.lock(); defer { lock.unlock() }
        if keys.updateValue(key, forKey: id) == nil { order.append(id) }
        if order.count > capacity { keys[order.removeFirst()] = nil }
    }
}

let importedRSAPrivateKeys = ImportedKeys<EVPKey>()
let importedRSAPublicKeys = ImportedKeys<EVPKey>()

/// Public-key encodings crosscheck reads and writes.
public enum RSAPublicKeyFormat: String, CaseIterable, Sendable {
    /// SubjectPublicKeyInfo PEM, `BEGIN PUBLIC KEY`, in the iOS client's byte layout.
    case spkiPEM = "spki-pem"
    /// SubjectPublicKeyInfo DER.
    case spkiDER = "spki-der"
    /// PKCS#1 RSAPublicKey PEM, `BEGIN RSA PUBLIC KEY`, same layout as `spkiPEM`.
    case pkcs1PEM = "pkcs1-pem"
    /// Bare PKCS#1 RSAPublicKey DER: what iOS `SecKeyCopyExternalRepresentation` gives.
    case pkcs1DER = "pkcs1-der"
}

/// Private-key encodings crosscheck writes (it reads all of them, and DER PKCS#8 too).
public enum RSAPrivateKeyFormat: String, CaseIterable, Sendable {
    /// PKCS#8 `BEGIN PRIVATE KEY`: OpenSSL 3 `genrsa` / `genpkey`.
    case pkcs8PEM = "pkcs8-pem"
    case pkcs8DER = "pkcs8-der"
    /// PKCS#1 `BEGIN RSA PRIVATE KEY`: OpenSSL 1.x `genrsa`, `openssl rsa -traditional`.
    case pkcs1PEM = "pkcs1-pem"
    /// Passphrase-encrypted PKCS#8 `BEGIN ENCRYPTED PRIVATE KEY` (PBES2, AES-256-CBC).
    case pkcs8EncryptedPEM = "pkcs8-pem-encrypted"
}

/// What both implementations report about a key, so the harness can compare them.
public struct RSAKeyInfo: Equatable, Sendable, CustomStringConvertible {
    /// The modulus as lowercase hex without leading zeros.
    public var modulusHex: String
    /// The public exponent, or 0 when it does not fit 63 bits (`publicExponentHex` always holds it).
    public var publicExponent: Int
    /// The public exponent as lowercase hex without leading zeros: what comparisons use, so that
    /// two exponents over 63 bits are never reported as the same `0`.
    public var publicExponentHex: String
    public var bits: Int
    public init(modulusHex: String, publicExponentHex: String, bits: Int) {
        self.modulusHex = modulusHex; self.publicExponentHex = publicExponentHex; self.bits = bits
        self.publicExponent = publicExponentHex.count <= 15 ? Int(publicExponentHex, radix: 16) ?? 0 : 0
    }
    public init(modulusHex: String, publicExponent: Int, bits: Int) {
        self.init(modulusHex: modulusHex, publicExponentHex: String(publicExponent, radix: 16), bits: bits)
    }
    public var description: String { "RSA-\(bits) e=\(publicExponent) n=\(modulusHex.prefix(16))…" }
}

/// An RSA public key.
public struct RSAPublicKey: Sendable {
    let key: EVPKey

    init(key: EVPKey) { self.key = key }

    /// Imports SPKI or PKCS#1, PEM or DER; PEM with or without a final newline, `\n` or `\r\n`.
    /// Private keys are refused: a peer that sends one has made a mistake worth reporting.
    public init(importing data: Data) throws {
        let id = ImportedKeys<EVPKey>.id(data, passphrase: nil)
        if let known = importedRSAPublicKeys.key(id) { self.key = known; return }
        let label = PEM.firstLabel(in: data)
        if let label, label != "PUBLIC KEY", label != "RSA PUBLIC KEY" {
            throw WireCryptoError.malformedKey(reason: "PEM label '\(label)' is not a public key label", stack: [])
        }
        // DER first, named before OpenSSL reads it: its decoders take some BER and read its oddities
        // into other numbers (a BIT STRING with unused bits shifts e), which the number check would
        // misname; and pyca's newer decoders refuse them in words of their own.
        let der = try label.map { try PEM.body(of: data, label: $0) } ?? data
        if let (defect, offset) = derDefect([UInt8](der)) {
            throw WireCryptoError.malformedKey(reason: "not DER (X.690 §10): \(defect) at byte \(offset)", stack: [])
        }
        self.key = try decodeKey(data, selection: COpenSSLShims_EVP_PKEY_PUBLIC_KEY(), passphrase: nil)
        try requireDER(der, reencodings: [(der.first == 0x30 && firstInnerTag(of: der) == 0x30) ? "SubjectPublicKeyInfo" : "type-specific"],
                       of: key, selection: COpenSSLShims_EVP_PKEY_PUBLIC_KEY())
        try requireValidRSANumbers(key)
        importedRSAPublicKeys.remember(key, as: id)
    }

    /// Imports a PEM string (`BEGIN PUBLIC KEY` or `BEGIN RSA PUBLIC KEY`).
    public init(pemRepresentation: String) throws { try self.init(importing: Data(pemRepresentation.utf8)) }

    /// The modulus size in bits.
    public var bits: Int { Int(EVP_PKEY_get_bits(key.pointer)) }
    /// k: the modulus length in bytes, which is also every ciphertext's length.
    public var modulusByteCount: Int { Int(EVP_PKEY_get_size(key.pointer)) }
    public var info: RSAKeyInfo { keyInfo(key) }

    /// The key in `format`; `spkiPEM` is byte-for-byte what the iOS client sends.
    public func exported(_ format: RSAPublicKeyFormat) throws -> Data {
        switch format {
        case .spkiDER: return try key.subjectPublicKeyInfo()
        case .pkcs1DER: return try encodeKey(key, selection: COpenSSLShims_EVP_PKEY_PUBLIC_KEY(), output: "DER", structure: "type-specific")
        case .spkiPEM: return PEM.iOSStyle(label: "PUBLIC KEY", der: try exported(.spkiDER))
        case .pkcs1PEM: return PEM.iOSStyle(label: "RSA PUBLIC KEY", der: try exported(.pkcs1DER))
        }
    }
}

/// An RSA private key (with its public half).
public struct RSAPrivateKey: Sendable {
    let key: EVPKey

    /// Generates a fresh key; `bits` from 1024 (weak, but the seed uses it) to 16384.
    public init(bits: Int) throws {
        guard (1024...16384).contains(bits) else {
            throw WireCryptoError.unsupported("RSA key size \(bits) bits (use 1024 to 16384)")
        }
        self = try RSATestKeyCache.key(bits: bits, kind: "openssl") { try RSAPrivateKey(generating: bits) }
    }

    /// Generates a fresh key of 512 to 16384 bits: what iOS's SecKeyCreateRandomKey makes (from 512,
    /// broken as that is), for the Security module only; everything else uses `init(bits:)`.
    public init(appleGeneratorBits bits: Int) throws {
        guard (512...16384).contains(bits) else {
            throw WireCryptoError.unsupported("RSA key size \(bits) bits (use 512 to 16384)")
        }
        self = try RSATestKeyCache.key(bits: bits, kind: "apple") { try RSAPrivateKey(generating: bits) }
    }

    /// A key OpenSSL makes now (e = 65537), whatever the test key cache holds.
    private init(generating bits: Int) throws {
        guard let pointer = COpenSSLShims_EVP_RSA_gen(UInt32(bits)) else { throw openSSLFailure("EVP_RSA_gen") }
        self.key = EVPKey(takingOwnershipOf: pointer)
    }

    /// Imports PKCS#8 (PEM or DER), PKCS#1 PEM, or encrypted PKCS#8 with `passphrase`.
    public init(importing data: Data, passphrase: Data? = nil) throws {
        let id = ImportedKeys<EVPKey>.id(data, passphrase: passphrase)
        if let known = importedRSAPrivateKeys.key(id) { self.key = known; return }
        let label = PEM.firstLabel(in: data)
        if let label, !["PRIVATE KEY", "RSA PRIVATE KEY", "ENCRYPTED PRIVATE KEY"].contains(label) {
            throw WireCryptoError.malformedKey(reason: "PEM label '\(label)' is not a private key label", stack: [])
        }
        // A PEM block is read as its DER (PEM.body: `\r`/`\n` dropped, strict base64), as PythonRef
        // reads it: OpenSSL's two PEM readers (the decoder here, PEM_read_bio in pyca) treat damaged
        // blocks differently (found by `crosscheck fuzz`). Only legacy PEM with headers (`Proc-Type:`,
        // OpenSSL 1.x `genrsa -aes256`) goes to OpenSSL's PEM reader, which decrypts it.
        let legacyPEM = Self.isLegacyPEM(data, label: label)
        let der = legacyPEM ? nil : try label.map { try PEM.body(of: data, label: $0) } ?? data
        let encrypted = legacyPEM || der.map(Self.isEncryptedPrivateKeyInfo) ?? false
        // As PythonRef (pyca) does: a passphrase for a key that is not encrypted is a caller's mistake.
        if let passphrase, !passphrase.isEmpty, !encrypted {
            throw WireCryptoError.malformedKey(reason: "a passphrase was given for a private key that is not encrypted", stack: [])
        }
        // Encrypted PKCS#8 and no passphrase (an empty one means none, as in PythonRef): it cannot be
        // opened, so OpenSSL's decoders are not asked (they refuse too, after ~1,000 allocations).
        // With the first inner element a SEQUENCE, no other private-key structure can decode.
        if encrypted, !legacyPEM, passphrase?.isEmpty ?? true {
            throw WireCryptoError.wrongPassphrase
        }
        if let der, !encrypted, let (defect, offset) = derDefect([UInt8](der)) {
            throw WireCryptoError.malformedKey(reason: "not DER (X.690 §10): \(defect) at byte \(offset)", stack: [])
        }
        do {
            if let der {
                self.key = try decodeKey(der, selection: COpenSSLShims_EVP_PKEY_KEYPAIR(), inputType: "DER", structure: nil, passphrase: passphrase,
                                         isPEM: label != nil)
            } else {
                self.key = try decodeKey(data, selection: COpenSSLShims_EVP_PKEY_KEYPAIR(), passphrase: passphrase)
            }
        } catch WireCryptoError.malformedKey(let reason, let stack) where encrypted {
            // OpenSSL reports a wrong passphrase as "unsupported"/"bad decrypt"; name it plainly.
            _ = (reason, stack)
            throw WireCryptoError.wrongPassphrase
        }
        // An encrypted key's DER is the encryption's; its inner key cannot be compared (OpenSSL
        // decrypts it internally), so only its numbers are checked.
        if let der, !encrypted {
            try requireRSAPrivateKeyVersion(der)
            try requireDER(der, reencodings: ["PrivateKeyInfo", "type-specific"], of: key, selection: COpenSSLShims_EVP_PKEY_KEYPAIR())
        }
        try requireValidRSANumbers(key)
        try checkPrivateKey(key)
        importedRSAPrivateKeys.remember(key, as: id)
    }

    public init(pemRepresentation: String, passphrase: Data? = nil) throws {
        try self.init(importing: Data(pemRepresentation.utf8), passphrase: passphrase)
    }

    /// Whether `data` is a passphrase-encrypted private key, as `init(importing:passphrase:)` tells:
    /// legacy PEM with `Proc-Type:` headers, or EncryptedPrivateKeyInfo, PEM or DER.
    public static func isEncrypted(_ data: Data) -> Bool {
        let label = PEM.firstLabel(in: data)
        if isLegacyPEM(data, label: label) { return true }
        guard let der = label.map({ try? PEM.body(of: data, label: $0) }) ?? data else { return false }
        return isEncryptedPrivateKeyInfo(der)
    }

    /// OpenSSL 1.x `genrsa -aes256`: PEM whose headers name the encryption.
    static func isLegacyPEM(_ data: Data, label: String?) -> Bool {
        label != nil && String(decoding: data.prefix(512), as: UTF8.self).contains("Proc-Type:")
    }

    /// EncryptedPrivateKeyInfo is SEQUENCE { SEQUENCE algorithm, OCTET STRING }: its first inner
    /// element is a SEQUENCE, which no plain private-key structure has.
    static func isEncryptedPrivateKeyInfo(_ der: Data) -> Bool { firstInnerTag(of: der) == 0x30 }

    public var publicKey: RSAPublicKey { RSAPublicKey(key: key) }
    public var bits: Int { Int(EVP_PKEY_get_bits(key.pointer)) }
    public var modulusByteCount: Int { Int(EVP_PKEY_get_size(key.pointer)) }
    public var info: RSAKeyInfo { keyInfo(key) }

    /// The key in `format`. `passphrase` is required for `pkcs8EncryptedPEM` and ignored otherwise.
    public func exported(_ format: RSAPrivateKeyFormat, passphrase: Data? = nil) throws -> Data {
        switch format {
        case .pkcs8PEM: return try encodeKey(key, selection: COpenSSLShims_EVP_PKEY_KEYPAIR(), output: "PEM", structure: "PrivateKeyInfo")
        case .pkcs8DER: return try encodeKey(key, selection: COpenSSLShims_EVP_PKEY_KEYPAIR(), output: "DER", structure: "PrivateKeyInfo")
        case .pkcs1PEM: return try encodeKey(key, selection: COpenSSLShims_EVP_PKEY_KEYPAIR(), output: "PEM", structure: "type-specific")
        case .pkcs8EncryptedPEM:
            guard let passphrase, !passphrase.isEmpty else {
                throw WireCryptoError.unsupported("an encrypted private key export without a passphrase")
            }
            return try encodeKey(key, selection: COpenSSLShims_EVP_PKEY_KEYPAIR(), output: "PEM",
                                 structure: "EncryptedPrivateKeyInfo", passphrase: passphrase)
        }
    }
}

// MARK: - What a key must be (docs/PROTOCOL.md, "Padding and keys")

/// A key is a valid RSA key or it is refused before anything is encrypted to it. RFC 8017 §3.1: the
/// modulus n is a product of distinct odd primes (so odd), the public exponent e is an integer with
/// 3 ≤ e ≤ n − 1 and gcd(e, λ(n)) = 1 (λ(n) is even, so e is odd). Encrypting to e = 1 is the
/// identity: the "ciphertext" is the padded message in the clear. The floor of 1024 bits is the
/// protocol's (docs/PROTOCOL.md): the seed's own size, and what OpenSSL's default security level
/// still accepts. Checked on the numbers OpenSSL decoded, the same rule as PythonRef's
/// `rsa_keys._require_valid_numbers`.
func requireValidRSANumbers(_ key: EVPKey) throws {
    guard let n = bigNumber(key, "n"), let e = bigNumber(key, "e") else {
        throw WireCryptoError.malformedKey(reason: "the key has no RSA modulus and exponent", stack: OpenSSLError.drainQueue())
    }
    defer { BN_free(n); BN_free(e) }
    if let defect = rsaNumbersDefect(n: n, e: e) {
        throw WireCryptoError.malformedKey(reason: defect, stack: [])
    }
}

/// What is wrong with (n, e) as an RSA public key, in words a person can act on, or nil.
private func rsaNumbersDefect(n: OpaquePointer, e: OpaquePointer) -> String? {
    let rule = "RFC 8017 §3.1 needs an odd e with 3 ≤ e < n"
    if BN_is_negative(e) != 0 { return "e is negative: no RSA key (\(rule))" }
    if BN_is_zero(e) != 0 { return "e = 0: no RSA key (\(rule))" }
    if BN_is_one(e) != 0 { return "e = 1: no RSA key (encrypting to it sends the message in the clear; \(rule))" }
    if BN_is_odd(e) == 0 { return "e = \(bigNumberText(e)) is even: no RSA key (\(rule))" }
    if BN_is_negative(n) != 0 || BN_is_zero(n) != 0 { return "the modulus n is not positive: no RSA key (RFC 8017 §3.1)" }
    if BN_is_odd(n) == 0 { return "the modulus n is even: no RSA key (RFC 8017 §3.1: n is a product of odd primes)" }
    let bits = Int(BN_num_bits(n))
    if bits < 1024 { return "the modulus has \(bits) bits: below the 1024 bits the protocol requires (docs/PROTOCOL.md)" }
    if BN_cmp(e, n) >= 0 { return "e is not below n: no RSA key (\(rule))" }
    return nil
}

/// DER as DER (X.690 §10): what was accepted must re-encode to exactly the bytes given, in one of
/// the structures `reencodings` names (OpenSSL's encoder structure names). This refuses every BER
/// form OpenSSL's decoders let through (non-minimal and indefinite lengths, INTEGERs with leading
/// zeros or a sign, a BIT STRING with unused bits, absent or non-NULL rsaEncryption parameters,
/// other version numbers) with one rule instead of a list; PythonRef's `_require_der` is the same.
func requireDER(_ der: Data, reencodings: [String], of key: EVPKey, selection: Int32) throws {
    func agreeing(_ encoded: Data) -> Int {
        zip(der, encoded).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(der.count, encoded.count)
    }
    var canonical = Data()
    for structure in reencodings {
        let encoded = try encodeKey(key, selection: selection, output: "DER", structure: structure)
        if encoded == der { return }
        // The structure that was meant: the longest common prefix.
        if canonical.isEmpty || agreeing(encoded) > agreeing(canonical) { canonical = encoded }
    }
    // The TLV rules `derDefect` names were checked before the key was decoded; what is left is
    // what only the re-encoding shows.
    throw WireCryptoError.malformedKey(
        reason: "not DER (X.690 §10): it re-encodes to other bytes from byte \(agreeing(canonical)) on (\(der.count) bytes given, "
            + "\(canonical.count) in DER: missing or other algorithm parameters, or another version)", stack: [])
}

/// The first X.690 §10 (DER) rule the TLV tree at `der` breaks, and where: the words a person needs
/// instead of "re-encodes to other bytes". The importers check it before decoding; `requireDER`
/// decides what it cannot see. PythonRef's `_der_defect` gives the same words.
func derDefect(_ der: [UInt8]) -> (String, Int)? {
    func walk(_ from: Int, _ to: Int, depth: Int) -> (String, Int)? {
        var index = from
        while index < to {
            guard depth < 16, index + 2 <= to else { return nil }
            let tag = der[index], first = der[index + 1]
            var length = Int(first), start = index + 2
            if first == 0x80 { return ("an indefinite length (BER)", index + 1) }
            if first & 0x80 != 0 {
                let count = Int(first & 0x7f)
                guard count >= 1, count <= 4, start + count <= to else { return nil }
                length = der[start..<(start + count)].reduce(0) { $0 << 8 | Int($1) }
                if der[start] == 0 || length < 0x80 { return ("a length in more bytes than it needs", index + 1) }
                start += count
            }
            let end = start + length
            guard end <= to else { return nil }
            switch tag {
            case 0x02:
                guard length > 0 else { return ("an empty INTEGER", index) }
                if length > 1, (der[start] == 0 && der[start + 1] & 0x80 == 0) || (der[start] == 0xff && der[start + 1] & 0x80 != 0) {
                    return ("an INTEGER with a redundant leading byte", start)
                }
                if der[start] & 0x80 != 0 { return ("a negative INTEGER (a key's numbers are positive)", start) }
            case 0x03:
                guard length > 0 else { return ("an empty BIT STRING", index) }
                if der[start] != 0 { return ("a BIT STRING with \(der[start]) unused bits (a key's BIT STRING has none)", start) }
                if let inner = walk(start + 1, end, depth: depth + 1) { return inner }
            case 0x04:
                if let inner = walk(start, end, depth: depth + 1) { return inner }
            default:
                if tag & 0x20 != 0, let inner = walk(start, end, depth: depth + 1) { return inner }
            }
            index = end
        }
        return nil
    }
    return walk(0, der.count, depth: 0)
}

/// RFC 8017 A.1.2: RSAPrivateKey's version "SHALL be 0 …, unless multi-prime is used, in which
/// case it SHALL be 1". OpenSSL keeps any other version it reads and writes it back (rsa_asn1.c's
/// callback checks only version 1), so re-encoding cannot catch it. `der` is a PKCS#8
/// PrivateKeyInfo or a PKCS#1 RSAPrivateKey that `requireDER` has found to be DER. The same rule
/// as PythonRef's `_require_private_version`.
func requireRSAPrivateKeyVersion(_ der: Data) throws {
    let bytes = [UInt8](der)
    func element(at index: Int) -> DERElement? { DERElement(bytes, at: index) }
    guard let outer = element(at: 0), let version = element(at: outer.start), let second = element(at: version.end) else { return }
    var rsaVersion = version
    if second.tag == 0x30 {  // PKCS#8: version, algorithm, OCTET STRING { RSAPrivateKey }
        guard let octets = element(at: second.end), octets.tag == 0x04, let inner = element(at: octets.start),
              let innerVersion = element(at: inner.start) else { return }
        rsaVersion = innerVersion
    }
    let value = bytes[rsaVersion.start..<rsaVersion.end]
    guard rsaVersion.tag == 0x02, value.count == 1, value.first! <= 1 else {
        throw WireCryptoError.malformedKey(
            reason: "the RSAPrivateKey version is \(value.count == 1 ? String(Int8(bitPattern: value.first!)) : "0x" + value.map { String(format: "%02x", $0) }.joined()), "
                + "not 0 (two primes) or 1 (more): RFC 8017 A.1.2", stack: [])
    }
}

/// One DER element's tag and where its content lies in `bytes` (definite lengths of 1 to 4 bytes),
/// or nil when it does not fit: for reading the shape of key DER the importers already judged.
struct DERElement {
    let tag: UInt8
    let start: Int
    let end: Int

    init?(_ bytes: [UInt8], at index: Int) {
        guard index >= 0, index + 2 <= bytes.count else { return nil }
        var length = Int(bytes[index + 1]), start = index + 2
        if length & 0x80 != 0 {
            let count = length & 0x7f
            guard (1...4).contains(count), start + count <= bytes.count else { return nil }
            length = bytes[start..<(start + count)].reduce(0) { $0 << 8 | Int($1) }
            start += count
        }
        guard start + length <= bytes.count else { return nil }
        (tag, self.start, end) = (bytes[index], start, start + length)
    }
}

private func bigNumber(_ key: EVPKey, _ name: String) -> OpaquePointer? {
    var number: OpaquePointer? = nil
    guard EVP_PKEY_get_bn_param(key.pointer, name, &number) == 1 else { return nil }
    return number
}

/// A number in decimal when it is short, else in hex.
private func bigNumberText(_ number: OpaquePointer) -> String {
    let text = BN_num_bits(number) <= 64 ? BN_bn2dec(number) : BN_bn2hex(number)
    guard let text else { return "?" }
    defer { COpenSSLShims_OPENSSL_free(text) }
    return (BN_num_bits(number) <= 64 ? "" : "0x") + String(cString: text).lowercased()
}

/// Checks an imported private key's numbers (p and q prime, n = pq, d, the CRT values), as pyca
/// does on every load (RSA_check_key): a key with a corrupted CRT value decrypts to garbage and
/// must be refused, not used (found by `crosscheck fuzz`). The check costs as much as pyca's
/// (≈ 9 ms at 1024 bits, 45 ms at 2048, 0.4 s at 4096); `ImportedKeys` remembers keys that passed.
private func checkPrivateKey(_ key: EVPKey) throws {
    // The arithmetic the full check also verifies, first: a damaged key (the fuzzers make many)
    // fails it in microseconds instead of after the primality tests of its factors.
    if let inconsistency = crtInconsistency(key) {
        throw WireCryptoError.malformedKey(reason: "the private key's numbers are inconsistent (\(inconsistency))", stack: [])
    }
    guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else { throw openSSLFailure("EVP_PKEY_CTX_new_from_pkey") }
    defer { EVP_PKEY_CTX_free(context) }
    guard EVP_PKEY_check(context) == 1 else {
        throw WireCryptoError.malformedKey(reason: "the private key's numbers are inconsistent (OpenSSL's RSA key check fails)",
                                           stack: OpenSSLError.drainQueue())
    }
}

/// Which of RSA_check_key's arithmetic conditions a two-prime key breaks (n = p·q, dP = d mod (p−1),
/// dQ = d mod (q−1), qInv·q ≡ 1 mod p), or nil when they hold or cannot be read (multi-prime keys,
/// missing CRT values: then only the full check decides). Only conditions the full check also
/// requires, so this never refuses a key it would accept.
private func crtInconsistency(_ key: EVPKey) -> String? {
    var numbers: [OpaquePointer] = []
    defer { numbers.forEach { BN_clear_free($0) } }
    for name in ["n", "d", "rsa-factor1", "rsa-factor2", "rsa-exponent1", "rsa-exponent2", "rsa-coefficient1"] {
        var number: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(key.pointer, name, &number) == 1, let number else {
            OpenSSLError.drainQueue()
            return nil
        }
        numbers.append(number)
    }
    var factor3: OpaquePointer? = nil
    if EVP_PKEY_get_bn_param(key.pointer, "rsa-factor3", &factor3) == 1 { BN_clear_free(factor3); return nil }
    OpenSSLError.drainQueue()
    let (n, d, p, q, dP, dQ, qInv) = (numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], numbers[5], numbers[6])
    guard let context = BN_CTX_new(), let scratch = BN_new(), let reduced = BN_new() else { return nil }
    defer { BN_CTX_free(context); BN_clear_free(scratch); BN_clear_free(reduced) }
    guard BN_mul(scratch, p, q, context) == 1 else { return nil }
    if BN_cmp(scratch, n) != 0 { return "n is not p·q" }
    for (factor, exponent, name) in [(p, dP, "dP is not d mod (p−1)"), (q, dQ, "dQ is not d mod (q−1)")] {
        guard BN_copy(scratch, factor) != nil, BN_sub_word(scratch, 1) == 1, BN_is_zero(scratch) == 0,
              BN_div(nil, reduced, d, scratch, context) == 1 else { return nil }
        if BN_cmp(reduced, exponent) != 0 { return name }
    }
    guard BN_is_zero(p) == 0, BN_mod_mul(scratch, qInv, q, p, context) == 1 else { return nil }
    if BN_is_one(scratch) != 1 { return "qInv·q is not 1 mod p" }
    return nil
}

// MARK: - OpenSSL encoder/decoder plumbing

private func decodeKey(_ data: Data, selection: Int32, passphrase: Data?) throws -> EVPKey {
    guard !data.isEmpty else { throw WireCryptoError.malformedKey(reason: "no key bytes", stack: []) }
    // A public-key PEM label names one structure: decode its body as exactly that DER, so SPKI
    // under `RSA PUBLIC KEY` (a client bug crosscheck must catch) is refused.
    if selection == COpenSSLShims_EVP_PKEY_PUBLIC_KEY(), let label = PEM.firstLabel(in: data) {
        let der = try PEM.body(of: data, label: label)
        // SPKI is SEQUENCE { SEQUENCE algorithm, BIT STRING }; PKCS#1 is SEQUENCE { INTEGER n, INTEGER e }.
        // OpenSSL's decoders accept either body under either label, so the shape is checked here.
        let expectedTag: UInt8 = label == "PUBLIC KEY" ? 0x30 : 0x02
        guard firstInnerTag(of: der) == expectedTag else {
            throw WireCryptoError.malformedKey(reason: "the '\(label)' PEM block holds \(label == "PUBLIC KEY" ? "a PKCS#1 RSAPublicKey" : "a SubjectPublicKeyInfo"), not what its label says", stack: [])
        }
        return try decodeKey(der, selection: selection, inputType: "DER", structure: nil, passphrase: nil, isPEM: true)
    }
    // Not PEM by PEM.firstLabel's rule: DER only (OpenSSL would otherwise find a PEM block further in).
    let isPEM = PEM.firstLabel(in: data) != nil
    return try decodeKey(data, selection: selection, inputType: isPEM ? nil : "DER", structure: nil, passphrase: passphrase,
                         isPEM: isPEM)
}

private func decodeKey(_ data: Data, selection: Int32, inputType: String?, structure: String?, passphrase: Data?,
                       isPEM: Bool) throws -> EVPKey {
    // DER must be one structure (docs/PROTOCOL.md), checked as PythonRef checks it before pyca does
    // anything (`_require_one_structure`): so a malformed one never reaches OpenSSL's decoders,
    // whose set-up alone costs ~100,000 instructions per key.
    // A public key's SPKI must also name rsaEncryption, checked on the same bytes.
    if inputType == "DER" {
        try requireOneStructure(data)
        if selection == COpenSSLShims_EVP_PKEY_PUBLIC_KEY() { try requireRSAEncryptionSPKI(data) }
    }
    // OpenSSL 3.0 keeps the input-type and structure pointers (OSSL_DECODER_CTX_set_input_type stores
    // them, it does not copy), so the C strings must outlive the whole decode, not just the
    // constructor call: a temporary would be read after it is gone (found by `crosscheck fuzz`).
    return try withOptionalCString(inputType) { inputTypeName in
        try withOptionalCString(structure) { structureName in
            try "RSA".withCString { keyType in
                try decodeKey(data, selection: selection, inputTypeName: inputTypeName, structureName: structureName,
                              keyType: keyType, inputType: inputType, passphrase: passphrase, isPEM: isPEM)
            }
        }
    }
}

private func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) throws -> R) rethrows -> R {
    guard let text else { return try body(nil) }
    return try text.withCString { try body($0) }
}

private func decodeKey(_ data: Data, selection: Int32, inputTypeName: UnsafePointer<CChar>?, structureName: UnsafePointer<CChar>?,
                       keyType: UnsafePointer<CChar>, inputType: String?, passphrase: Data?, isPEM: Bool) throws -> EVPKey {
    var pkey: OpaquePointer? = nil
    guard let context = OSSL_DECODER_CTX_new_for_pkey(&pkey, inputTypeName, structureName, keyType, selection, nil, nil) else {
        throw openSSLFailure("OSSL_DECODER_CTX_new_for_pkey")
    }
    defer { OSSL_DECODER_CTX_free(context) }
    if let passphrase {
        let status = passphrase.withUnsafeBytes {
            OSSL_DECODER_CTX_set_passphrase(context, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count)
        }
        guard status == 1 else { throw openSSLFailure("OSSL_DECODER_CTX_set_passphrase") }
    } else {
        // Without this OpenSSL would prompt on the terminal for an encrypted key's passphrase.
        OSSL_DECODER_CTX_set_pem_password_cb(context, COpenSSLShims_refuse_passphrase, nil)
    }
    var remaining = data.count
    let status = data.withUnsafeBytes { buffer -> Int32 in
        var cursor: UnsafePointer<UInt8>? = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
        return OSSL_DECODER_from_data(context, &cursor, &remaining)
    }
    guard status == 1, let pkey else {
        let stack = OpenSSLError.drainQueue()
        if let pkey { EVP_PKEY_free(pkey) }
        throw WireCryptoError.malformedKey(reason: isPEM ? "the PEM block does not decode to an RSA key"
                                                         : "the DER does not decode to an RSA key", stack: stack)
    }
    let owned = EVPKey(takingOwnershipOf: pkey)
    // DER must be exactly one structure; trailing bytes mean the framing around it is wrong.
    if inputType == "DER" || !isPEM, remaining != 0 {
        throw WireCryptoError.malformedKey(reason: "\(remaining) bytes follow the DER structure", stack: [])
    }
    OpenSSLError.drainQueue()  // decoders leave notes from the formats they tried first
    return owned
}

/// Refuses DER that is not exactly one structure: the outer element's length (BER forms included:
/// long form of 1 to 4 bytes, indefinite length followed element by element to its end-of-contents)
/// must fit the data and reach its end. The same rule as PythonRef's `_tlv_end`.
func requireOneStructure(_ der: Data) throws {
    let end = try der.withUnsafeBytes { try structureEnd(of: $0.bindMemory(to: UInt8.self), at: 0, depth: 0) }
    if end != der.count {
        throw WireCryptoError.malformedKey(reason: "\(der.count - end) bytes follow the DER structure", stack: [])
    }
}

/// Where the element at `offset` ends.
private func structureEnd(of der: UnsafeBufferPointer<UInt8>, at offset: Int, depth: Int) throws -> Int {
    let malformed = WireCryptoError.malformedKey(reason: "DER with a malformed length", stack: [])
    guard depth <= 32, offset + 2 <= der.count, der[offset] & 0x1f != 0x1f else { throw malformed }
    var size = Int(der[offset + 1]), position = offset + 2
    if size == 0x80 {
        // Indefinite length: elements until the end-of-contents octets 00 00.
        while !(position + 2 <= der.count && der[position] == 0 && der[position + 1] == 0) {
            guard position < der.count else { throw malformed }
            position = try structureEnd(of: der, at: position, depth: depth + 1)
        }
        return position + 2
    }
    if size & 0x80 != 0 {
        let count = size & 0x7f
        guard (1...4).contains(count), position + count <= der.count else { throw malformed }
        size = der[position..<(position + count)].reduce(0) { $0 << 8 | Int($1) }
        position += count
    }
    guard position + size <= der.count else {
        throw WireCryptoError.malformedKey(reason: "the DER structure is longer than the data", stack: [])
    }
    return position + size
}

/// An SPKI must name rsaEncryption (docs/PROTOCOL.md; an RSASSA-PSS key is `BadKey`): checked as
/// PythonRef checks it (`_require_rsa_encryption_spki`), on the bytes, after the structure check
/// (`requireOneStructure`, which the caller has made) and before OpenSSL's decoders. PKCS#1 (first
/// inner element an INTEGER) has no algorithm to check.
func requireRSAEncryptionSPKI(_ der: Data) throws {
    let bytes = [UInt8](der)
    guard bytes.count >= 2 else { return }
    let header = bytes[1] < 0x80 ? 2 : 2 + Int(bytes[1] & 0x7f)
    guard header < bytes.count, bytes[header] == 0x30 else { return }
    let inner = bytes[header...]
    let algorithm = inner.count > 1 && inner[header + 1] < 0x80 ? 2 : 2 + (inner.count > 1 ? Int(inner[header + 1] & 0x7f) : 0)
    let rsaEncryption: [UInt8] = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01]
    guard inner.dropFirst(algorithm).starts(with: rsaEncryption) else {
        throw WireCryptoError.malformedKey(reason: "not an RSA encryption key: the SubjectPublicKeyInfo algorithm is not rsaEncryption", stack: [])
    }
}

/// The tag of the first element inside a DER SEQUENCE, or nil if `der` is not a SEQUENCE.
private func firstInnerTag(of der: Data) -> UInt8? {
    let bytes = [UInt8](der.prefix(8))
    guard bytes.count >= 3, bytes[0] == 0x30 else { return nil }
    let header = bytes[1] < 0x80 ? 2 : 2 + Int(bytes[1] & 0x7f)
    return header < bytes.count ? bytes[header] : nil
}

func encodeKey(_ key: EVPKey, selection: Int32, output: String, structure: String,
                       passphrase: Data? = nil) throws -> Data {
    // OpenSSL 3.0 keeps the output-type and structure pointers (it does not copy them), so the
    // C strings must outlive the whole encode, not just the constructor call.
    try output.withCString { outputName in
        try structure.withCString { structureName in
            try encodeKey(key, selection: selection, outputName: outputName, structureName: structureName,
                          description: "\(output), \(structure)", passphrase: passphrase)
        }
    }
}

private func encodeKey(_ key: EVPKey, selection: Int32, outputName: UnsafePointer<CChar>,
                       structureName: UnsafePointer<CChar>, description: String, passphrase: Data?) throws -> Data {
    guard let context = OSSL_ENCODER_CTX_new_for_pkey(key.pointer, selection, outputName, structureName, nil) else {
        throw openSSLFailure("OSSL_ENCODER_CTX_new_for_pkey(\(description))")
    }
    defer { OSSL_ENCODER_CTX_free(context) }
    if let passphrase {
        guard OSSL_ENCODER_CTX_set_cipher(context, "AES-256-CBC", nil) == 1 else {
            throw openSSLFailure("OSSL_ENCODER_CTX_set_cipher")
        }
        let status = passphrase.withUnsafeBytes {
            OSSL_ENCODER_CTX_set_passphrase(context, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count)
        }
        guard status == 1 else { throw openSSLFailure("OSSL_ENCODER_CTX_set_passphrase") }
    }
    var out: UnsafeMutablePointer<UInt8>? = nil
    var length = 0
    guard OSSL_ENCODER_to_data(context, &out, &length) == 1, let out else {
        throw openSSLFailure("OSSL_ENCODER_to_data(\(description))")
    }
    defer { COpenSSLShims_OPENSSL_free(out) }
    return Data(bytes: out, count: length)
}

private func keyInfo(_ key: EVPKey) -> RSAKeyInfo {
    func hex(_ name: String) -> String {
        var bignum: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(key.pointer, name, &bignum) == 1, let bignum else { return "" }
        defer { BN_free(bignum) }
        guard let text = BN_bn2hex(bignum) else { return "" }
        defer { COpenSSLShims_OPENSSL_free(text) }
        let trimmed = String(cString: text).lowercased().drop { $0 == "0" }
        return trimmed.isEmpty ? "0" : String(trimmed)
    }
    return RSAKeyInfo(modulusHex: hex("n"), publicExponentHex: hex("e"), bits: Int(EVP_PKEY_get_bits(key.pointer)))
}

// Toy keys (RSAToyKeys.swift) decoded without the 1024-bit floor `requireValidRSANumbers` keeps:
// only from DER built here of numbers already checked there.
extension RSAPrivateKey {
    init(decodingToyPKCS1 der: Data) throws {
        self.key = try decodeKey(der, selection: COpenSSLShims_EVP_PKEY_KEYPAIR(), inputType: "DER", structure: "type-specific",
                                 passphrase: nil, isPEM: false)
        try checkPrivateKey(key)
    }
}

extension RSAPublicKey {
    init(decodingToySPKI der: Data) throws {
        self.init(key: try decodeKey(der, selection: COpenSSLShims_EVP_PKEY_PUBLIC_KEY(), inputType: "DER", structure: "SubjectPublicKeyInfo",
                                     passphrase: nil, isPEM: false))
    }
}
