// AppHost — an app under test in a process of its own (`crosscheck run --app DIR`): both ends of
// the host protocol and the package that builds the app. `AppHostServer` is the JSON-lines loop
// the app's process runs over any `AppUnderTest`; `HostedApp` is the proxy crosscheck talks to,
// adopting the same capability protocols, so the suites see one interface whether the app is a
// seed app in process or a team's app out of process; `AppPackage` writes a small SwiftPM package
// around the team's files (depending on this checkout by path) and builds it; `XcodeProject` reads
// which files an Xcode target holds.
// May import: AppUnderTest, Security (the in-memory keychain the host reports), LocalAuthentication (its evaluatePolicy count), Foundation.
// Nothing of the harness: a team's package builds it too.
//
// The protocol (version 1), one JSON object per line each way, bytes as standard base64:
//   host → crosscheck, first:  {"hello": {"protocol": 1, "identifier", "summary", "capabilities": [...],
//                                          "rsaPadding"?, "aeadAlgorithm"?, "fixedPlaintext"?, "keyDerivation"?,
//                                          "boxAlgorithm"?, "signatureAlgorithm"?, "keyAgreement"? ({"curve",
//                                          "publicKeyFormat", "kdf", "salt", "sharedInfo", "keyLength", "cipher"}),
//                                          "passwordStore"? ({"itemClass", "onDuplicate", "onMissing"}),
//                                          "peerKey"? ({"keyFormats", "padding", "appFunction"}),
//                                          "requestSigning"? ({"algorithm", "canonicalTemplate", "secretEncoding",
//                                          "signatureEncoding", "appFunction"})}}
//   crosscheck → host:         {"id": N, "op": "aead.seal", "args": {...}}
//   host → crosscheck:         {"id": N, "ok": {...}}                       the app answered
//                              {"id": N, "failure": {"operation", "detail"}}  the app refused (threw)
//                              {"id": N, "error": "..."}                      not a request the host can serve
// The ops are `HostOp`'s cases; each names its arguments and its answer there.
import Foundation
import AppUnderTest

/// The protocol's version; a host that says another is refused.
public let hostProtocolVersion = 1

/// The requests a host serves: one per capability method.
public enum HostOp: String, CaseIterable, Sendable {
    /// → {"data"}
    case rsaSocketPublicKeyMessage = "rsa-socket-client.public-key-message"
    /// {"bytes"} → {"data"}
    case rsaSocketReceive = "rsa-socket-client.receive"
    /// → {"data"}
    case rsaSocketQuitMessage = "rsa-socket-client.quit-message"
    /// {"host", "port", "timeout"} → {"data"}
    case rsaSocketRunSession = "rsa-socket-session.run"
    /// {"host", "port", "timeout"} → {"data"}
    case describedConverse = "described-client.converse"
    /// {"plaintext"} → {"ciphertext", "privateKey"}
    case rsaOwnKeyEncrypt = "rsa-own-key.encrypt"
    /// {"key", "tag"} → {}
    case keychainStore = "keychain.store"
    /// {"tag"} → {"data"}
    case keychainRead = "keychain.read"
    /// {"plaintext", "key"} → {"data"}
    case aeadSeal = "aead.seal"
    /// {"combined", "key"} → {"data"}
    case aeadOpen = "aead.open"
    /// → {"data"}
    case fileCurrentKey = "file.current-key"
    /// {"source", "destination"} (paths) → {}
    case fileSeal = "file.seal"
    /// {"source", "destination"} (paths) → {}
    case fileOpen = "file.open"
    /// {"parameters" (a JSON object), "encryptionKey"} → {"data"}
    case envelopeRequestBody = "envelope.request-body"
    /// {"body", "encryptionKey"} → {"json"} (any JSON value)
    case envelopeResponseObject = "envelope.response-object"
    /// {"chain" ([base64]), "host", "pin"} → {"accepted"}
    case pinningEvaluate = "pinning.evaluate"
    /// {"plaintext"} → {"data"}
    case selfSeal = "self-sealing.seal"
    /// {"box"} → {"data"}
    case selfOpen = "self-sealing.open"
    /// {"message"} → {"data"}
    case signingSign = "signing.sign"
    /// → {"data"}
    case signingPublicKey = "signing.public-key"
    /// {"piPublicKey", "plaintext"} → {"publicKey", "box"}
    case keyAgreementSeal = "key-agreement.agree-and-seal"
    /// {"password", "account"} → {}
    case passwordSave = "password.save"
    /// {"account"} → {"password"?} (absent: the app read nil)
    case passwordRead = "password.read"
    /// {"password", "account"} → {}
    case passwordUpdate = "password.update"
    /// {"account"} → {}
    case passwordDelete = "password.delete"
    /// → {"keychain" ([item]), "exportedPrivateKeys" ([base64])}; the host writes its defaults to
    /// disk first. An item: {"class", "requested" ({name: value}), "accessible", "value"?,
    /// "generatedPermanentKey", "privateKey"}. Served for every app (the key-storage audit).
    case storageFacts = "host.storage-facts"
    /// → {"flags" ([String])}
    case protectedDeclared = "protected-secret.declared"
    /// {"secret", "name"} → {}
    case protectedStore = "protected-secret.store"
    /// {"name", "user"?} → {"data"}; the host's simulated user answers as "user" says for this read.
    case protectedRead = "protected-secret.read"
    /// {"plaintext", "key", "format"} → {"data"}
    case peerKeyEncrypt = "peer-key.encrypt"
    /// {"request": {"method", "path", "query", "timestamp", "nonce", "body"}, "secret"} → {"data"}
    case requestSign = "request-signing.sign"
    /// → {"data"}
    case requestPublicKey = "request-signing.public-key"

    /// The capability protocol the op belongs to.
    public var capability: String {
        switch self {
        case .rsaSocketPublicKeyMessage, .rsaSocketReceive, .rsaSocketQuitMessage: return "RSASocketClient"
        case .rsaSocketRunSession: return "RSASocketSession"
        case .describedConverse: return "DescribedProtocolClient"
        case .rsaOwnKeyEncrypt: return "RSAOwnKeyEncryption"
        case .keychainStore, .keychainRead: return "SymmetricKeyStorage"
        case .aeadSeal, .aeadOpen: return "AEADSealing"
        case .fileCurrentKey, .fileSeal, .fileOpen: return "FileSealing"
        case .envelopeRequestBody, .envelopeResponseObject: return "AESEnvelopeClient"
        case .pinningEvaluate: return "CertificatePinning"
        case .selfSeal, .selfOpen: return "SelfContainedSealing"
        case .signingSign, .signingPublicKey: return "MessageSigning"
        case .keyAgreementSeal: return "KeyAgreementSealing"
        case .passwordSave, .passwordRead, .passwordUpdate, .passwordDelete: return "PasswordStore"
        case .storageFacts: return "KeyStorageInspection"
        case .protectedDeclared, .protectedStore, .protectedRead: return "ProtectedSecretStorage"
        case .peerKeyEncrypt: return "PeerKeyEncryption"
        case .requestSign, .requestPublicKey: return "RequestSigning"
        }
    }
}

/// Reading the loose JSON of one message, with errors that say which field was wrong.
struct HostFields {
    let raw: [String: Any]
    let what: String

    func bytes(_ name: String) throws -> Data {
        guard let text = raw[name] as? String, let data = Data(base64Encoded: text) else { throw HostProtocolError("\(what): '\(name)' must be base64") }
        return data
    }
    func string(_ name: String) throws -> String {
        guard let text = raw[name] as? String else { throw HostProtocolError("\(what): '\(name)' must be a string") }
        return text
    }
    func int(_ name: String) throws -> Int {
        guard let number = raw[name] as? NSNumber, let value = Int(exactly: number.doubleValue) else { throw HostProtocolError("\(what): '\(name)' must be an integer") }
        return value
    }
    func double(_ name: String) throws -> Double {
        guard let number = raw[name] as? NSNumber else { throw HostProtocolError("\(what): '\(name)' must be a number") }
        return number.doubleValue
    }
    func bool(_ name: String) throws -> Bool {
        guard let value = raw[name] as? Bool else { throw HostProtocolError("\(what): '\(name)' must be true or false") }
        return value
    }
    func object(_ name: String) throws -> [String: Any] {
        guard let value = raw[name] as? [String: Any] else { throw HostProtocolError("\(what): '\(name)' must be a JSON object") }
        return value
    }
    func bytesList(_ name: String) throws -> [Data] {
        guard let list = raw[name] as? [String] else { throw HostProtocolError("\(what): '\(name)' must be a list of base64 strings") }
        return try list.map { text in
            guard let data = Data(base64Encoded: text) else { throw HostProtocolError("\(what): '\(name)' holds something that is not base64") }
            return data
        }
    }
}

/// A message that breaks the protocol (either side), as text a person can act on.
public struct HostProtocolError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One JSON object as one line (no newline inside: JSONSerialization escapes them).
func encodeLine(_ object: [String: Any]) -> Data {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        ?? Data(#"{"error":"the host could not encode its answer as JSON"}"#.utf8)
    return data + Data([0x0A])
}

/// Splits what a file handle delivers into lines; nil at the end of the stream.
final class LineReader {
    private let handle: FileHandle
    private var buffer = Data()
    private var ended = false

    init(_ handle: FileHandle) { self.handle = handle }

    func next() -> Data? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = Data(buffer[buffer.index(after: newline)...])
                return Data(line)
            }
            if ended {
                guard !buffer.isEmpty else { return nil }
                defer { buffer = Data() }
                return buffer
            }
            let chunk = handle.availableData
            if chunk.isEmpty { ended = true } else { buffer += chunk }
        }
    }
}
