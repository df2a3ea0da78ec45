import Foundation
import WireCrypto

public struct RSASocketClientConfig: Sendable {
    public var direction: RSASocket.Direction
    public var padding: RSAEncryptionPadding
    public var framing: Framing
    public var maxMessage: Int
    /// Ask for (and verify) the `Server: OK sha256=` proof.
    public var digest: Bool
    /// The client's key pair, sent as `public_key=` in pi-to-phone.
    public var privateKey: RSAPrivateKey?
    /// What the client encrypts in phone-to-pi.
    public var plaintext: Data
    public var keyFormat: ClientKeyFormat
    public var quirk: RSASocketClientQuirk?
    /// For probing servers: re-encrypt (fresh randomness each time) until the ciphertext passes
    /// this test, e.g. "contains \r\n", up to 100,000 tries. nil: send the first ciphertext.
    public var ciphertextFilter: (@Sendable (Data) -> Bool)?

    public init(direction: RSASocket.Direction, padding: RSAEncryptionPadding, framing: Framing = .legacy,
                maxMessage: Int = Framing.defaultMaxMessage, digest: Bool = false, privateKey: RSAPrivateKey? = nil,
                plaintext: Data = Data(), keyFormat: ClientKeyFormat = .spkiPEM, quirk: RSASocketClientQuirk? = nil) {
        self.direction = direction; self.padding = padding; self.framing = framing; self.maxMessage = maxMessage
        self.digest = digest; self.privateKey = privateKey; self.plaintext = plaintext; self.keyFormat = keyFormat; self.quirk = quirk
    }
}

/// The iPhone's side of rsa-socket, both directions, as a sans-I/O machine. It never sends an
/// error message: when something is wrong it reports `failed` and closes.
public final class RSASocketClient: SessionMachine {
    enum State { case awaitServerKey, awaitReply, awaitCiphertext, awaitStopped, done }

    let config: RSASocketClientConfig
    private var state: State
    private var stream: MessageStream
    public private(set) var closed = false

    public init(config: RSASocketClientConfig) {
        self.config = config
        state = config.direction == .phoneToPi ? .awaitServerKey : .awaitCiphertext
        stream = MessageStream(framing: config.framing, maxMessage: config.maxMessage)
    }

    public func start() -> [SessionAction] {
        switch config.direction {
        case .phoneToPi:
            return [send(Data(RSASocket.hello.utf8))]
        case .piToPhone:
            guard let key = config.privateKey else { return fail("pi-to-phone needs a client key") }
            do {
                var pem = try config.keyFormat.encode(key.publicKey)
                if config.quirk == ._WRONG_PEM_HEADER {
                    pem = Data(String(decoding: pem, as: UTF8.self).replacingOccurrences(of: "PUBLIC KEY-----", with: "RSA PUBLIC KEY-----").utf8)
                }
                return [send(Data(RSASocket.keyPrefix.utf8) + pem)]
            } catch { return fail("cannot export the client key: \(error)") }
        }
    }

    public func receive(_ data: Data) -> [SessionAction] {
        guard !closed else { return [] }
        stream.append(data)
        return pump(atEnd: false)
    }

    public func idle() -> [SessionAction] {
        guard !closed, !stream.isIdle(expecting: expectation) else { return [] }
        return pump(atEnd: true)
    }

    private var expectation: AwaitedMessage {
        switch state {
        // Where text is expected, `Server: ERROR` is recognised like any expected message.
        case .awaitServerKey: return .oneOf([.pem(prefix: RSASocket.keyPrefix), .literals([RSASocket.error])])
        case .awaitReply: return .serverReply(wantDigest: config.digest)
        case .awaitCiphertext:
            // A server that cannot use our key answers `Server: ERROR` instead of k bytes.
            return .raw(count: config.privateKey?.modulusByteCount ?? 0)
        case .awaitStopped, .done: return .literals([RSASocket.stopped, RSASocket.error])
        }
    }

    private func pump(atEnd: Bool) -> [SessionAction] {
        var actions: [SessionAction] = []
        while !closed {
            if state == .awaitCiphertext, let refusal = serverErrorInsteadOfCiphertext(atEnd: atEnd) { return actions + refusal }
            let message: Parsed?
            do { message = try stream.next(expectation, atEnd: atEnd) } catch {
                return actions + fail("\(error)")
            }
            guard let message else { break }
            actions += handle(message)
        }
        return actions
    }

    /// `Server: ERROR` where a k-byte ciphertext was expected: a framed payload of exactly that, or
    /// exactly that in the legacy buffer once the line has gone quiet.
    private func serverErrorInsteadOfCiphertext(atEnd: Bool) -> [SessionAction]? {
        let error = Data(RSASocket.error.utf8)
        let waiting = stream.buffer
        let isError: Bool
        switch config.framing {
        // The next whole frame (a frame over the limit is refused by its length first).
        case .framed: isError = waiting.starts(with: config.framing.encode(error)) && error.count <= config.maxMessage
        case .legacy: isError = atEnd && waiting == error
        }
        guard isError else { return nil }
        state = .done
        closed = true
        return [.event(.serverError), .close]
    }

    private func handle(_ message: Parsed) -> [SessionAction] {
        switch (state, message) {
        case let (.awaitServerKey, .pem(pem)):
            do {
                let serverKey = try RSAPublicKey(importing: pem)
                var ciphertext = try serverKey.encrypt(config.plaintext, padding: config.padding)
                if let filter = config.ciphertextFilter {
                    var tries = 1
                    while !filter(ciphertext) && tries < 100_000 {
                        ciphertext = try serverKey.encrypt(config.plaintext, padding: config.padding)
                        tries += 1
                    }
                    guard filter(ciphertext) else { return fail("no ciphertext passed the probe filter in \(tries) tries") }
                }
                state = .awaitReply
                return [send(Data(RSASocket.encryptedPrefix.utf8) + ciphertext)]
            } catch { return fail("server key: \(error)") }
        case let (.awaitReply, .serverOK(digest)):
            let verified = digest.map { $0 == Digest.sha256.hash(config.plaintext).hexString }
            state = .awaitStopped
            return [.event(.serverOK(digest: digest, verified: verified)), send(Data(RSASocket.quit.utf8))]
        case (.awaitReply, .serverError), (.awaitServerKey, .literal(RSASocket.error)), (.awaitStopped, .literal(RSASocket.error)):
            state = .done
            closed = true
            return [.event(.serverError), .close]
        case let (.awaitCiphertext, .bytes(ciphertext)):
            guard let key = config.privateKey else { return fail("no client key") }
            do {
                let plaintext = try key.decrypt(ciphertext, padding: config.padding)
                state = .awaitStopped
                return [.event(.decrypted(plaintext)), send(Data(RSASocket.quit.utf8))]
            } catch { return fail("cannot decrypt the server's ciphertext with \(config.padding): \(error)") }
        case (.awaitStopped, .literal):
            state = .done
            closed = true
            return [.event(.serverStopped), .close]
        default:
            return fail("unexpected message \(message) in state \(state)")
        }
    }

    private func send(_ payload: Data) -> SessionAction { .send(config.framing.encode(payload)) }

    private func fail(_ reason: String) -> [SessionAction] {
        state = .done
        closed = true
        return [.event(.failed(reason)), .close]
    }
}
