import Foundation
import StrictFormats
import WireCrypto

/// One value of a description (docs/PROTOCOL-DESCRIPTIONS.md, "Values"): an inline table with one
/// kind key and its qualifiers. `keyPath` and `line` say where it was written.
public struct DescribedValue: Sendable, Equatable {
    public indirect enum Kind: Sendable, Equatable {
        case text(String)
        case concat([DescribedValue])
        case publicKey(String, format: PublicKeyFormat, encoding: ValueEncoding)
        case rsa(String, padding: RSAPaddingName, carries: Carries, encoding: ValueEncoding)
        case sealed(Sealed)
        case secret(String, encoding: ValueEncoding)
        case digest(encoding: ValueEncoding)
        case json([DescribedField])
        case config(String)
        case token(TokenUse)
        case nonceOf(String, encoding: ValueEncoding)
        case tagOf(String, encoding: ValueEncoding)
        /// The conversation's message in the clear (`plain = "message"`).
        case plain(encoding: ValueEncoding)
        /// The byte length of the conversation's message as a big-endian integer of `bytes` bytes
        /// (`length_of = "message"`): a length field sent before a ciphertext padded with spaces.
        case lengthOf(bytes: Int)
        /// In a `concat`: the byte length of the next part, a big-endian integer of `bytes` bytes
        /// (`length_of = "next"`: a length prefix inside the message).
        case lengthOfNext(bytes: Int)
        /// Fields URL-encoded as `name=value&…` (an HTML form body, or a request's query string).
        case form([DescribedField])
        /// In a `json` or `form`: a MAC under secret S over the text of sibling field `of`, as sent.
        case mac(String, algorithm: MACAlgorithm, of: String, encoding: ValueEncoding)
        /// In a `json` or `form`: a signature by key K's private half over the text of sibling field `of`, as sent.
        case signature(String, algorithm: SignatureAlgorithm, of: String, format: SignatureFormat, encoding: ValueEncoding)
        /// A tcp conversation's `error`/`errors` value, whole: text that begins so (the rest varies with
        /// the reason); a server built from the description sends just the beginning.
        case startsWith(String)
        /// A tcp message, whole: the bytes of the last message its sender received, as they arrived
        /// (`repeat = "received"`: a server that answers `sc.send(recibido)`).
        case repeatReceived
        /// A Python pickle of a tuple of these items (`pickle.dumps((e, n, msg))`): a key's `e` or `n`
        /// as an int, any other item's text as a str (DescribedPickle).
        case pickle([DescribedValue])
    }

    public var kind: Kind
    public var line: Int
    public var keyPath: String
    /// A `public_key` value's `also_accepts`: formats its receiver takes besides `format`, tried in
    /// order when `format` does not load (a sender always sends `format`).
    public var alsoAccepts: [PublicKeyFormat] = []
    /// Where `also_accepts` was written, for the validator's errors.
    var alsoAcceptsLine = 0
    /// A per-character `rsa` value's `offset`: the number subtracted from each character before it is
    /// encrypted, added back after (NithinYesudas's `pow(ord(c) - ord('A'), e, n)`, `chr(m + 65)`).
    public var characterOffset = 0

    public init(kind: Kind, line: Int, keyPath: String) { self.kind = kind; self.line = line; self.keyPath = keyPath }
}

extension DescribedValue {
    /// This value and every value inside it (a `concat`'s parts, a `json`'s fields), depth first in
    /// the order written: the one walk every question about a description's values goes through.
    public var values: [DescribedValue] {
        switch kind {
        case let .concat(parts), let .pickle(parts): return [self] + parts.flatMap(\.values)
        case let .json(fields), let .form(fields): return [self] + fields.flatMap(\.value.values)
        default: return [self]
        }
    }
}

extension ProtocolDescription.Step {
    /// Every value of the step: its message or body, its query and its headers.
    public var values: [DescribedValue] { ([send, body, query].compactMap { $0 } + headers.map(\.value)).flatMap(\.values) }
}

extension ProtocolDescription {
    /// Every value of every step of every conversation.
    public var allValues: [DescribedValue] { conversations.flatMap { $0.steps.flatMap(\.values) } }
}

/// A JSON field or an HTTP header: a name and its value, in the order written.
extension DescribedField {
    /// The `mac` fields among `fields` and the sibling each covers (its `of`), in the order written.
    public static func macs(in fields: [DescribedField]) -> [(mac: DescribedField, algorithm: MACAlgorithm, covered: DescribedField)] {
        fields.compactMap { field in
            guard case let .mac(_, algorithm, of, _) = field.value.kind, let covered = fields.first(where: { $0.name == of }) else { return nil }
            return (field, algorithm, covered)
        }
    }
}

/// A `signature` value's algorithm.
public enum SignatureAlgorithm: String, Sendable, CaseIterable {
    /// ECDSA (FIPS 186-5 §6.4) over SHA-256 of the covered text, with an `ec-p256` key.
    case ecdsaSHA256 = "ecdsa-sha256"
}

/// How a signature's bytes are laid out.
public enum SignatureFormat: String, Sendable, CaseIterable {
    /// X9.62 `ECDSA-Sig-Value` DER (pyca's `sign`, `openssl dgst -sign`, CryptoKit's `derRepresentation`).
    case der
    /// r ‖ s, each the curve's size, big-endian (IEEE P1363; PyCryptodome's `DSS.new(key, 'fips-186-3')`,
    /// CryptoKit's `rawRepresentation`).
    case raw
}

/// A `mac` value's algorithm.
public enum MACAlgorithm: String, Sendable, CaseIterable {
    /// AES-CMAC (RFC 4493) under a 16-, 24- or 32-byte secret.
    case cmacAES = "cmac-aes"
    /// HMAC-SHA256 (RFC 2104) under a secret of any length.
    case hmacSHA256 = "hmac-sha256"

    /// The code's length in bytes.
    public var bytes: Int { self == .cmacAES ? 16 : 32 }
}

public struct DescribedField: Sendable, Equatable {
    public var name: String
    public var value: DescribedValue
}

public enum ValueEncoding: String, Sendable, CaseIterable {
    case raw, base64, base64url, hex, utf8
    /// Each byte as the character U+0000…U+00FF, the text in UTF-8: Python's `bytes.decode("latin-1")`
    /// returned as text (a Flask view that answers a ciphertext so).
    case latin1
    /// The text Python 2 writes for `str((data,))`: `('…',)`, the bytes as Python 2's repr of a str
    /// (Objects/stringobject.c, PyString_Repr). PyCrypto's `key.encrypt(m, K)` returns a one-tuple,
    /// and servers send `str(pub.encrypt(msg, 32))`.
    case python2Tuple = "python2-tuple"

    /// The length of `count` bytes so encoded, when it follows from the count alone.
    public func encodedLength(_ count: Int) -> Int? {
        switch self {
        case .raw, .utf8: return count
        case .latin1: return nil  // bytes over 0x7F take two
        case .python2Tuple: return nil  // escapes take two or four
        case .hex: return 2 * count
        case .base64: return (count + 2) / 3 * 4
        case .base64url: return (count * 4 + 2) / 3
        }
    }
}

public enum PublicKeyFormat: String, Sendable, CaseIterable {
    case pemSPKI = "pem-spki"
    case pemSPKINewline = "pem-spki-newline"
    case pemPKCS1 = "pem-pkcs1"
    case derSPKI = "der-spki"
    case derPKCS1 = "der-pkcs1"
    /// `{"n": <decimal integer>, "e": <decimal integer>}`, as Python's `json.dumps({"n": k.n, "e": k.e})` writes it.
    case jsonNE = "json-ne"
    /// A `pickle` item only: the RSA key's public exponent, or its modulus, as a Python int.
    case exponent = "e"
    case modulus = "n"
    /// RFC 7517: `{"kty": "RSA", "n": base64url, "e": base64url}`.
    case jwk
    /// An EC point, SEC 1 v2 §2.3.3: `04‖X‖Y` (CryptoKit `x963Representation`).
    case x962
    /// `02`/`03`‖X (CryptoKit `compressedRepresentation`).
    case x962Compressed = "x962-compressed"
    /// X‖Y for an EC key (CryptoKit `rawRepresentation`); an X25519 key's 32 bytes (RFC 7748 §5).
    case raw

    var isJSON: Bool { self == .jsonNE || self == .jwk }
    var isText: Bool { self == .pemSPKI || self == .pemSPKINewline || self == .pemPKCS1 || isJSON }

    /// The byte length of a `type` public key in this format, where it is fixed: SEC 1 points (v2
    /// §2.3.3), an X25519 key (RFC 7748 §5), and their SubjectPublicKeyInfo DER (RFC 5480, RFC 8410:
    /// 91 bytes on P-256, 120 on P-384, 44 for X25519).
    public func fixedLength(for type: ProtocolDescription.KeyType) -> Int? {
        let coordinate = type == .ecP384 ? 48 : 32
        switch (type, self) {
        case (.rsa, _): return nil
        case (.x25519, .raw): return 32
        case (.x25519, .derSPKI): return 44
        case (.x25519, _): return nil
        case (_, .x962): return 1 + 2 * coordinate
        case (_, .x962Compressed): return 1 + coordinate
        case (_, .raw): return 2 * coordinate
        case (_, .derSPKI): return type == .ecP384 ? 120 : 91
        default: return nil
        }
    }

    /// The formats a key of `type` is written in.
    public static func allowed(for type: ProtocolDescription.KeyType) -> [PublicKeyFormat] {
        switch type {
        case .rsa: return [.pemSPKI, .pemSPKINewline, .pemPKCS1, .derSPKI, .derPKCS1, .jsonNE, .jwk]
        case .ecP256, .ecP384: return [.pemSPKI, .pemSPKINewline, .derSPKI, .x962, .x962Compressed, .raw]
        case .x25519: return [.pemSPKI, .pemSPKINewline, .derSPKI, .raw]
        }
    }
}

public enum RSAPaddingName: String, Sendable, CaseIterable {
    case pkcs1
    case oaepSHA1 = "oaep-sha1"
    case oaepSHA256 = "oaep-sha256"
    /// No padding: textbook RSA (RFC 8017 §5.1.1 RSAEP, §5.1.2 RSADP), PyCrypto 2.x's
    /// `key.encrypt(m, K)` / `key.decrypt(c)`. Deterministic and malleable: reported weak.
    case textbook = "none"
    /// Textbook RSA of each character alone with a toy key (`bits` 8 to 15): the ciphertext of
    /// U+c is U+(cᵉ mod n), the text sent as UTF-8 (dianaxime/Lab6-Cifrado-PublicKeyEncription
    /// rsa.py, `chr(ord(c) ** e % n)`). A substitution table: reported weak.
    case perCharacter = "per-character"

    /// No padding to check, so no padding oracle to audit and no length known in advance.
    public var isUnpadded: Bool { self == .textbook || self == .perCharacter }
}

public enum Carries: Sendable, Equatable {
    case message, jsonMessage, echo, same
    /// Any UTF-8 text the sender chooses (a sensor reading); the receiver can check only that it is text.
    case anyText
    /// A secret's bytes, written as `carries_as` says (raw, or text a server wrote: Fernet.generate_key()'s base64url-padded).
    case secret(String, written: CarriedEncoding)
    /// A text the sender always sends (`carries = "text:…"`): a server's sealed acknowledgement.
    case constant(String)
    /// A JSON object with these fields (`carries = "json-fields"`, `fields = { name = "number", … }`): a sensor reading.
    case jsonFields([JSONFieldSpec])

    init?(_ text: String) {
        switch text {
        case "message": self = .message
        case "json-message": self = .jsonMessage
        case "echo": self = .echo
        case "same": self = .same
        case "any-text": self = .anyText
        default:
            if text.hasPrefix("text:"), text.count > 5 { self = .constant(String(text.dropFirst(5))); return }
            guard text.hasPrefix("secret:"), text.count > 7 else { return nil }
            self = .secret(String(text.dropFirst(7)), written: .raw)
        }
    }
}

/// A field a `json-fields` plaintext must have, and its JSON type.
public struct JSONFieldSpec: Sendable, Equatable {
    public enum FieldType: String, Sendable, CaseIterable { case number, integer, string }
    public var name: String
    public var type: FieldType
    /// A string field that holds a secret's bytes, so written (`{ secret = "S", encoding = "base64" }`):
    /// a session key the server hands out inside a sealed JSON answer. The receiver learns the secret.
    public var secret: CarriedSecret? = nil
}

/// A secret carried in a plaintext, and how its bytes are written there.
public struct CarriedSecret: Sendable, Equatable {
    public var name: String
    public var written: CarriedEncoding
}

extension DescribedValue {
    /// What an `rsa` or `sealed` value's plaintext is; nil for every other kind.
    public var carries: Carries? {
        switch kind {
        case let .rsa(_, _, carries, _): return carries
        case let .sealed(sealed): return sealed.carries
        default: return nil
        }
    }
}

extension Carries {
    /// A plaintext its sender draws fresh (a reading), not the conversation's message.
    public var isDrawnBySender: Bool {
        switch self {
        case .jsonFields, .anyText: return true
        default: return false
        }
    }
}

/// How a carried secret's bytes are written inside the plaintext (`carries_as`).
public enum CarriedEncoding: String, Sendable, CaseIterable {
    case raw, base64, base64url, hex
    case base64urlPadded = "base64url-padded"

    public func encode(_ bytes: Data) -> Data {
        switch self {
        case .raw: return bytes
        case .base64: return DescribedBytes.encode(bytes, .base64)
        case .base64url: return DescribedBytes.encode(bytes, .base64url)
        case .hex: return DescribedBytes.encode(bytes, .hex)
        case .base64urlPadded: return Data(DescribedBytes.base64url(bytes, padded: true).utf8)
        }
    }

    /// Strict: what decodes re-encodes to the same text.
    public func decode(_ text: Data, what: String) throws -> Data {
        switch self {
        case .raw: return text
        case .base64: return try DescribedBytes.decode(text, .base64, what: what)
        case .base64url: return try DescribedBytes.decode(text, .base64url, what: what)
        case .hex: return try DescribedBytes.decode(text, .hex, what: what)
        case .base64urlPadded:
            guard let bytes = DescribedBytes.decodeBase64url(String(decoding: text, as: UTF8.self), padded: true) else {
                throw DescribedRefusal(reason: "\(what) is not base64url-padded")
            }
            return bytes
        }
    }
}

public enum TokenUse: String, Sendable { case new, issued }

public enum SealedCipher: String, Sendable, CaseIterable {
    case aesCBC = "aes-cbc"
    case aesCTR = "aes-ctr"
    /// CFB with 128-bit segments (SP 800-38A §6.3, s = 128): pyca `modes.CFB`, PyCryptodome
    /// `AES.MODE_CFB` with `segment_size=128`, CommonCrypto `kCCModeCFB`. No padding, no MAC.
    case aesCFB = "aes-cfb"
    /// CFB with 8-bit segments (s = 8): PyCryptodome's `AES.MODE_CFB` as it comes (its default
    /// `segment_size` is 8), pyca `modes.CFB8`, CommonCrypto `kCCModeCFB8`. The same key and IV as
    /// aes-cfb give the same first byte and then differ: a classic mismatch between a PyCryptodome
    /// server and an iOS client.
    case aesCFB8 = "aes-cfb8"
    case aesGCM = "aes-gcm"
    case aesECB = "aes-ecb"
    case chacha20Poly1305 = "chacha20-poly1305"
    /// AES-EAX (Bellare, Rogaway and Wagner 2004): PyCryptodome's `AES.MODE_EAX` with its defaults,
    /// a 16-byte nonce and a 16-byte tag, no header. Neither pyca, OpenSSL nor CryptoKit has it.
    case aesEAX = "aes-eax"
    case fernet
    /// ChaCha20 without Poly1305 (pyca `algorithms.ChaCha20`, `mode=None`): nothing authenticates it.
    case chacha20
    /// Salsa20/20 (PyCryptodome `Salsa20.new(key, nonce)`: 16- or 32-byte key, 8-byte nonce): no MAC.
    case salsa20

    public var isAEAD: Bool { self == .aesGCM || self == .chacha20Poly1305 || self == .aesEAX }
    /// The IV or nonce length (0: none).
    public var ivBytes: Int {
        switch self {
        case .aesCBC, .aesCTR, .aesCFB, .aesCFB8, .aesEAX, .chacha20: return 16
        case .salsa20: return Salsa20.nonceBytes
        case .aesGCM, .chacha20Poly1305: return 12
        case .aesECB, .fernet: return 0
        }
    }

    /// The lengths a `fixed:` IV may have: `ivBytes`, but for aes-gcm any nonce of 8 to 128 bytes
    /// (NIST SP 800-38D §5.2.1.1 allows any length, 96 bits recommended; 8…128 is pyca's range).
    public var fixedIVBytes: ClosedRange<Int> { self == .aesGCM ? 8...128 : ivBytes...ivBytes }
}

public enum BlockPadding: String, Sendable, CaseIterable {
    case pkcs7, zero
    /// Spaces (0x20) to the block boundary, 1 to 16 (a whole block when the plaintext fills its
    /// last): `data += " " * (16 - len(data) % 16)`. A plaintext ending in a space cannot be carried.
    case space
    /// The bytes 01 02 … n to the block boundary (n = 1…16): a pad() written with
    /// `bchr(i + 1) for i in range(padding_len)`, checked like PKCS#7 (n is the last byte).
    case sequence
    /// PKCS#7 to a 32-byte boundary (pad bytes 1…32): Python AESCipher classes written with `bs = 32`.
    case pkcs7To32 = "pkcs7-32"
}

public enum IVPlacement: Sendable, Equatable {
    case prefix
    case field(String)
    case fixed(Data)
    /// The bytes of a secret (its raw bytes, not the key derived from them): a nonce the client
    /// makes and sends alone before its ciphertext, or an IV that is the key itself.
    case secret(String)
    case none
}

public enum TagPlacement: Sendable, Equatable {
    case appended
    /// Before the ciphertext, after a prefix IV: nonce ‖ tag ‖ ciphertext, the order PyCryptodome's
    /// documentation writes `cipher.nonce`, `tag` and `ciphertext` in. Written `tag = "before"`.
    case before
    case field(String)
    /// aes-gcm only: the tag is not sent (a server that keeps only the ciphertext of
    /// `encrypt_and_digest`), so nothing authenticates the value: GCM read as its counter mode.
    /// Written `tag = "none"`.
    case dropped
}

public struct Sealed: Sendable, Equatable {
    public var secret: String
    public var cipher: SealedCipher
    public var padding: BlockPadding
    public var iv: IVPlacement
    public var tag: TagPlacement
    public var carries: Carries
    public var encoding: ValueEncoding
    /// Bytes between the wire parts (`separator = "::"`): `b"::".join([cipher.nonce, tag, ciphertext])`.
    /// The receiver splits on them, so a part that contains them cannot be read; a sender seals again
    /// with a fresh IV until no part does.
    public var separator: Data? = nil

    /// What is on the wire, in order (before `separator` and `encoding`).
    public enum WirePart: Sendable, Equatable { case iv, tag, ciphertext }
    public var wireParts: [WirePart] {
        let hasTag = cipher.isAEAD && (tag == .appended || tag == .before)
        return (iv == .prefix ? [.iv] : []) + (hasTag && tag == .before ? [.tag] : []) + [.ciphertext] + (hasTag && tag == .appended ? [.tag] : [])
    }
}

// MARK: - Reading a value from its inline table

extension DescribedValue {
    static let kinds = ["text", "concat", "public_key", "rsa", "sealed", "secret", "digest", "json", "config", "token", "nonce_of", "tag_of", "plain", "length_of", "form", "mac", "signature", "starts_with", "repeat", "pickle"]
    static let qualifiers: [String: [String]] = [
        "text": [], "starts_with": [], "repeat": [], "pickle": [], "concat": [], "json": [], "form": [], "config": [], "token": [],
        "mac": ["algorithm", "of", "encoding"],
        "signature": ["algorithm", "of", "format", "encoding"],
        "public_key": ["format", "also_accepts", "encoding"],
        "rsa": ["padding", "carries", "carries_as", "fields", "encoding", "offset"],
        "sealed": ["cipher", "padding", "iv", "tag", "separator", "carries", "carries_as", "fields", "encoding"],
        "secret": ["encoding"],
        "digest": ["of", "encoding"],
        "nonce_of": ["encoding"], "tag_of": ["encoding"], "plain": ["encoding"], "length_of": ["bytes"],
    ]

    /// The value written at `keyPath` (a TOML inline table).
    static func read(_ toml: StrictTOML.Value, keyPath: String) throws -> DescribedValue {
        guard case let .table(table) = toml.kind else {
            throw DescriptionError.wrongType(key: keyPath, line: toml.line, expected: "a value: an inline table such as { text = \"…\" }", found: describe(toml))
        }
        let present = table.keys.filter { kinds.contains($0) }
        guard present.count == 1, let kindKey = present.first else {
            if present.isEmpty, let first = table.keys.first {
                throw DescriptionError.unknownKey(key: keyPath + "." + first, line: table[first]!.line,
                                                  suggestion: suggestion(for: first, among: kinds), allowed: kinds)
            }
            throw DescriptionError.impossible(key: keyPath, line: toml.line, reason: present.isEmpty
                ? "a value needs one kind key (\(kinds.joined(separator: ", ")))"
                : "a value has exactly one kind key; found \(present.joined(separator: " and "))")
        }
        let reader = TableReader(table, path: keyPath)
        try reader.allow([kindKey] + qualifiers[kindKey]!)
        let encodingText = try reader.choice("encoding", ValueEncoding.allCases.map(\.rawValue))
        let encoding = encodingText.flatMap(ValueEncoding.init) ?? .raw
        func name() throws -> String {
            guard let text = try reader.string(kindKey) else { throw reader.wrongType(kindKey, "a string") }
            return text
        }
        func carries() throws -> Carries {
            guard let text = try reader.string("carries") else { return .message }  // absent: the conversation's message (PythonRef's reader too)
            if text == "json-fields" {
                guard let fields = table["fields"], case let .table(items) = fields.kind, !items.keys.isEmpty else {
                    throw DescriptionError.missingKey(key: reader.keyPath("fields"), line: toml.line,
                                                      meaning: "the fields the JSON plaintext has: { name = \"number\" | \"integer\" | \"string\", … }")
                }
                return .jsonFields(try items.keys.map { field in
                    let value = items[field]!
                    let fieldPath = reader.keyPath("fields") + "." + field
                    if case let .table(spec) = value.kind {
                        let specReader = TableReader(spec, path: fieldPath)
                        try specReader.allow(["secret", "encoding"])
                        let encodings = CarriedEncoding.allCases.filter { $0 != .raw }.map(\.rawValue)
                        guard let secret = try specReader.string("secret") else {
                            throw DescriptionError.missingKey(key: specReader.keyPath("secret"), line: value.line, meaning: "the secret this field holds")
                        }
                        guard let written = try specReader.choice("encoding", encodings).flatMap(CarriedEncoding.init) else {
                            throw DescriptionError.missingKey(key: specReader.keyPath("encoding"), line: value.line, meaning: "how the secret is written in the JSON string: " + encodings.joined(separator: ", "))
                        }
                        return JSONFieldSpec(name: field, type: .string, secret: CarriedSecret(name: secret, written: written))
                    }
                    guard case let .string(typeName) = value.kind, let type = JSONFieldSpec.FieldType(rawValue: typeName) else {
                        throw DescriptionError.notAllowed(key: fieldPath, line: value.line,
                                                          allowed: "\"number\", \"integer\", \"string\", { secret = \"NAME\", encoding = \"base64\" }", found: describe(value))
                    }
                    return JSONFieldSpec(name: field, type: type)
                })
            }
            if table["fields"] != nil {
                throw DescriptionError.impossible(key: reader.keyPath("fields"), line: reader.line(of: "fields"), reason: "`fields` goes with `carries = \"json-fields\"` only")
            }
            guard let carries = Carries(text) else {
                throw DescriptionError.notAllowed(key: reader.keyPath("carries"), line: reader.line(of: "carries"),
                                                  allowed: "\"message\", \"json-message\", \"json-fields\", \"any-text\", \"echo\", \"same\", \"text:TEXT\", \"secret:NAME\"", found: "\"\(text)\"")
            }
            if let written = try reader.choice("carries_as", CarriedEncoding.allCases.map(\.rawValue)).flatMap(CarriedEncoding.init) {
                guard case let .secret(name, _) = carries else {
                    throw DescriptionError.impossible(key: reader.keyPath("carries_as"), line: reader.line(of: "carries_as"),
                                                      reason: "`carries_as` says how a carried secret is written; it goes with `carries = \"secret:NAME\"` only")
                }
                return .secret(name, written: written)
            }
            return carries
        }
        let kind: Kind
        var alsoAccepts: [PublicKeyFormat] = [], alsoAcceptsLine = 0, characterOffset = 0
        switch kindKey {
        case "text":
            kind = .text(try name())
        case "starts_with":
            kind = .startsWith(try name())
        case "repeat":
            _ = try reader.choice("repeat", ["received"])
            kind = .repeatReceived
        case "config":
            kind = .config(try reader.choice("config", ["username", "password"])!)
        case "token":
            kind = .token(TokenUse(rawValue: try reader.choice("token", ["new", "issued"])!)!)
        case "concat":
            guard case let .array(parts) = table["concat"]!.kind else { throw reader.wrongType("concat", "an array of values") }
            kind = .concat(try parts.enumerated().map { try read($1, keyPath: "\(keyPath).concat[\($0 + 1)]") })
        case "pickle":
            guard case let .array(parts) = table["pickle"]!.kind else { throw reader.wrongType("pickle", "an array of values: a key's e or n, or text") }
            kind = .pickle(try parts.enumerated().map { try read($1, keyPath: "\(keyPath).pickle[\($0 + 1)]") })
        case "json", "form":
            guard case let .table(fields) = table[kindKey]!.kind else { throw reader.wrongType(kindKey, "a table of field = value") }
            let members = try fields.keys.map { DescribedField(name: $0, value: try read(fields[$0]!, keyPath: "\(keyPath).\(kindKey).\($0)")) }
            kind = kindKey == "json" ? .json(members) : .form(members)
        case "mac":
            guard let algorithm = try reader.choice("algorithm", MACAlgorithm.allCases.map(\.rawValue)).flatMap(MACAlgorithm.init) else {
                throw DescriptionError.missingKey(key: reader.keyPath("algorithm"), line: toml.line, meaning: MACAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))
            }
            guard let covered = try reader.string("of") else {
                throw DescriptionError.missingKey(key: reader.keyPath("of"), line: toml.line, meaning: "the sibling field whose text (as sent) the MAC covers")
            }
            kind = .mac(try name(), algorithm: algorithm, of: covered, encoding: encodingText == nil ? .hex : encoding)
        case "signature":
            let algorithm = try reader.choice("algorithm", SignatureAlgorithm.allCases.map(\.rawValue)).flatMap(SignatureAlgorithm.init) ?? .ecdsaSHA256
            guard let covered = try reader.string("of") else {
                throw DescriptionError.missingKey(key: reader.keyPath("of"), line: toml.line, meaning: "the sibling field whose text (as sent) the signature covers")
            }
            guard encodingText != nil else {
                throw DescriptionError.missingKey(key: reader.keyPath("encoding"), line: toml.line, meaning: "how the signature is written: base64, base64url or hex")
            }
            let format = try reader.choice("format", SignatureFormat.allCases.map(\.rawValue)).flatMap(SignatureFormat.init) ?? .der
            kind = .signature(try name(), algorithm: algorithm, of: covered, format: format, encoding: encoding)
        case "public_key":
            let format = try reader.choice("format", PublicKeyFormat.allCases.map(\.rawValue)).flatMap(PublicKeyFormat.init) ?? .pemSPKI
            kind = .publicKey(try name(), format: format, encoding: encoding)
            if let list = table["also_accepts"] {
                let meaning = "a list of one or more public-key formats"
                guard case let .array(items) = list.kind, !items.isEmpty else { throw reader.wrongType("also_accepts", meaning) }
                alsoAccepts = try items.map { item in
                    guard case let .string(text) = item.kind else { throw reader.wrongType("also_accepts", meaning) }
                    guard let found = PublicKeyFormat(rawValue: text) else {
                        throw DescriptionError.impossible(key: reader.keyPath("also_accepts"), line: item.line,
                                                          reason: "also_accepts lists RSA public-key formats: \(PublicKeyFormat.allowed(for: .rsa).map(\.rawValue).joined(separator: ", ")); found \"\(text)\"")
                    }
                    return found
                }
                alsoAcceptsLine = list.line
            }
        case "rsa":
            let padding = try reader.choice("padding", RSAPaddingName.allCases.map(\.rawValue)).flatMap(RSAPaddingName.init) ?? .pkcs1
            kind = .rsa(try name(), padding: padding, carries: try carries(), encoding: encoding)
            if table["offset"] != nil {
                guard padding == .perCharacter else {
                    throw DescriptionError.impossible(key: reader.keyPath("offset"), line: reader.line(of: "offset"), reason: "offset is for padding = \"per-character\" only")
                }
                characterOffset = try reader.number("offset", in: 0...0x10FFFF) ?? 0
            }
        case "secret":
            kind = .secret(try name(), encoding: encoding)
        case "digest":
            _ = try reader.choice("digest", ["sha256"])
            _ = try reader.choice("of", ["message"])
            kind = .digest(encoding: encodingText == nil ? .hex : encoding)
        case "length_of":
            let of = try reader.choice("length_of", ["message", "next"])
            let bytes = try reader.number("bytes", oneOf: [1, 2, 4]) ?? 4
            kind = of == "next" ? .lengthOfNext(bytes: bytes) : .lengthOf(bytes: bytes)
        case "plain":
            _ = try reader.choice("plain", ["message"])
            kind = .plain(encoding: encoding)
        case "nonce_of":
            kind = .nonceOf(try name(), encoding: encoding)
        case "tag_of":
            kind = .tagOf(try name(), encoding: encoding)
        default:  // sealed
            let cipherText = try reader.choice("cipher", SealedCipher.allCases.map(\.rawValue))
            guard let cipher = cipherText.flatMap(SealedCipher.init) else {
                throw DescriptionError.missingKey(key: reader.keyPath("cipher"), line: toml.line, meaning: SealedCipher.allCases.map(\.rawValue).joined(separator: ", "))
            }
            let paddingText = try reader.choice("padding", BlockPadding.allCases.map(\.rawValue))
            if paddingText != nil, cipher != .aesCBC, cipher != .aesECB {
                throw DescriptionError.impossible(key: reader.keyPath("padding"), line: reader.line(of: "padding"), reason: "`padding` is for aes-cbc and aes-ecb only; remove it")
            }
            var iv: IVPlacement = cipher == .aesECB || cipher == .fernet ? .none : .prefix  // ECB and Fernet have no IV of their own to place
            if let text = try reader.string("iv") {
                let ivLine = reader.line(of: "iv")
                if text == "prefix" { iv = .prefix } else if text == "none" { iv = .none } else if text.hasPrefix("field:"), text.count > 6 {
                    iv = .field(String(text.dropFirst(6)))
                } else if text.hasPrefix("fixed:"), let bytes = Data(hexString: String(text.dropFirst(6))), cipher.fixedIVBytes.contains(bytes.count) {
                    iv = .fixed(bytes)
                } else if text.hasPrefix("secret:"), text.count > 7 {
                    iv = .secret(String(text.dropFirst(7)))
                } else {
                    let lengths = cipher.fixedIVBytes.count == 1 ? "\(cipher.ivBytes) bytes" : "\(cipher.fixedIVBytes.lowerBound) to \(cipher.fixedIVBytes.upperBound) bytes"
                    throw DescriptionError.notAllowed(key: reader.keyPath("iv"), line: ivLine, allowed: "\"prefix\", \"field:NAME\", \"fixed:HEX\" (\(lengths)), \"secret:NAME\", \"none\"", found: "\"\(text)\"")
                }
                if iv == .none, cipher != .aesECB, cipher != .fernet {
                    throw DescriptionError.impossible(key: reader.keyPath("iv"), line: ivLine, reason: "\(cipher.rawValue) needs an IV or nonce; `iv = \"none\"` is only for aes-ecb and fernet")
                }
                if iv != .none, cipher == .aesECB || cipher == .fernet {
                    throw DescriptionError.impossible(key: reader.keyPath("iv"), line: ivLine, reason: cipher == .fernet
                        ? "a Fernet token carries its own IV; remove `iv`" : "aes-ecb has no IV; write `iv = \"none\"` or remove it")
                }
            }
            var tag = TagPlacement.appended
            if let text = try reader.string("tag") {
                guard cipher.isAEAD else {
                    throw DescriptionError.impossible(key: reader.keyPath("tag"), line: reader.line(of: "tag"), reason: "`tag` is for aes-gcm, chacha20-poly1305 and aes-eax only; remove it")
                }
                if text.hasPrefix("field:"), text.count > 6 { tag = .field(String(text.dropFirst(6))) } else if text == "none" {
                    guard cipher == .aesGCM else {
                        throw DescriptionError.impossible(key: reader.keyPath("tag"), line: reader.line(of: "tag"), reason: "`tag = \"none\"` is for aes-gcm only (a server that drops the tag of encrypt_and_digest), not \(cipher.rawValue)")
                    }
                    tag = .dropped
                } else if text == "before" {
                    tag = .before
                } else if text != "appended" {
                    throw DescriptionError.notAllowed(key: reader.keyPath("tag"), line: reader.line(of: "tag"), allowed: "\"appended\", \"before\", \"field:NAME\", \"none\" (aes-gcm)", found: "\"\(text)\"")
                }
            }
            if cipher == .fernet, encodingText != nil {
                throw DescriptionError.impossible(key: reader.keyPath("encoding"), line: reader.line(of: "encoding"), reason: "a Fernet token is always base64url with padding; remove `encoding`")
            }
            var sealed = Sealed(secret: try name(), cipher: cipher, padding: paddingText.flatMap(BlockPadding.init) ?? .pkcs7,
                                iv: iv, tag: tag, carries: try carries(), encoding: encoding)
            if table["separator"] != nil {
                let separatorLine = reader.line(of: "separator")
                guard let text = try reader.string("separator"), (1...16).contains(text.utf8.count) else {
                    throw DescriptionError.impossible(key: reader.keyPath("separator"), line: separatorLine, reason: "`separator` is text of 1 to 16 bytes, e.g. \"::\"; found \(describe(table["separator"]!))")
                }
                if cipher == .fernet {
                    throw DescriptionError.impossible(key: reader.keyPath("separator"), line: separatorLine, reason: "a Fernet token is one piece; remove `separator`")
                }
                guard sealed.wireParts.count >= 2 else {
                    throw DescriptionError.impossible(key: reader.keyPath("separator"), line: separatorLine, reason: "`separator` joins the IV, the tag and the ciphertext; this value has only the ciphertext on the wire")
                }
                sealed.separator = Data(text.utf8)
            }
            kind = .sealed(sealed)
        }
        var value = DescribedValue(kind: kind, line: toml.line, keyPath: keyPath)
        value.alsoAccepts = alsoAccepts
        value.alsoAcceptsLine = alsoAcceptsLine
        value.characterOffset = characterOffset
        return value
    }
}
