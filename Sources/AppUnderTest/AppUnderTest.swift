import Foundation

// The app under test: a team's own Swift code — or one of the seed apps — behind a small adapter
// that maps the app's functions onto the capabilities below. An adapter adopts `AppUnderTest` and
// only the capability protocols the app's code can serve; a suite runs the checks of the
// capabilities an app has (`app.capability(SymmetricKeyStorage.self)`) and has no checks for the
// others. An app in its own process (`crosscheck run --app DIR`) is seen through a proxy that
// answers `capability(_:)` with what the app itself adopts. Nothing here depends on the harness: an adapter imports Foundation, this module and
// the app's own modules.
//
// Names of paddings, key derivations and algorithms are the ones docs/PROTOCOL.md uses
// ("pkcs1", "oaep-sha1", "oaep-sha256", "utf8-zeropad16", "base64-raw", "aes-gcm").
// Sources/SeedApps/*/…Adapter.swift are the worked examples.

/// An app under test.
public protocol AppUnderTest: AnyObject {
    /// A short stable name for reports, e.g. "seed-003".
    var identifier: String { get }
    /// One line: what the app is and where its code comes from.
    var summary: String { get }
    /// The app as `capability` (e.g. `SymmetricKeyStorage.self`), or nil when it does not adopt it.
    /// Adapters keep the default (`self as? T`); only a proxy for an app elsewhere answers otherwise.
    func capability<T>(_ capability: T.Type) -> T?
}

extension AppUnderTest {
    public func capability<T>(_ capability: T.Type) -> T? { self as? T }
}

/// Something the app did that a check must see as a failure: its own error, status or refusal,
/// as text a person can read.
public struct AppFailure: Error, Equatable, CustomStringConvertible, Sendable {
    public let operation: String
    public let detail: String
    public init(_ operation: String, _ detail: String) { self.operation = operation; self.detail = detail }
    public var description: String { "\(operation): \(detail)" }
}

/// Calls the app's own function for an adapter, so a failure points into the app: what it throws
/// becomes an `AppFailure` naming `function` (as the app's code names it), the error's type and
/// text, and the adapter's line that called it (`#fileID:#line`, captured here). An adapter writes
/// `try appCall("ServerKeyEncryptor.encrypt") { try ServerKeyEncryptor.encrypt(text, publicKeyPEM: pem) }`.
/// An `AppFailure` the body throws passes through unchanged.
public func appCall<R>(_ function: String, fileID: StaticString = #fileID, line: UInt = #line, _ body: () throws -> R) throws -> R {
    do { return try body() } catch let failure as AppFailure { throw failure } catch {
        throw AppFailure(function, "threw \(error) (\(type(of: error))), called from \(fileID):\(line)")
    }
}

/// The app could not be asked at all: its process died, missed its deadline, or answered something
/// that is not an answer. Not a verdict on the app's crypto: a check that meets it is an error.
public struct AppUnreachable: Error, Equatable, CustomStringConvertible, Sendable {
    public let detail: String
    public init(_ detail: String) { self.detail = detail }
    public var description: String { "the app could not be asked: \(detail)" }
}

/// rsa-socket, direction pi-to-phone, as the client: the app sends its public key, receives one
/// RSA ciphertext and decrypts it.
public protocol RSASocketClient {
    /// The padding the app decrypts with.
    var rsaPadding: String { get }
    /// The bytes the app writes first: `public_key=` and its public key PEM, exactly as its code makes them.
    func publicKeyMessage() throws -> Data
    /// Gives the app the bytes one socket read delivered (the app reads them as its code does) and
    /// returns the plaintext it decrypted and shows, or throws `AppFailure`.
    func receiveEncryptedMessage(_ bytes: Data) throws -> Data
    /// The bytes the app writes to end the session.
    func quitMessage() -> Data
}

/// rsa-socket, direction pi-to-phone, with the app's own networking: the app connects, sends its
/// key, reads once, decrypts, sends "Quit". Returns the plaintext the app showed.
public protocol RSASocketSession {
    func runSession(host: String, port: Int, timeout: TimeInterval) throws -> Data
}

/// A client of a described protocol (docs/PROTOCOL-DESCRIPTIONS.md), with the app's own
/// networking and crypto: the adapter names the description and runs one conversation; crosscheck
/// serves it with PythonRef's and the Swift engine's server and judges what arrived.
public protocol DescribedProtocolClient {
    /// The description the app's client speaks: a path, absolute or relative to the folder given
    /// to `--app`, or one shipped with crosscheck ("protocols/rsa-socket.toml").
    var describedProtocol: String { get }
    /// The conversation it runs ("" for the description's first).
    var describedConversation: String { get }
    /// Secrets the app has built in, by the description's names (its `made_by = "preshared"` secrets).
    var presharedSecrets: [String: Data] { get }
    /// Runs one conversation with the server at `host`:`port` through the app's own code and
    /// returns the plaintext the app took from the server's answers (empty when none carries one).
    func runDescribedConversation(host: String, port: Int, timeout: TimeInterval) throws -> Data
}

extension DescribedProtocolClient {
    public var describedConversation: String { "" }
    public var presharedSecrets: [String: Data] { [:] }
}

/// RSA encryption to a key pair the app generates itself (the private key is handed out so a
/// reference implementation can decrypt the app's ciphertext).
public protocol RSAOwnKeyEncryption {
    var rsaPadding: String { get }
    /// Returns the ciphertext and the private key as PKCS#1 RSAPrivateKey DER.
    func encryptWithNewKey(_ plaintext: Data) throws -> (ciphertext: Data, privateKeyPKCS1DER: Data)
}

/// Storing and reading raw symmetric key bytes in the keychain, through the app's own code.
public protocol SymmetricKeyStorage {
    func storeKey(_ key: Data, tag: String) throws
    func readKey(tag: String) throws -> Data
}

/// Keeping a secret behind the device's user: a keychain item with kSecAttrAccessControl
/// (biometry, passcode, user presence), through the app's own code. The user is crosscheck's
/// simulated one (Security's `SimulatedUser`, `crosscheck run --app-user`).
public protocol ProtectedSecretStorage {
    /// The SecAccessControlCreateFlags the app says it protects the secret with, by Apple's names
    /// ("biometryCurrentSet", "or", "devicePasscode"), as its code or documentation declares them.
    var declaredAccessControl: [String] { get }
    func storeProtectedSecret(_ secret: Data, name: String) throws
    /// Reads the secret back; the app's prompt is answered by the simulated user.
    func readProtectedSecret(name: String) throws -> Data
}

/// The app in a process of its own, where crosscheck chooses how the simulated user answers each
/// prompt ("present", "absent", "cancel"): how a check reaches an app's failure paths.
public protocol SimulatedUserPrompts {
    func readProtectedSecret(name: String, answeredBy user: String) throws -> Data
}

/// Sealing and opening AEAD combined boxes (nonce ‖ ciphertext ‖ tag) with a given key.
public protocol AEADSealing {
    /// "aes-gcm" or "chachapoly".
    var aeadAlgorithm: String { get }
    /// When the app's code always seals one plaintext of its own, that plaintext; callers must
    /// then pass exactly it to `seal`. nil when the app seals whatever it is given.
    var fixedPlaintext: Data? { get }
    func seal(_ plaintext: Data, key: Data) throws -> Data
    func open(_ combined: Data, key: Data) throws -> Data
}

/// Sealing a whole file into one combined box written to disk, and opening it again.
public protocol FileSealing {
    var aeadAlgorithm: String { get }
    /// The key the app seals with, as the app keeps it.
    func currentKey() throws -> Data
    func sealFile(at source: URL, to destination: URL) throws
    func openFile(at source: URL, to destination: URL) throws
}

/// aes-https as the client: the `{"data","iv"}` envelope around a JSON request and response.
public protocol AESEnvelopeClient {
    /// How the app turns the server's `encryptionKey` string into key bytes.
    var keyDerivation: String { get }
    /// The request body the app sends for `parameters`.
    func requestBody(parameters: [String: Any], encryptionKey: String) throws -> Data
    /// The JSON value the app reads out of a response body.
    func responseObject(body: Data, encryptionKey: String) throws -> Any
}

/// A TLS server-trust decision as the app's URLSession delegate makes it, with the pinned
/// certificate bundled the way the app bundles it.
public protocol CertificatePinning {
    /// `chainDER` is what the server presented, leaf first. Returns true when the app accepts.
    func evaluateServerTrust(chainDER: [Data], host: String, pinnedCertificateDER: Data) throws -> Bool
}

/// Sealing and opening with a key the app keeps inside (none crosses): the shape of a helper with
/// `encrypt(_:)`/`decrypt(_:)` and its key in a property, the keychain or a static. crosscheck
/// cannot open these boxes itself; it checks what can be checked without the key: the app opens
/// what it sealed, also after later calls (a key made afresh per call cannot), two seals differ,
/// a tampered box is refused, and the box has a known shape.
public protocol SelfContainedSealing {
    /// "aes-gcm" or "chachapoly" when the app seals CryptoKit combined boxes (nonce ‖ ciphertext ‖
    /// tag, raw or as base64 text); "" when it seals something else (the checks then say what the
    /// box looks like).
    var boxAlgorithm: String { get }
    /// Seals `plaintext` (crosscheck passes UTF-8 text, as such helpers take strings) and returns
    /// the box as the app hands it out (bytes, or base64 text as UTF-8).
    func seal(_ plaintext: Data) throws -> Data
    func open(_ box: Data) throws -> Data
}

/// Signing messages with a key pair the app keeps, and handing out its public key: PythonRef and
/// `openssl dgst -verify` must verify the signatures with that key.
public protocol MessageSigning {
    /// docs/PROTOCOL.md's names: "rsa-pkcs1v15-sha256" (SecKey's rsaSignatureMessagePKCS1v15SHA256;
    /// also -sha1, -sha224, -sha384, -sha512), "rsa-pss-sha256" (rsaSignatureMessagePSSSHA256,
    /// salt as long as the digest), "ecdsa-p256-sha256" (X9.62 DER, SecKey's
    /// ecdsaSignatureMessageX962SHA256 and CryptoKit's derRepresentation), "ecdsa-p256-sha256-raw"
    /// (r ‖ s, CryptoKit's rawRepresentation); p384-sha384 and p521-sha512 likewise.
    var signatureAlgorithm: String { get }
    func sign(_ message: Data) throws -> Data
    /// The public key as the app exports it: X9.63 (`04 ‖ X ‖ Y`, SecKey's external representation
    /// and CryptoKit's x963Representation), raw `X ‖ Y`, PKCS#1 RSAPublicKey DER, SubjectPublicKeyInfo
    /// DER, or PEM.
    func publicKey() throws -> Data
}

/// How an app agrees a key with the Pi: the curve, the key derivation and the sealing it uses.
public struct KeyAgreementScheme: Equatable, Sendable {
    /// "p256", "p384", "p521" or "x25519".
    public var curve: String
    /// How the app reads the Pi's public key and writes its own: "x963" (`04 ‖ X ‖ Y`), "raw"
    /// (CryptoKit's rawRepresentation: `X ‖ Y`, or X25519's 32 bytes), "der" (SubjectPublicKeyInfo)
    /// or "pem".
    public var publicKeyFormat: String
    /// "hkdf-sha256" (SharedSecret.hkdfDerivedSymmetricKey, also -sha384, -sha512) or "x963-sha256"
    /// (x963DerivedSymmetricKey, SecKeyCopyKeyExchangeResult's ecdhKeyExchangeStandardX963SHA256).
    public var kdf: String
    /// HKDF's salt (empty for X9.63).
    public var salt: Data
    /// HKDF's info, X9.63's sharedInfo.
    public var sharedInfo: Data
    /// The derived key's length in bytes (16, 24 or 32).
    public var keyLength: Int
    /// The box sealed with the derived key: "aes-gcm" or "chachapoly", a CryptoKit combined box.
    public var cipher: String

    public init(curve: String, publicKeyFormat: String, kdf: String, salt: Data, sharedInfo: Data, keyLength: Int, cipher: String) {
        self.curve = curve; self.publicKeyFormat = publicKeyFormat; self.kdf = kdf; self.salt = salt
        self.sharedInfo = sharedInfo; self.keyLength = keyLength; self.cipher = cipher
    }
}

/// Agreeing a key with the Pi (ECDH or X25519) and sealing with it: given the Pi's public key, the
/// app returns its own public key and a box sealed under the key it derived; PythonRef derives the
/// same key with the Pi's private key and must open the box.
public protocol KeyAgreementSealing {
    var keyAgreementScheme: KeyAgreementScheme { get }
    func agreeAndSeal(piPublicKey: Data, plaintext: Data) throws -> (publicKey: Data, box: Data)
}

/// A password kept in the keychain through the app's own SecItem* code (save, read, update,
/// delete by account), as login helpers and keychain wrappers do.
public protocol PasswordStore {
    /// "generic" (kSecClassGenericPassword) or "internet" (kSecClassInternetPassword).
    var passwordItemClass: String { get }
    /// What saving over an account that has a password does, as the app documents it: "replaces"
    /// (it updates on errSecDuplicateItem, or deletes first) or "fails" (errSecDuplicateItem is an error).
    var passwordOnDuplicate: String { get }
    /// What reading or deleting an account without a password does: "nil" (read gives nil, delete
    /// succeeds: errSecItemNotFound is no error) or "fails" (both throw).
    var passwordOnMissing: String { get }
    func savePassword(_ password: String, account: String) throws
    func readPassword(account: String) throws -> String?
    func updatePassword(_ password: String, account: String) throws
    func deletePassword(account: String) throws
}

/// How an app encrypts to a public key the Pi hands it (`PeerKeyEncryption`).
public struct PeerKeyScheme: Equatable, Sendable {
    /// The forms in which the app's code takes the Pi's RSA public key, each one of
    /// `PeerKeyScheme.formats`: "pem-spki" (`-----BEGIN PUBLIC KEY-----`, as `openssl rsa -pubout`
    /// writes it), "pem-pkcs1" (`-----BEGIN RSA PUBLIC KEY-----`), "der-spki", "der-pkcs1" (the
    /// bytes of a bundled `.der`; PKCS#1 is what `SecKeyCreateWithData` documents), "base64-spki",
    /// "base64-pkcs1" (the DER as one base64 line, no header: a key pasted into the source or sent
    /// in JSON), "modulus-exponent" (the JSON `{"modulus": base64, "exponent": base64}`, big-endian
    /// unsigned, as a server that publishes n and e sends them). Every form listed is checked.
    public var keyFormats: [String]
    /// The padding the app declares: "pkcs1" (`.rsaEncryptionPKCS1`), "oaep-sha1"
    /// (`.rsaEncryptionOAEPSHA1`), "oaep-sha256" (`.rsaEncryptionOAEPSHA256`).
    public var padding: String
    /// The app's function the adapter calls, as the app's code names it
    /// ("RSAHelper.encrypt(_:publicKeyPEM:) in RSAHelper.swift"): failures name it.
    public var appFunction: String

    public static let formats = ["pem-spki", "pem-pkcs1", "der-spki", "der-pkcs1", "base64-spki", "base64-pkcs1", "modulus-exponent"]

    public init(keyFormats: [String], padding: String, appFunction: String) {
        self.keyFormats = keyFormats; self.padding = padding; self.appFunction = appFunction
    }
}

/// RSA encryption to a public key the Pi hands the app: the app's own code imports the key as it
/// arrives (PEM, DER, bare base64, modulus and exponent: `SecKeyCreateWithData` or its own
/// parsing) and encrypts to it. crosscheck makes the key pair (PythonRef), so it can decrypt with
/// the declared padding and, when that fails, find the padding the app really used. Malformed
/// keys (e = 1, truncated, an EC key) must be refused by the app's import.
public protocol PeerKeyEncryption {
    var peerKeyScheme: PeerKeyScheme { get }
    /// `key` is the Pi's public key in `format` (one of `peerKeyScheme.keyFormats`), as bytes the
    /// app receives (PEM and base64 as UTF-8 text). Returns the RSA ciphertext (raw bytes: an
    /// adapter over code that hands out base64 decodes it), or throws when the app refuses the key.
    func encrypt(_ plaintext: Data, toPeerKey key: Data, format: String) throws -> Data
}

/// A request as `RequestSigning` signs it. The canonical string is made from these fields by the
/// scheme's template.
public struct SignableRequest: Equatable, Sendable {
    public var method: String
    public var path: String
    public var query: String
    public var timestamp: String
    public var nonce: String
    public var body: Data

    public init(method: String, path: String, query: String, timestamp: String, nonce: String, body: Data) {
        self.method = method; self.path = path; self.query = query; self.timestamp = timestamp; self.nonce = nonce; self.body = body
    }

    /// The bytes the template names: `{method}`, `{path}`, `{query}`, `{timestamp}`, `{nonce}`,
    /// `{body}` (the body's bytes), `{body-sha256-hex}` (lowercase), `{body-sha256-base64}` (standard). nil when
    /// the template names a placeholder not in this list.
    public func canonical(_ template: String, bodySHA256: (Data) -> Data) -> Data? {
        var out = Data()
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            out.append(contentsOf: Data(rest[..<open].utf8))
            guard let close = rest[open...].firstIndex(of: "}") else { return nil }
            let name = rest[rest.index(after: open)..<close]
            switch name {
            case "method": out.append(contentsOf: Data(method.utf8))
            case "path": out.append(contentsOf: Data(path.utf8))
            case "query": out.append(contentsOf: Data(query.utf8))
            case "timestamp": out.append(contentsOf: Data(timestamp.utf8))
            case "nonce": out.append(contentsOf: Data(nonce.utf8))
            case "body": out.append(body)
            case "body-sha256-hex": out.append(contentsOf: Data(bodySHA256(body).map { String(format: "%02x", $0) }.joined().utf8))
            case "body-sha256-base64": out.append(contentsOf: Data(bodySHA256(body).base64EncodedString().utf8))
            default: return nil
            }
            rest = rest[rest.index(after: close)...]
        }
        out.append(contentsOf: Data(rest.utf8))
        return out
    }
}

/// How an app signs its requests (`RequestSigning`).
public struct RequestSigningScheme: Equatable, Sendable {
    /// "hmac-sha1", "hmac-sha256", "hmac-sha512" (CommonCrypto's `CCHmac`, CryptoKit's `HMAC<…>`,
    /// RFC 2104) with a secret the Pi shares, or one of `MessageSigning`'s signature names
    /// ("rsa-pkcs1v15-sha256", "ecdsa-p256-sha256", …) with a key pair the app keeps.
    public var algorithm: String
    /// The canonical string the app signs, as a template over `SignableRequest`'s placeholders,
    /// e.g. "{method}\n{path}\n{timestamp}\n{body-sha256-hex}".
    public var canonicalTemplate: String
    /// How the Pi hands the shared secret to the app, for HMAC: "raw" (bytes), "hex" or "base64"
    /// (text, which the app must decode into the key's bytes). "" for signatures.
    public var secretEncoding: String
    /// How the app writes the signature into the request: "hex", "base64" or "raw".
    public var signatureEncoding: String
    /// The app's function the adapter calls, as the app names it: failures name it.
    public var appFunction: String

    public init(algorithm: String, canonicalTemplate: String, secretEncoding: String, signatureEncoding: String, appFunction: String) {
        self.algorithm = algorithm; self.canonicalTemplate = canonicalTemplate; self.secretEncoding = secretEncoding
        self.signatureEncoding = signatureEncoding; self.appFunction = appFunction
    }
}

/// Signing requests to the Pi: an HMAC with a shared secret, or a signature with a key pair the
/// app keeps, over a canonical string of the request. PythonRef and `openssl` compute or verify it.
public protocol RequestSigning {
    var requestSigningScheme: RequestSigningScheme { get }
    /// The signature the app puts on `request`, in `signatureEncoding` (text as UTF-8). `secret`
    /// is the shared secret as the Pi hands it (`secretEncoding`; empty for signatures).
    func signRequest(_ request: SignableRequest, secret: Data) throws -> Data
    /// For signatures: the public key as the app exports it (as `MessageSigning.publicKey()`);
    /// HMAC signers throw or return empty.
    func requestSigningPublicKey() throws -> Data
}

extension RequestSigning {
    public func requestSigningPublicKey() throws -> Data { Data() }
}

extension AppUnderTest {
    /// The capability protocols this app adopts, for reports.
    public var capabilityNames: [String] {
        var names: [String] = []
        if capability(RSASocketClient.self) != nil { names.append("RSASocketClient") }
        if capability(RSASocketSession.self) != nil { names.append("RSASocketSession") }
        if capability(DescribedProtocolClient.self) != nil { names.append("DescribedProtocolClient") }
        if capability(RSAOwnKeyEncryption.self) != nil { names.append("RSAOwnKeyEncryption") }
        if capability(SymmetricKeyStorage.self) != nil { names.append("SymmetricKeyStorage") }
        if capability(AEADSealing.self) != nil { names.append("AEADSealing") }
        if capability(FileSealing.self) != nil { names.append("FileSealing") }
        if capability(AESEnvelopeClient.self) != nil { names.append("AESEnvelopeClient") }
        if capability(CertificatePinning.self) != nil { names.append("CertificatePinning") }
        if capability(SelfContainedSealing.self) != nil { names.append("SelfContainedSealing") }
        if capability(MessageSigning.self) != nil { names.append("MessageSigning") }
        if capability(KeyAgreementSealing.self) != nil { names.append("KeyAgreementSealing") }
        if capability(PasswordStore.self) != nil { names.append("PasswordStore") }
        if capability(ProtectedSecretStorage.self) != nil { names.append("ProtectedSecretStorage") }
        if capability(PeerKeyEncryption.self) != nil { names.append("PeerKeyEncryption") }
        if capability(RequestSigning.self) != nil { names.append("RequestSigning") }
        return names
    }
}
