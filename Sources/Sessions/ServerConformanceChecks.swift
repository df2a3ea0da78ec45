import Foundation
import Conformance
import WireCrypto
import WireProtocol

/// What every rsa-socket server must do whoever the client is: pass binary ciphertexts intact
/// under legacy framing, and answer every malformed input with exactly `Server: ERROR` and a close.
enum ServerConformanceChecks {
    static func checks(_ context: SessionContext) -> [Check] {
        guard context.options.inProcess else { return [] }
        var checks: [Check] = []
        for server in context.sessions {
            var list = CheckList(suite: "sessions.\(server.name)_server", profile: "rsa-socket", relation: "\(server.name)_server")
            let probes: [(String, @Sendable (Data) -> Bool)] = [
                ("crlf", { $0.firstRange(of: Data([0x0d, 0x0a])) != nil }),
                ("lf", { $0.contains(0x0a) && $0.firstRange(of: Data([0x0d, 0x0a])) == nil }),  // a lone \n, never \r\n
                ("cr", { $0.contains(0x0d) }),
            ]
            for (name, filter) in probes {
                list.add("legacy.binary-safety.ciphertexts-with-\(name)", weaknesses: [Weakness.smallRSA, Weakness.legacyFraming]) {
                    try binarySafety(context, server: server, filter: filter, conversations: 10)
                }
            }
            for rejection in server.rejections {
                list.add("legacy.pkcs1.bad-padding.\(rejection.rawValue)-rejection", weaknesses: [Weakness.legacyFraming]) {
                    try pkcs1BadPadding(context, server: server, rejection: rejection)
                }
                list.add("legacy.pkcs1.refuses-ciphertext-over-the-modulus.\(rejection.rawValue)-rejection", weaknesses: [Weakness.legacyFraming]) {
                    try refuses(context, server: server, framing: .legacy, padding: ._WEAK_AND_INSECURE_PKCS_V1_5, rejection: rejection) { key in
                        [Data("Client: OK".utf8), Data("encrypted_message=".utf8) + Data(repeating: 0xff, count: key.modulusByteCount)]
                    }
                }
            }
            for framing in Framing.allCases {
                for (name, chunks) in malformedInputs(framing) {
                    list.add("\(framing.rawValue).refuses-\(name)") {
                        try refuses(context, server: server, framing: framing) { _ in chunks }
                    }
                }
            }
            checks += list.checks
        }
        return checks
    }

    /// Conversations whose ciphertexts contain line-end bytes; the server must prove each
    /// plaintext with the digest extension.
    static func binarySafety(_ context: SessionContext, server: SessionFactory, filter: @escaping @Sendable (Data) -> Bool,
                             conversations: Int) throws -> CheckOutcome {
        let key = try context.keys.key(of: context.cryptoPeer(named: server.name), bits: 1024)
        for index in 0..<conversations {
            let plaintext = context.bytes(20, for: "binary-safety-\(index)")
            let serverMachine = try server.rsaSocketServer(RSASocketServerSpec(padding: .oaepSHA256, framing: .legacy, digest: true,
                                                                               privateKeyPEM: key.privateKeyPEM))
            var config = RSASocketClientConfig(direction: .phoneToPi, padding: .oaepSHA256, digest: true, plaintext: plaintext)
            config.ciphertextFilter = filter
            let client = RSASocketClient(config: config)
            let transcript = Conversation.run(client: client, server: serverMachine, delivery: .whole)
            let digest = Digest.sha256.hash(plaintext).hexString
            guard transcript.clientEvents.first == .serverOK(digest: digest, verified: true) else {
                throw CheckFailure("\(server.name) server corrupted a ciphertext containing line-end bytes (conversation \(index + 1) of \(conversations)): the client saw \(transcript.clientEvents)",
                                   details: RSASocketSessionChecks.describe(transcript))
            }
        }
        return .passed
    }

    static func malformedInputs(_ framing: Framing) -> [(String, [Data])] {
        let encrypted = Data("encrypted_message=".utf8)
        switch framing {
        case .legacy:
            return [
                ("garbage", [Data("GET / HTTP/1.1\r\n\r\n".utf8)]),
                ("binary-garbage", [Data([0x00, 0xff, 0x13, 0x37])]),
                ("half-a-hello", [Data("Client: O".utf8)]),
                ("not-pem-after-public-key", [Data("public_key=hello".utf8)]),
                ("private-key-sent-as-public", [Data("public_key=-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----".utf8)]),
                ("short-ciphertext", [Data("Client: OK".utf8), encrypted + Data(count: 10)]),
                ("undecryptable-ciphertext", [Data("Client: OK".utf8), encrypted + Data(repeating: 0x42, count: 256)]),
                ("message-over-the-limit", [Data("public_key=-----BEGIN PUBLIC KEY-----\n".utf8) + Data(repeating: 0x41, count: 70_000)]),
            ]
        case .framed:
            return [
                ("zero-length-frame", [Data([0, 0, 0, 0])]),
                ("frame-over-the-limit", [Data([0, 1, 0, 1]) + Data(count: 16)]),
                ("frame-shorter-than-its-length", [Data([0, 0, 0, 40]) + Data("Client: OK".utf8)]),
                ("two-messages-in-one-frame", [Framing.framed.encode(Data("Client: OKQuit".utf8))]),
                ("unframed-hello", [Data("Client: OK".utf8)]),
            ]
        }
    }

    /// A bad PKCS#1 v1.5 padding (a block starting 01, below the modulus). Explicit rejection: it is
    /// refused like any malformed input. Implicit rejection (OpenSSL ≥ 3.2): it is acknowledged
    /// with the digest of a synthetic plaintext — of none of the block's own bytes — and the same
    /// ciphertext gets the same digest again (ImplicitRejection).
    static func pkcs1BadPadding(_ context: SessionContext, server: SessionFactory, rejection: RSARejection) throws -> CheckOutcome {
        let keyPair = try context.keys.key(of: context.cryptoPeer(named: server.name), bits: 2048)
        let key = try RSAPublicKey(importing: keyPair.publicKeyPEM)
        let block = Data([0x01]) + context.bytes(key.modulusByteCount - 1, for: "pkcs1-bad-padding")
        let chunks = [Data("Client: OK".utf8), Data("encrypted_message=".utf8) + (try key._WEAK_AND_INSECURE_textbookEncrypt(block))]
        guard rejection == .implicit else {
            return try refuses(context, server: server, framing: .legacy, padding: ._WEAK_AND_INSECURE_PKCS_V1_5, rejection: rejection) { _ in chunks }
        }
        func acknowledgement() throws -> String? {
            var spec = RSASocketServerSpec(padding: ._WEAK_AND_INSECURE_PKCS_V1_5, framing: .legacy, digest: true, privateKeyPEM: keyPair.privateKeyPEM)
            spec.rejection = rejection
            let transcript = Conversation.run(client: ScriptedClient(chunks), server: try server.rsaSocketServer(spec), delivery: .whole)
            let text = String(decoding: transcript.serverSent, as: UTF8.self)
            guard let ok = text.range(of: "Server: OK sha256=") else {
                throw CheckFailure("\(server.name) server (implicit rejection) did not acknowledge a bad PKCS#1 v1.5 padding with a digest",
                                   details: "server → client: \(Expect.preview(transcript.serverSent))")
            }
            return ImplicitRejection.digest(in: Data(text[ok.lowerBound...].utf8))
        }
        let first = try acknowledgement()
        switch ImplicitRejection.classify(digest: first, block: block) {
        case .synthetic(let digest):
            let again = try acknowledgement()
            guard again == digest else {
                throw CheckFailure("\(server.name) server (implicit rejection) gave the same ciphertext two digests: \(digest) then \(again ?? "none")")
            }
            return .passed
        case .realPlaintext(let length):
            throw CheckFailure("\(server.name) server (implicit rejection) acknowledged the last \(length) bytes of a block starting 01: a lenient decoder")
        case .unverified:
            throw CheckFailure("\(server.name) server (implicit rejection) sent no digest")
        }
    }

    /// The server's whole answer must be `Server: ERROR` (after its key, if it got that far), then close.
    static func refuses(_ context: SessionContext, server: SessionFactory, framing: Framing, padding: RSAEncryptionPadding = .oaepSHA256,
                        rejection: RSARejection = .explicit, chunks: (RSAPublicKey) throws -> [Data]) throws -> CheckOutcome {
        let key = try context.keys.key(of: context.cryptoPeer(named: server.name), bits: 2048)
        var spec = RSASocketServerSpec(padding: padding, framing: framing, digest: false, privateKeyPEM: key.privateKeyPEM)
        spec.rejection = rejection
        let machine = try server.rsaSocketServer(spec)
        let transcript = Conversation.run(client: ScriptedClient(try chunks(RSAPublicKey(importing: key.publicKeyPEM))), server: machine, delivery: .whole)
        let error = framing.encode(Data(RSASocket.error.utf8))
        let keyMessage = framing.encode(Data(RSASocket.keyPrefix.utf8) + (try RSAPublicKey(importing: key.publicKeyPEM).exported(.spkiPEM)) + Data("\n".utf8))
        guard transcript.serverSent == error || transcript.serverSent == keyMessage + error else {
            throw CheckFailure("\(server.name) server answered something other than exactly \"Server: ERROR\"",
                               details: "server → client: \(Expect.preview(transcript.serverSent))\nserver events: \(transcript.serverEvents)")
        }
        guard transcript.serverClosed else { throw CheckFailure("\(server.name) server did not close after Server: ERROR") }
        return .passed
    }
}

/// A client that sends fixed chunks and then only listens: for feeding servers malformed input.
final class ScriptedClient: SessionMachine {
    let chunks: [Data]
    private(set) var received = Data()
    private(set) var closed = false
    init(_ chunks: [Data]) { self.chunks = chunks }
    func start() -> [SessionAction] { chunks.map(SessionAction.send) }
    func receive(_ data: Data) -> [SessionAction] { received += data; return [] }
    func idle() -> [SessionAction] { closed = true; return [.close] }
}
