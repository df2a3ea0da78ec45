import Foundation
import WireCrypto

/// One thing a seed app does on the wire, with the seed line it comes from (docs/PROTOCOL.md,
/// "Client profiles"). Every failure a seed-app client reports names the quirk that caused it, so a
/// report says which line of the shipped app meets which behaviour of the server.
public struct SeedQuirk: Sendable, Equatable, CustomStringConvertible {
    public let name: String
    /// What the app does, in words.
    public let behaviour: String
    /// Where: the seed and its line.
    public let seedLine: String

    public var description: String { "\(name): \(behaviour) (\(seedLine))" }

    /// Every quirk the seed-app clients model; each one's `seedLine` is checked against the seed's
    /// own code (Tests/SeedAppsTests/QuirkSeedLineTests.swift): `seed NNN: ` and then code, with `…`
    /// for what is left out and `; ` between separate lines.
    public static let all: [SeedQuirk] = [
        spkiFromExportManager, oneReadOf200Bytes, pkcs1Only, waitsWithoutDeadline, forcedUTF8,
        formLogin, jsonResponseSerializer, getCStringKey, bareAuthorization, envelopeWithoutJSONContentType, unvalidatedSecureAnswer,
    ]

    // MARK: seed 000, the rsa-socket app (pi-to-phone)

    public static let spkiFromExportManager = SeedQuirk(
        name: "public-key-as-export-manager-writes-it",
        behaviour: "sends `public_key=` and an SPKI PEM built by CryptoExportImportManager: 64-column base64, no newline after the END line",
        seedLine: "seed 000: publicKeyString = manager.exportRSAPublicKeyToPEM(…); outStream?.write(…)")
    public static let oneReadOf200Bytes = SeedQuirk(
        name: "one-200-byte-read",
        behaviour: "reads into a 200-byte buffer, one read per HasBytesAvailable event, and decrypts only what its last read returned",
        seedLine: "seed 000: var buffer = [UInt8](count: 200, repeatedValue: 0); inStreamLength = inStream!.read(&buffer, maxLength: buffer.count)")
    public static let pkcs1Only = SeedQuirk(
        name: "pkcs1-only",
        behaviour: "decrypts with PKCS#1 v1.5 only",
        seedLine: "seed 000: SecKeyDecrypt(privateKey!, SecPadding.PKCS1, &buffer, dataEncryptedSize, …)")
    public static let waitsWithoutDeadline = SeedQuirk(
        name: "waits-for-bytes-without-deadline",
        behaviour: "after sending `Quit` it waits for the server's bytes (a HasBytesAvailable event) with no deadline of its own: a server that answers after its own quiet gap is answered, however slow the link",
        seedLine: "seed 000: case NSStreamEvent.HasBytesAvailable:")
    public static let forcedUTF8 = SeedQuirk(
        name: "force-unwrapped-utf8",
        behaviour: "force-unwraps the plaintext as UTF-8 text, so bytes that are not UTF-8 crash the app",
        seedLine: "seed 000: NSString(bytes: &arrayDecrypted, length: arrayDecryptedSize, encoding: NSUTF8StringEncoding)!")

    // MARK: seed 001, the aes-https app (AFNetworking)

    public static let formLogin = SeedQuirk(
        name: "form-encoded-login",
        behaviour: "posts the login as application/x-www-form-urlencoded `password=…&username=…` (AFHTTPRequestSerializer, the default), not JSON",
        seedLine: "seed 001: AFHTTPSessionManager().post(\"\\(baseURL)/login\", parameters: parameters, …)")
    public static let jsonResponseSerializer = SeedQuirk(
        name: "login-answer-as-afjsonresponseserializer-reads-it",
        behaviour: "reads the login answer with AFHTTPSessionManager's default AFJSONResponseSerializer, which accepts it only with a 2xx status, a Content-Type of application/json, text/json or text/javascript, and a JSON object holding string `token` and `encryptionKey`",
        seedLine: "seed 001: AFHTTPSessionManager().post(…; if let response = responseObject as? [String: Any], let token = response[\"token\"] as? String, let encryptionKey = response[\"encryptionKey\"] as? String")
    public static let getCStringKey = SeedQuirk(
        name: "getcstring-16-byte-key",
        behaviour: "copies encryptionKey with getCString into a 16-byte buffer: 1–15 UTF-8 bytes are zero-padded; 16 or more make getCString fail and the buffer is not the key",
        seedLine: "seed 001: let keyLength = kCCKeySizeAES128 … key.getCString(&keyBytes, maxLength: keyLength + 1, encoding: .utf8)")
    public static let bareAuthorization = SeedQuirk(
        name: "bare-token-authorization",
        behaviour: "sends the token bare in Authorization (no `Bearer `)",
        seedLine: "seed 001: let headers: HTTPHeaders = [\"Authorization\": token]")
    public static let envelopeWithoutJSONContentType = SeedQuirk(
        name: "envelope-without-json-content-type",
        behaviour: "its serializer overrides AFJSONRequestSerializer's method without calling it, so no Content-Type is set, and the iOS URL loading system then labels the POST body application/x-www-form-urlencoded",
        seedLine: "seed 001: override func request(bySerializingRequest request: URLRequest, …) -> URLRequest { … mutableRequest.httpBody = encryptedJsonData")
    public static let unvalidatedSecureAnswer = SeedQuirk(
        name: "secure-answer-read-whatever-its-status",
        behaviour: "reads the secure-data answer as a {\"data\",\"iv\"} envelope whose plaintext is a JSON object; its response serializer overrides AFHTTPResponseSerializer's method without calling it, so neither status nor Content-Type is checked",
        seedLine: "seed 001: class EncryptedJSONResponseSerializer: AFHTTPResponseSerializer {… override func responseObject(for response: URLResponse, data: Data?, …)")
}

/// Why a seed-app client failed: the quirk, and what happened.
public struct SeedAppFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public let quirk: SeedQuirk
    public let what: String
    public init(_ quirk: SeedQuirk, _ what: String) { self.quirk = quirk; self.what = what }
    public var description: String { "\(what) — seed app quirk \(quirk)" }
}

/// Seed 000's iOS app as it talks rsa-socket (pi-to-phone only: the app sends its public key and
/// decrypts the server's ciphertext), with its wire behaviours as the seed's code has them, not as a
/// careful client would: it reads into one 200-byte buffer and decrypts only what the last read
/// returned, when its user presses "Decrypt" (here: when the line goes quiet); PKCS#1 v1.5 only; the
/// plaintext force-decoded as UTF-8.
public final class SeedAppRSASocketClient: SessionMachine {
    enum State { case awaitCiphertext, awaitStopped, done }
    public static let readBufferSize = 200

    let privateKey: RSAPrivateKey
    private var state = State.awaitCiphertext
    /// What the app's last `read` put at the start of its buffer.
    private var lastRead = Data()
    private var afterQuit = StoppedWatch()
    public private(set) var closed = false

    /// `privateKey`: the app's key pair (1024 bits in the seed: `let keySize = 1024`).
    public init(privateKey: RSAPrivateKey) { self.privateKey = privateKey }

    public func start() -> [SessionAction] {
        do {
            let pem = try privateKey.publicKey.exported(.spkiPEM)  // CryptoExportImportManager's layout
            return [.send(Data(RSASocket.keyPrefix.utf8) + pem)]
        } catch {
            return fail(SeedAppFailure(.spkiFromExportManager, "cannot export the app's public key: \(error)"))
        }
    }

    public func receive(_ data: Data) -> [SessionAction] {
        guard !closed else { return [] }
        switch state {
        case .awaitCiphertext:
            // One HasBytesAvailable event per read of at most 200 bytes; each read overwrites the buffer.
            var rest = data[...]
            while !rest.isEmpty {
                lastRead = Data(rest.prefix(Self.readBufferSize))
                rest = rest.dropFirst(Self.readBufferSize)
            }
            return []
        case .awaitStopped:
            guard afterQuit.arrived(data) else { return [] }
            state = .done
            closed = true
            return [.event(.serverStopped), .close]
        case .done:
            return []
        }
    }

    /// The line went quiet: the app's user presses "Decrypt" on whatever the last read returned.
    public func idle() -> [SessionAction] {
        guard !closed else { return [] }
        switch state {
        case .awaitCiphertext:
            guard !lastRead.isEmpty else { return [] }
            let k = privateKey.modulusByteCount
            // Issue 33: the server's own refusal is not a split ciphertext: say what it answered.
            if lastRead.starts(with: Data("Server: ERROR".utf8)) {
                state = .done
                closed = true
                return [.event(.failed("the server answered \"\(String(decoding: lastRead.prefix(60), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))\" "
                    + "instead of a ciphertext for the app's \(k * 8)-bit key: it refused the key or failed in its own code (its log says which)")), .close]
            }
            guard lastRead.count == k else {
                return fail(SeedAppFailure(.oneReadOf200Bytes,
                    "the app decrypted its last read, \(lastRead.count) bytes, but a ciphertext for its \(k * 8)-bit key is \(k) bytes"
                    + (k > Self.readBufferSize ? " (more than its 200-byte buffer holds)" : " (TCP split the ciphertext across reads)")))
            }
            let plaintext: Data
            do { plaintext = try privateKey.decrypt(lastRead, padding: ._WEAK_AND_INSECURE_PKCS_V1_5) } catch {
                return fail(SeedAppFailure(.pkcs1Only, "SecKeyDecrypt with PKCS#1 v1.5 refused the \(k)-byte ciphertext (does the server use OAEP?)"))
            }
            guard String(data: plaintext, encoding: .utf8) != nil else {
                // An OAEP ciphertext read as PKCS#1 v1.5 now and then passes the padding check (or,
                // with implicit rejection, always does) and "decrypts" to garbage: the cause is the
                // padding, which OAEP decryption under the app's key shows.
                for (name, oaep) in [("OAEP-SHA256", RSAEncryptionPadding.oaepSHA256), ("OAEP-SHA1", .oaepSHA1)] where (try? privateKey.decrypt(lastRead, padding: oaep)) != nil {
                    return fail(SeedAppFailure(.pkcs1Only, "the server encrypted with \(name); SecKeyDecrypt with PKCS#1 v1.5 read it as \(plaintext.count) bytes of garbage, on which the app would crash"))
                }
                return fail(SeedAppFailure(.forcedUTF8, "the app would crash: the \(plaintext.count)-byte plaintext is not UTF-8"))
            }
            state = .awaitStopped
            return [.event(.decrypted(plaintext)), .send(Data(RSASocket.quit.utf8))]
        case .awaitStopped:
            // The app has no deadline here (SeedQuirk.waitsWithoutDeadline): a quiet line is not
            // the end; whoever drives this machine bounds the wait.
            return []
        case .done:
            return []
        }
    }

    private func fail(_ failure: SeedAppFailure) -> [SessionAction] {
        state = .done
        closed = true
        return [.event(.failed("\(failure)")), .close]
    }
}

/// Seed 001's iOS app as it talks aes-https through AFNetworking: requests built and answers read
/// the way its code does (docs/PROTOCOL.md, "Client profiles"). Each step throws `SeedAppFailure`
/// naming the quirk when the server's answer is one the shipped app cannot use.
public enum SeedAppAESHTTPSClient {
    /// AFJSONResponseSerializer's acceptableContentTypes.
    public static let acceptableLoginContentTypes: Set<String> = ["application/json", "text/json", "text/javascript"]
    /// What the iOS URL loading system adds to a POST with a body and no Content-Type.
    public static let defaultPostContentType = "application/x-www-form-urlencoded"

    /// `POST /login` as AFHTTPRequestSerializer writes it: the parameters sorted by name, each
    /// percent-escaped, `application/x-www-form-urlencoded` (no charset).
    public static func loginRequest(username: String, password: String) -> WebRequest {
        AESHTTPSClient.loginRequest(username: username, password: password, encoding: .form)
    }

    /// The token and the key string, as the app takes them from the login answer.
    public static func parseLogin(_ response: WebResponse) throws -> (token: String, encryptionKey: String) {
        guard (200..<300).contains(response.status) else {
            // The login is the one request the app sends differently from a JSON client.
            throw SeedAppFailure(.formLogin, "the server answered the app's form-encoded login with \(response.status) "
                + "\(String(decoding: response.body.prefix(120), as: UTF8.self)) (and AFJSONResponseSerializer accepts only 2xx)")
        }
        let contentType = header("content-type", in: response.headers) ?? ""
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard acceptableLoginContentTypes.contains(mediaType) else {
            throw SeedAppFailure(.jsonResponseSerializer, "the login answer's Content-Type is '\(contentType)'")
        }
        guard let fields = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any],
              let token = fields["token"] as? String, let encryptionKey = fields["encryptionKey"] as? String else {
            throw SeedAppFailure(.jsonResponseSerializer, "the login answer is not a JSON object with string token and encryptionKey")
        }
        return (token, encryptionKey)
    }

    /// The AES-128 key the app makes of `encryptionKey` with getCString into 16 bytes.
    public static func key(from encryptionKey: String) throws -> Data {
        let bytes = Data(encryptionKey.utf8)
        guard bytes.count < kCCKeySizeAES128 else {
            throw SeedAppFailure(.getCStringKey, "encryptionKey is \(bytes.count) UTF-8 bytes, so getCString fails and the app encrypts under a buffer that is not the key")
        }
        return bytes + Data(count: kCCKeySizeAES128 - bytes.count)
    }

    /// `POST /secure-data`: the bare token in Authorization, the `{"data","iv"}` envelope (AES-128-CBC,
    /// fresh IV) as the body, and the Content-Type the iOS URL loading system adds because the app
    /// set none.
    public static func secureRequest(params: Data, token: String, key: Data, iv: Data = AESCBC.randomIV()) throws -> WebRequest {
        let envelope: CBCEnvelope
        do { envelope = try CBCEnvelope.seal(params, key: key, iv: iv) } catch {
            throw SeedAppFailure(.envelopeWithoutJSONContentType, "cannot seal the request: \(error)")
        }
        return WebRequest(method: "POST", path: "/secure-data", headers: ["authorization": token, "content-type": defaultPostContentType],
                          body: envelope.jsonData)
    }

    /// The decrypted answer, read as the app reads it: status and Content-Type unchecked; the body
    /// a JSON object with base64 `data` and `iv`; the plaintext a JSON object.
    public static func parseSecure(_ response: WebResponse, key: Data) throws -> Data {
        guard let fields = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any],
              let dataText = fields["data"] as? String, let ivText = fields["iv"] as? String,
              let ciphertext = Data(base64Encoded: dataText), let iv = Data(base64Encoded: ivText) else {
            let body = String(decoding: response.body.prefix(120), as: UTF8.self)
            if !(200..<300).contains(response.status) {
                // A refusal of the request: the one thing about it that differs from a JSON client is its Content-Type.
                throw SeedAppFailure(.envelopeWithoutJSONContentType,
                    "the server answered \(response.status) \(body) to the app's envelope, which goes out as \(defaultPostContentType), not application/json")
            }
            throw SeedAppFailure(.unvalidatedSecureAnswer, "the answer (status \(response.status)) is not a {\"data\",\"iv\"} envelope: \(body)")
        }
        let plaintext: Data
        do { plaintext = try AESCBC.decrypt(ciphertext, key: key, iv: iv) } catch {
            throw SeedAppFailure(.unvalidatedSecureAnswer, "CCCrypt could not decrypt the answer: \(error)")
        }
        guard (try? JSONSerialization.jsonObject(with: plaintext)) is [String: Any] else {
            throw SeedAppFailure(.unvalidatedSecureAnswer, "the decrypted answer is not a JSON object")
        }
        return plaintext
    }

    static let kCCKeySizeAES128 = 16

    static func header(_ name: String, in headers: [String: String]) -> String? {
        headers.first { $0.key.lowercased() == name }?.value
    }
}
