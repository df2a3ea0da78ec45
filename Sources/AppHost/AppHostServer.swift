import Foundation
import AppUnderTest
import Security
import LocalAuthentication

/// The loop an app's own process runs: the hello, then one answer per request, until its input
/// ends. Requests run one at a time on the calling thread (app code may expect the main thread).
public enum AppHostServer {
    /// The host's entry point (crosscheck's generated `main` calls it with the adapter's
    /// `makeAppUnderTest()`): the real stdout becomes the protocol channel and what app code
    /// prints goes to stderr, which crosscheck keeps in a log; requests come on stdin.
    public static func main(_ app: AppUnderTest) -> Never {
        signal(SIGPIPE, SIG_IGN)
        AppConsole.echo = { FileHandle.standardError.write(Data($0.utf8)) }  // seed glue prints to AppConsole: into the log too
        fflush(nil)
        let channel = dup(STDOUT_FILENO)
        guard channel >= 0, dup2(STDERR_FILENO, STDOUT_FILENO) >= 0 else {
            FileHandle.standardError.write(Data("crosscheck app host: cannot set up its output channel\n".utf8))
            exit(70)
        }
        serve(app, input: FileHandle.standardInput, output: FileHandle(fileDescriptor: channel, closeOnDealloc: true))
        exit(0)
    }

    /// Writes the hello to `output`, then answers every line of `input` until it ends.
    public static func serve(_ app: AppUnderTest, input: FileHandle, output: FileHandle) {
        guard write(["hello": hello(app)], to: output) else { return }
        let reader = LineReader(input)
        while let line = reader.next() {
            if line.isEmpty { continue }
            let reply = answer(line, app: app)
            fflush(nil)  // what the app printed meanwhile reaches its console log before crosscheck reads it for the failure
            guard write(reply, to: output) else { return }
        }
    }

    static func write(_ object: [String: Any], to output: FileHandle) -> Bool {
        do { try output.write(contentsOf: encodeLine(object)); return true } catch { return false }
    }

    /// What the app is and can do, read once from the adapter.
    static func hello(_ app: AppUnderTest) -> [String: Any] {
        var hello: [String: Any] = ["protocol": hostProtocolVersion, "identifier": app.identifier, "summary": app.summary,
                                    "capabilities": app.capabilityNames]
        if let client = app.capability(RSASocketClient.self) { hello["rsaPadding"] = client.rsaPadding }
        if let own = app.capability(RSAOwnKeyEncryption.self) { hello["rsaPadding"] = own.rsaPadding }
        if let sealing = app.capability(FileSealing.self) { hello["aeadAlgorithm"] = sealing.aeadAlgorithm }
        if let sealing = app.capability(AEADSealing.self) {
            hello["aeadAlgorithm"] = sealing.aeadAlgorithm
            if let fixed = sealing.fixedPlaintext { hello["fixedPlaintext"] = fixed.base64EncodedString() }
        }
        if let envelope = app.capability(AESEnvelopeClient.self) { hello["keyDerivation"] = envelope.keyDerivation }
        if let sealing = app.capability(SelfContainedSealing.self) { hello["boxAlgorithm"] = sealing.boxAlgorithm }
        if let signing = app.capability(MessageSigning.self) { hello["signatureAlgorithm"] = signing.signatureAlgorithm }
        if let agreement = app.capability(KeyAgreementSealing.self) {
            let scheme = agreement.keyAgreementScheme
            hello["keyAgreement"] = ["curve": scheme.curve, "publicKeyFormat": scheme.publicKeyFormat, "kdf": scheme.kdf,
                                     "salt": scheme.salt.base64EncodedString(), "sharedInfo": scheme.sharedInfo.base64EncodedString(),
                                     "keyLength": scheme.keyLength, "cipher": scheme.cipher]
        }
        if let peer = app.capability(PeerKeyEncryption.self) {
            let scheme = peer.peerKeyScheme
            hello["peerKey"] = ["keyFormats": scheme.keyFormats, "padding": scheme.padding, "appFunction": scheme.appFunction]
        }
        if let signing = app.capability(RequestSigning.self) {
            let scheme = signing.requestSigningScheme
            hello["requestSigning"] = ["algorithm": scheme.algorithm, "canonicalTemplate": scheme.canonicalTemplate, "secretEncoding": scheme.secretEncoding,
                                       "signatureEncoding": scheme.signatureEncoding, "appFunction": scheme.appFunction]
        }
        if let client = app.capability(DescribedProtocolClient.self) {
            hello["describedClient"] = ["protocol": client.describedProtocol, "conversation": client.describedConversation,
                                        "secrets": client.presharedSecrets.mapValues { $0.base64EncodedString() }]
        }
        if let store = app.capability(PasswordStore.self) {
            hello["passwordStore"] = ["itemClass": store.passwordItemClass, "onDuplicate": store.passwordOnDuplicate, "onMissing": store.passwordOnMissing]
        }
        return hello
    }

    /// One request's answer: ok, the app's failure, or a protocol error.
    static func answer(_ line: Data, app: AppUnderTest) -> [String: Any] {
        guard let request = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any],
              let id = try? HostFields(raw: request, what: "request").int("id") else {
            return ["error": "not a request: a JSON object with an integer id, an op and args"]
        }
        guard let name = request["op"] as? String, let op = HostOp(rawValue: name) else {
            return ["id": id, "error": "unknown op '\(request["op"] ?? "")'; this host speaks protocol \(hostProtocolVersion)"]
        }
        let args = HostFields(raw: request["args"] as? [String: Any] ?? [:], what: op.rawValue)
        do {
            return ["id": id, "ok": try perform(op, args, app)]
        } catch let error as HostProtocolError {
            return ["id": id, "error": error.message]
        } catch let failure as AppFailure {
            return ["id": id, "failure": ["operation": failure.operation, "detail": failure.detail]]
        } catch {
            return ["id": id, "failure": ["operation": op.rawValue, "detail": "\(type(of: error)): \(error)"]]
        }
    }

    static func adopted<T>(_ app: AppUnderTest, _ capability: T.Type, _ op: HostOp) throws -> T {
        guard let adopted = app.capability(capability) else { throw HostProtocolError("\(op.rawValue): the app does not adopt \(op.capability)") }
        return adopted
    }

    static func perform(_ op: HostOp, _ args: HostFields, _ app: AppUnderTest) throws -> [String: Any] {
        func data(_ value: Data) -> [String: Any] { ["data": value.base64EncodedString()] }
        switch op {
        case .rsaSocketPublicKeyMessage:
            return data(try adopted(app, RSASocketClient.self, op).publicKeyMessage())
        case .rsaSocketReceive:
            return data(try adopted(app, RSASocketClient.self, op).receiveEncryptedMessage(try args.bytes("bytes")))
        case .rsaSocketQuitMessage:
            return data(try adopted(app, RSASocketClient.self, op).quitMessage())
        case .rsaSocketRunSession:
            let session = try adopted(app, RSASocketSession.self, op)
            return data(try session.runSession(host: try args.string("host"), port: try args.int("port"), timeout: try args.double("timeout")))
        case .describedConverse:
            let client = try adopted(app, DescribedProtocolClient.self, op)
            return data(try client.runDescribedConversation(host: try args.string("host"), port: try args.int("port"), timeout: try args.double("timeout")))
        case .rsaOwnKeyEncrypt:
            let (ciphertext, key) = try adopted(app, RSAOwnKeyEncryption.self, op).encryptWithNewKey(try args.bytes("plaintext"))
            return ["ciphertext": ciphertext.base64EncodedString(), "privateKey": key.base64EncodedString()]
        case .keychainStore:
            try adopted(app, SymmetricKeyStorage.self, op).storeKey(try args.bytes("key"), tag: try args.string("tag"))
            return [:]
        case .keychainRead:
            return data(try adopted(app, SymmetricKeyStorage.self, op).readKey(tag: try args.string("tag")))
        case .aeadSeal:
            return data(try adopted(app, AEADSealing.self, op).seal(try args.bytes("plaintext"), key: try args.bytes("key")))
        case .aeadOpen:
            return data(try adopted(app, AEADSealing.self, op).open(try args.bytes("combined"), key: try args.bytes("key")))
        case .fileCurrentKey:
            return data(try adopted(app, FileSealing.self, op).currentKey())
        case .fileSeal:
            try adopted(app, FileSealing.self, op).sealFile(at: URL(fileURLWithPath: try args.string("source")),
                                                             to: URL(fileURLWithPath: try args.string("destination")))
            return [:]
        case .fileOpen:
            try adopted(app, FileSealing.self, op).openFile(at: URL(fileURLWithPath: try args.string("source")),
                                                             to: URL(fileURLWithPath: try args.string("destination")))
            return [:]
        case .envelopeRequestBody:
            let client = try adopted(app, AESEnvelopeClient.self, op)
            return data(try client.requestBody(parameters: try args.object("parameters"), encryptionKey: try args.string("encryptionKey")))
        case .envelopeResponseObject:
            let object = try adopted(app, AESEnvelopeClient.self, op).responseObject(body: try args.bytes("body"),
                                                                                   encryptionKey: try args.string("encryptionKey"))
            guard JSONSerialization.isValidJSONObject(["json": object]) else {
                throw AppFailure("responseObject", "the app returned \(type(of: object)), which is not a JSON value")
            }
            return ["json": object]
        case .pinningEvaluate:
            let accepted = try adopted(app, CertificatePinning.self, op).evaluateServerTrust(
                chainDER: try args.bytesList("chain"), host: try args.string("host"), pinnedCertificateDER: try args.bytes("pin"))
            return ["accepted": accepted]
        case .selfSeal:
            return data(try adopted(app, SelfContainedSealing.self, op).seal(try args.bytes("plaintext")))
        case .selfOpen:
            return data(try adopted(app, SelfContainedSealing.self, op).open(try args.bytes("box")))
        case .signingSign:
            return data(try adopted(app, MessageSigning.self, op).sign(try args.bytes("message")))
        case .signingPublicKey:
            return data(try adopted(app, MessageSigning.self, op).publicKey())
        case .keyAgreementSeal:
            let (publicKey, box) = try adopted(app, KeyAgreementSealing.self, op).agreeAndSeal(piPublicKey: try args.bytes("piPublicKey"),
                                                                                               plaintext: try args.bytes("plaintext"))
            return ["publicKey": publicKey.base64EncodedString(), "box": box.base64EncodedString()]
        case .passwordSave:
            try adopted(app, PasswordStore.self, op).savePassword(try args.string("password"), account: try args.string("account"))
            return [:]
        case .passwordRead:
            return try adopted(app, PasswordStore.self, op).readPassword(account: try args.string("account")).map { ["password": $0] } ?? [:]
        case .passwordUpdate:
            try adopted(app, PasswordStore.self, op).updatePassword(try args.string("password"), account: try args.string("account"))
            return [:]
        case .passwordDelete:
            try adopted(app, PasswordStore.self, op).deletePassword(account: try args.string("account"))
            return [:]
        case .peerKeyEncrypt:
            return data(try adopted(app, PeerKeyEncryption.self, op).encrypt(try args.bytes("plaintext"), toPeerKey: try args.bytes("key"),
                                                                             format: try args.string("format")))
        case .requestSign:
            let fields = HostFields(raw: try args.object("request"), what: "\(op.rawValue) request")
            let request = SignableRequest(method: try fields.string("method"), path: try fields.string("path"), query: try fields.string("query"),
                                          timestamp: try fields.string("timestamp"), nonce: try fields.string("nonce"), body: try fields.bytes("body"))
            return data(try adopted(app, RequestSigning.self, op).signRequest(request, secret: try args.bytes("secret")))
        case .requestPublicKey:
            return data(try adopted(app, RequestSigning.self, op).requestSigningPublicKey())
        case .storageFacts:
            return storageFacts()
        case .protectedDeclared:
            return ["flags": try adopted(app, ProtectedSecretStorage.self, op).declaredAccessControl]
        case .protectedStore:
            try adopted(app, ProtectedSecretStorage.self, op).storeProtectedSecret(try args.bytes("secret"), name: try args.string("name"))
            return [:]
        case .protectedRead:
            let storage = try adopted(app, ProtectedSecretStorage.self, op)
            let name = try args.string("name")
            guard let choice = args.raw["user"] as? String else { return data(try storage.readProtectedSecret(name: name)) }
            guard let user = SimulatedUser(rawValue: choice) else { throw AppFailure("readProtectedSecret", "no simulated user '\(choice)'") }
            return data(try SimulatedUser.with(user) { try storage.readProtectedSecret(name: name) })
        }
    }
}

extension AppHostServer {
    /// The process's keychain items and exported private keys, after its defaults are on disk.
    static func storageFacts() -> [String: Any] {
        fflush(nil)
        _ = UserDefaults.standard.synchronize()
        let items: [[String: Any]] = InMemoryKeychain.everyStoredItem.map { item in
            var entry: [String: Any] = ["class": item.itemClass, "requested": item.requested, "accessible": item.accessible,
                                        "generatedPermanentKey": item.generatedPermanentKey, "privateKey": item.isPrivateKey]
            if let value = item.value { entry["value"] = value.base64EncodedString() }
            if let keyClass = item.keyClass { entry["keyClass"] = keyClass }
            return entry
        }
        return ["keychain": items, "exportedPrivateKeys": InMemoryKeychain.exportedPrivateKeys.map { $0.base64EncodedString() },
                "simulatedUser": SimulatedUser.current.rawValue, "policyEvaluations": LAContext.policyEvaluations]
    }
}
