import Foundation
import AppUnderTest

/// An app in a host of its own, seen through the same capability protocols as an app in process.
/// It adopts all of them, but `capability(_:)` answers only for those the host's hello lists.
/// Every request has a deadline: a host that hangs is stopped, one that dies is noticed, and both
/// become `AppUnreachable` (an error testcase, never a verdict and never a hang). The next request
/// starts the host again, at most `maximumRestarts` times.
/// Launched in a container (`container`), it also answers as `KeyStorageInspection`, recording
/// every key that crosses between crosscheck and the app for the key-storage audit.
public final class HostedApp: AppUnderTest, RSASocketClient, RSASocketSession, DescribedProtocolClient, RSAOwnKeyEncryption, SymmetricKeyStorage, AEADSealing,
    FileSealing, AESEnvelopeClient, CertificatePinning, SelfContainedSealing, MessageSigning, KeyAgreementSealing, PasswordStore, KeyStorageInspection,
    ProtectedSecretStorage, SimulatedUserPrompts, PeerKeyEncryption, RequestSigning, @unchecked Sendable {
    public let identifier: String
    public let summary: String
    /// The capability protocols the app adopts, as its host said.
    public let capabilities: [String]
    public let rsaPadding: String
    public let aeadAlgorithm: String
    public let fixedPlaintext: Data?
    public let keyDerivation: String
    public let boxAlgorithm: String
    public let signatureAlgorithm: String
    public let keyAgreementScheme: KeyAgreementScheme
    public let passwordItemClass: String
    public let passwordOnDuplicate: String
    public let passwordOnMissing: String
    public let peerKeyScheme: PeerKeyScheme
    public let requestSigningScheme: RequestSigningScheme
    public let describedProtocol: String
    public let describedConversation: String
    public let presharedSecrets: [String: Data]
    public let maximumRestarts: Int
    /// How long one request may take (a session gets more: see `runSession`).
    public let requestTimeout: TimeInterval

    /// The app's container, when it runs in one.
    public let appContainer: AppContainer?
    private var recordedKeys: [KeyMaterial] = []
    private let launch: () throws -> HostChannel
    private let helloTimeout: TimeInterval
    private var channel: HostChannel?
    private var restarts = 0
    private var nextID = 1
    private var cachedQuitMessage: Data?
    private let lock = NSLock()

    /// Starts the host with `launch` and reads its hello; throws `HostStartError` when it does
    /// not answer as a host within `helloTimeout`.
    /// `container`: the one `launch` runs the host in (its environment), for the key-storage audit.
    public init(launch: @escaping () throws -> HostChannel, container: AppContainer? = nil, requestTimeout: TimeInterval = 60,
                helloTimeout: TimeInterval = 30, maximumRestarts: Int = 2) throws {
        self.launch = launch
        appContainer = container
        self.requestTimeout = requestTimeout
        self.helloTimeout = helloTimeout
        self.maximumRestarts = maximumRestarts
        let channel: HostChannel
        do { channel = try launch() } catch { throw HostStartError("cannot start the app's host: \(error)", log: "") }
        let hello = try Self.readHello(channel, timeout: helloTimeout)
        identifier = hello.identifier
        summary = hello.summary
        capabilities = hello.capabilities
        rsaPadding = hello.rsaPadding
        aeadAlgorithm = hello.aeadAlgorithm
        fixedPlaintext = hello.fixedPlaintext
        keyDerivation = hello.keyDerivation
        boxAlgorithm = hello.boxAlgorithm
        signatureAlgorithm = hello.signatureAlgorithm
        keyAgreementScheme = hello.keyAgreementScheme
        (passwordItemClass, passwordOnDuplicate, passwordOnMissing) = hello.passwordStore
        peerKeyScheme = hello.peerKeyScheme
        requestSigningScheme = hello.requestSigningScheme
        (describedProtocol, describedConversation, presharedSecrets) = hello.describedClient
        self.channel = channel
    }

    deinit { channel?.stop() }

    /// Ends the host process.
    public func stop() {
        lock.lock(); defer { lock.unlock() }
        channel?.stop()
        channel = nil
    }

    public func capability<T>(_ capability: T.Type) -> T? {
        if ObjectIdentifier(capability) == ObjectIdentifier((any KeyStorageInspection).self) { return appContainer == nil ? nil : self as? T }
        if ObjectIdentifier(capability) == ObjectIdentifier((any SimulatedUserPrompts).self) { return capabilities.contains("ProtectedSecretStorage") ? self as? T : nil }
        guard let name = Self.capabilityName(capability), capabilities.contains(name) else { return nil }
        return self as? T
    }

    static func capabilityName(_ type: Any.Type) -> String? {
        let known: [(String, Any.Type)] = [
            ("RSASocketClient", (any RSASocketClient).self), ("RSASocketSession", (any RSASocketSession).self),
            ("RSAOwnKeyEncryption", (any RSAOwnKeyEncryption).self), ("SymmetricKeyStorage", (any SymmetricKeyStorage).self),
            ("AEADSealing", (any AEADSealing).self), ("FileSealing", (any FileSealing).self),
            ("AESEnvelopeClient", (any AESEnvelopeClient).self), ("CertificatePinning", (any CertificatePinning).self),
            ("SelfContainedSealing", (any SelfContainedSealing).self), ("MessageSigning", (any MessageSigning).self),
            ("KeyAgreementSealing", (any KeyAgreementSealing).self), ("PasswordStore", (any PasswordStore).self),
            ("ProtectedSecretStorage", (any ProtectedSecretStorage).self), ("PeerKeyEncryption", (any PeerKeyEncryption).self),
            ("RequestSigning", (any RequestSigning).self), ("DescribedProtocolClient", (any DescribedProtocolClient).self),
        ]
        return known.first { ObjectIdentifier($0.1) == ObjectIdentifier(type) }?.0
    }

    // MARK: the capabilities, as requests

    public func publicKeyMessage() throws -> Data { try request(.rsaSocketPublicKeyMessage, [:]).bytes("data") }

    public func receiveEncryptedMessage(_ bytes: Data) throws -> Data {
        try request(.rsaSocketReceive, ["bytes": bytes.base64EncodedString()]).bytes("data")
    }

    /// Asked once and kept (the protocol's method cannot throw; a host that is gone gives the last answer).
    public func quitMessage() -> Data {
        if let cached = lock.withLock({ cachedQuitMessage }) { return cached }
        let message = (try? request(.rsaSocketQuitMessage, [:]).bytes("data")) ?? Data()
        lock.withLock { cachedQuitMessage = message.isEmpty ? nil : message }
        return message
    }

    public func runSession(host: String, port: Int, timeout: TimeInterval) throws -> Data {
        try request(.rsaSocketRunSession, ["host": host, "port": port, "timeout": timeout], timeout: max(requestTimeout, timeout * 4 + 10)).bytes("data")
    }

    public func runDescribedConversation(host: String, port: Int, timeout: TimeInterval) throws -> Data {
        try request(.describedConverse, ["host": host, "port": port, "timeout": timeout], timeout: max(requestTimeout, timeout * 4 + 10)).bytes("data")
    }

    public func encryptWithNewKey(_ plaintext: Data) throws -> (ciphertext: Data, privateKeyPKCS1DER: Data) {
        let answer = try request(.rsaOwnKeyEncrypt, ["plaintext": plaintext.base64EncodedString()])
        return (try answer.bytes("ciphertext"), record(try answer.bytes("privateKey"), "the private key the app made (rsa-own-key.encrypt)"))
    }

    public func storeKey(_ key: Data, tag: String) throws {
        _ = try request(.keychainStore, ["key": record(key, "the key crosscheck gave the app to keep (keychain.store)").base64EncodedString(), "tag": tag])
    }

    public func readKey(tag: String) throws -> Data {
        record(try request(.keychainRead, ["tag": tag]).bytes("data"), "the key the app read back (keychain.read)")
    }

    public func seal(_ plaintext: Data, key: Data) throws -> Data {
        try request(.aeadSeal, ["plaintext": plaintext.base64EncodedString(),
                                "key": record(key, "the key crosscheck gave the app to seal with (aead.seal)").base64EncodedString()]).bytes("data")
    }

    public func open(_ combined: Data, key: Data) throws -> Data {
        try request(.aeadOpen, ["combined": combined.base64EncodedString(),
                                "key": record(key, "the key crosscheck gave the app to open with (aead.open)").base64EncodedString()]).bytes("data")
    }

    public func currentKey() throws -> Data { record(try request(.fileCurrentKey, [:]).bytes("data"), "the app's file-sealing key (file.current-key)") }

    public func sealFile(at source: URL, to destination: URL) throws {
        _ = try request(.fileSeal, ["source": source.path, "destination": destination.path])
    }

    public func openFile(at source: URL, to destination: URL) throws {
        _ = try request(.fileOpen, ["source": source.path, "destination": destination.path])
    }

    public func requestBody(parameters: [String: Any], encryptionKey: String) throws -> Data {
        record(Data(encryptionKey.utf8), "the server's encryptionKey crosscheck gave the app (envelope.request-body)")
        guard JSONSerialization.isValidJSONObject(parameters) else { throw AppFailure("requestBody", "the parameters are not a JSON object") }
        return try request(.envelopeRequestBody, ["parameters": parameters, "encryptionKey": encryptionKey]).bytes("data")
    }

    public func responseObject(body: Data, encryptionKey: String) throws -> Any {
        let answer = try request(.envelopeResponseObject, ["body": body.base64EncodedString(), "encryptionKey": encryptionKey])
        guard let object = answer.raw["json"] else { throw AppUnreachable("the host's answer to \(HostOp.envelopeResponseObject.rawValue) has no json") }
        return object
    }

    public func evaluateServerTrust(chainDER: [Data], host: String, pinnedCertificateDER: Data) throws -> Bool {
        try request(.pinningEvaluate, ["chain": chainDER.map { $0.base64EncodedString() }, "host": host,
                                       "pin": pinnedCertificateDER.base64EncodedString()]).bool("accepted")
    }

    public func seal(_ plaintext: Data) throws -> Data { try request(.selfSeal, ["plaintext": plaintext.base64EncodedString()]).bytes("data") }

    public func open(_ box: Data) throws -> Data { try request(.selfOpen, ["box": box.base64EncodedString()]).bytes("data") }

    public func sign(_ message: Data) throws -> Data { try request(.signingSign, ["message": message.base64EncodedString()]).bytes("data") }

    public func publicKey() throws -> Data { try request(.signingPublicKey, [:]).bytes("data") }

    public func agreeAndSeal(piPublicKey: Data, plaintext: Data) throws -> (publicKey: Data, box: Data) {
        let answer = try request(.keyAgreementSeal, ["piPublicKey": piPublicKey.base64EncodedString(), "plaintext": plaintext.base64EncodedString()])
        return (try answer.bytes("publicKey"), try answer.bytes("box"))
    }

    public func encrypt(_ plaintext: Data, toPeerKey key: Data, format: String) throws -> Data {
        try request(.peerKeyEncrypt, ["plaintext": plaintext.base64EncodedString(), "key": key.base64EncodedString(), "format": format]).bytes("data")
    }

    public func signRequest(_ signable: SignableRequest, secret: Data) throws -> Data {
        if !secret.isEmpty { _ = record(secret, "the request-signing secret crosscheck gave the app (request-signing.sign)") }
        let fields: [String: Any] = ["method": signable.method, "path": signable.path, "query": signable.query, "timestamp": signable.timestamp,
                                     "nonce": signable.nonce, "body": signable.body.base64EncodedString()]
        return try request(.requestSign, ["request": fields, "secret": secret.base64EncodedString()]).bytes("data")
    }

    public func requestSigningPublicKey() throws -> Data { try request(.requestPublicKey, [:]).bytes("data") }

    public func savePassword(_ password: String, account: String) throws {
        _ = try request(.passwordSave, ["password": recordPassword(password, "password.save"), "account": account])
    }

    public func readPassword(account: String) throws -> String? {
        let answer = try request(.passwordRead, ["account": account])
        return answer.raw["password"] == nil ? nil : try answer.string("password")
    }

    public func updatePassword(_ password: String, account: String) throws {
        _ = try request(.passwordUpdate, ["password": recordPassword(password, "password.update"), "account": account])
    }

    public func deletePassword(account: String) throws { _ = try request(.passwordDelete, ["account": account]) }

    /// A password is looked for by the key-storage audit as a key is.
    private func recordPassword(_ password: String, _ op: String) -> String {
        record(Data(password.utf8), "the password crosscheck gave the app to keep (\(op))")
        return password
    }

    // MARK: key storage

    public var container: AppContainer { appContainer ?? AppContainer(folder: URL(fileURLWithPath: "/nonexistent")) }

    public var keyMaterial: [KeyMaterial] { lock.withLock { recordedKeys } }

    public func storageFacts() throws -> StorageFacts {
        let answer = try request(.storageFacts, [:])
        guard let items = answer.raw["keychain"] as? [[String: Any]] else { throw AppUnreachable("the host's storage facts have no keychain list") }
        let records = try items.map { raw -> KeychainItemRecord in
            let item = HostFields(raw: raw, what: "a keychain item in the host's storage facts")
            guard let requested = raw["requested"] as? [String: String] else {
                throw AppUnreachable("a keychain item in the host's storage facts has no 'requested' attributes")
            }
            return KeychainItemRecord(itemClass: try item.string("class"), requested: requested, accessible: try item.string("accessible"),
                                      value: raw["value"] == nil ? nil : try item.bytes("value"),
                                      generatedPermanentKey: try item.bool("generatedPermanentKey"), isPrivateKey: try item.bool("privateKey"),
                                      keyClass: raw["keyClass"] as? String)
        }
        return StorageFacts(keychainItems: records, exportedPrivateKeys: try answer.bytesList("exportedPrivateKeys"),
                            simulatedUser: answer.raw["simulatedUser"] as? String ?? "present",
                            policyEvaluations: answer.raw["policyEvaluations"] as? Int ?? 0)
    }

    // MARK: ProtectedSecretStorage, SimulatedUserPrompts

    /// Asked each time (the protocol's property cannot throw: a host that is gone declares nothing).
    public var declaredAccessControl: [String] {
        guard let answer = try? request(.protectedDeclared, [:]) else { return [] }
        return answer.raw["flags"] as? [String] ?? []
    }

    public func storeProtectedSecret(_ secret: Data, name: String) throws {
        _ = try request(.protectedStore, ["secret": record(secret, "the secret crosscheck gave the app to protect (protected-secret.store)").base64EncodedString(),
                                          "name": name])
    }

    public func readProtectedSecret(name: String) throws -> Data { try request(.protectedRead, ["name": name]).bytes("data") }

    public func readProtectedSecret(name: String, answeredBy user: String) throws -> Data {
        try request(.protectedRead, ["name": name, "user": user]).bytes("data")
    }

    /// Notes a key that crossed (once per distinct key), and returns it.
    @discardableResult
    private func record(_ key: Data, _ what: String) -> Data {
        guard !key.isEmpty else { return key }
        lock.withLock { if !recordedKeys.contains(where: { $0.bytes == key }) { recordedKeys.append(KeyMaterial(key, what)) } }
        return key
    }

    // MARK: requests

    /// One request and its answer. The app's refusal is thrown as its `AppFailure`; anything that
    /// keeps the app from answering is `AppUnreachable`.
    func request(_ op: HostOp, _ args: [String: Any], timeout: TimeInterval? = nil) throws -> HostFields {
        lock.lock(); defer { lock.unlock() }
        let channel = try liveChannel(for: op)
        let id = nextID
        nextID += 1
        do { try channel.send(encodeLine(["id": id, "op": op.rawValue, "args": args])) } catch {
            throw unreachable(channel, "could not send \(op.rawValue) to the host (\(error))")
        }
        let limit = timeout ?? requestTimeout
        let deadline = Date().addingTimeInterval(limit)
        while true {
            switch channel.next(deadline: deadline) {
            case .timedOut:
                throw unreachable(channel, "no answer to \(op.rawValue) within \(Int(limit)) s (a hang in the app's code?); the host was stopped")
            case .ended:
                throw unreachable(channel, "the host \(Self.ended(channel)) while answering \(op.rawValue)")
            case let .line(line):
                guard let message = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any] else {
                    throw unreachable(channel, "the host answered \(op.rawValue) with a line that is not JSON: \(String(decoding: line.prefix(200), as: UTF8.self))")
                }
                guard let answerID = try? HostFields(raw: message, what: "answer").int("id"), answerID == id else {
                    if let error = message["error"] as? String { throw unreachable(channel, "the host refused a request: \(error)") }
                    continue  // an answer to an earlier request that timed out
                }
                if let ok = message["ok"] as? [String: Any] { return HostFields(raw: ok, what: "the host's answer to \(op.rawValue)") }
                if let failure = message["failure"] as? [String: Any] {
                    throw AppFailure(failure["operation"] as? String ?? op.rawValue, failure["detail"] as? String ?? "")
                }
                throw unreachable(channel, "the host could not serve \(op.rawValue): \(message["error"] as? String ?? "an answer without ok, failure or error")")
            }
        }
    }

    /// The running host, started again if it died (at most `maximumRestarts` times).
    private func liveChannel(for op: HostOp) throws -> HostChannel {
        if let channel { return channel }
        guard restarts < maximumRestarts else {
            throw AppUnreachable("the host was started \(restarts + 1) times and is gone again; \(op.rawValue) not sent")
        }
        restarts += 1
        let fresh: HostChannel
        do { fresh = try launch() } catch { throw AppUnreachable("cannot start the host again: \(error)") }
        let hello: Hello
        do { hello = try Self.readHello(fresh, timeout: helloTimeout) } catch { throw AppUnreachable("the host started again but: \(error)") }
        guard hello.identifier == identifier, hello.capabilities == capabilities else {
            fresh.stop()
            throw AppUnreachable("the host started again as another app (\(hello.identifier), \(hello.capabilities))")
        }
        channel = fresh
        return fresh
    }

    private func unreachable(_ channel: HostChannel, _ what: String) -> AppUnreachable {
        channel.stop()
        if self.channel === channel { self.channel = nil }
        let tail = channel.logTail()
        return AppUnreachable(what + (tail.isEmpty ? "" : "\n--- the host's stderr (\(channel.log?.path ?? "")) ends with:\n\(tail)"))
    }

    private static func ended(_ channel: HostChannel) -> String {
        channel.exitDescription(waitingUpTo: 1) ?? "closed its output"
    }

    // MARK: hello

    struct Hello {
        let identifier, summary: String
        let capabilities: [String]
        let rsaPadding, aeadAlgorithm, keyDerivation: String
        let fixedPlaintext: Data?
        var boxAlgorithm = "", signatureAlgorithm = ""
        var keyAgreementScheme = KeyAgreementScheme(curve: "", publicKeyFormat: "", kdf: "", salt: Data(), sharedInfo: Data(), keyLength: 0, cipher: "")
        var passwordStore = ("", "", "")
        var peerKeyScheme = PeerKeyScheme(keyFormats: [], padding: "", appFunction: "")
        var requestSigningScheme = RequestSigningScheme(algorithm: "", canonicalTemplate: "", secretEncoding: "", signatureEncoding: "", appFunction: "")
        var describedClient: (String, String, [String: Data]) = ("", "", [:])
    }

    static func readHello(_ channel: HostChannel, timeout: TimeInterval) throws -> Hello {
        let fail = { (problem: String) -> HostStartError in
            channel.stop()
            return HostStartError(problem, log: channel.logTail())
        }
        switch channel.next(deadline: Date().addingTimeInterval(timeout)) {
        case .timedOut: throw fail("the app's host said nothing within \(Int(timeout)) s")
        case .ended: throw fail("the app's host \(ended(channel)) before saying hello")
        case let .line(line):
            guard let message = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any], let hello = message["hello"] as? [String: Any] else {
                throw fail("the app's host began with something that is not a hello: \(String(decoding: line.prefix(200), as: UTF8.self))")
            }
            guard (hello["protocol"] as? NSNumber)?.intValue == hostProtocolVersion else {
                throw fail("the app's host speaks protocol \(hello["protocol"] ?? "?"); crosscheck speaks \(hostProtocolVersion): rebuild it")
            }
            guard let identifier = hello["identifier"] as? String, !identifier.isEmpty, let summary = hello["summary"] as? String,
                  let capabilities = hello["capabilities"] as? [String] else {
                throw fail("the app's hello lacks its identifier, summary or capabilities")
            }
            let fixed = (hello["fixedPlaintext"] as? String).flatMap { Data(base64Encoded: $0) }
            var read = Hello(identifier: identifier, summary: summary, capabilities: capabilities, rsaPadding: hello["rsaPadding"] as? String ?? "",
                             aeadAlgorithm: hello["aeadAlgorithm"] as? String ?? "", keyDerivation: hello["keyDerivation"] as? String ?? "",
                             fixedPlaintext: fixed)
            read.boxAlgorithm = hello["boxAlgorithm"] as? String ?? ""
            read.signatureAlgorithm = hello["signatureAlgorithm"] as? String ?? ""
            if let scheme = hello["keyAgreement"] as? [String: Any] {
                let fields = HostFields(raw: scheme, what: "the hello's keyAgreement")
                do {
                    read.keyAgreementScheme = KeyAgreementScheme(curve: try fields.string("curve"), publicKeyFormat: try fields.string("publicKeyFormat"),
                                                                 kdf: try fields.string("kdf"), salt: try fields.bytes("salt"),
                                                                 sharedInfo: try fields.bytes("sharedInfo"), keyLength: try fields.int("keyLength"),
                                                                 cipher: try fields.string("cipher"))
                } catch { throw fail("\(error)") }
            }
            if let peer = hello["peerKey"] as? [String: Any] {
                read.peerKeyScheme = PeerKeyScheme(keyFormats: peer["keyFormats"] as? [String] ?? [], padding: peer["padding"] as? String ?? "",
                                                   appFunction: peer["appFunction"] as? String ?? "")
            }
            if let signing = hello["requestSigning"] as? [String: Any] {
                let text = { (name: String) in signing[name] as? String ?? "" }
                read.requestSigningScheme = RequestSigningScheme(algorithm: text("algorithm"), canonicalTemplate: text("canonicalTemplate"),
                                                                 secretEncoding: text("secretEncoding"), signatureEncoding: text("signatureEncoding"),
                                                                 appFunction: text("appFunction"))
            }
            if let client = hello["describedClient"] as? [String: Any] {
                let secrets = (client["secrets"] as? [String: String] ?? [:]).compactMapValues { Data(base64Encoded: $0) }
                read.describedClient = (client["protocol"] as? String ?? "", client["conversation"] as? String ?? "", secrets)
            }
            if let store = hello["passwordStore"] as? [String: Any] {
                read.passwordStore = (store["itemClass"] as? String ?? "", store["onDuplicate"] as? String ?? "", store["onMissing"] as? String ?? "")
            }
            return read
        }
    }
}

/// The host did not start as a host: what happened, and the end of its stderr.
public struct HostStartError: Error, CustomStringConvertible, Sendable {
    public let problem: String
    public let log: String
    public init(_ problem: String, log: String) { self.problem = problem; self.log = log }
    public var description: String { problem + (log.isEmpty ? "" : "\n--- its stderr ends with:\n\(log)") }
}
