import Foundation
import WireCrypto

public struct RSASocketServerConfig: Sendable {
    public var padding: RSAEncryptionPadding
    public var framing: Framing
    public var maxMessage: Int
    /// Answer `Server: OK sha256=<hex>` so a remote client can verify the plaintext.
    public var digest: Bool
    /// The server's key pair (sent to phone-to-pi clients).
    public var privateKey: RSAPrivateKey
    /// What the server encrypts to pi-to-phone clients.
    public var message: Data
    public var quirk: RSASocketServerQuirk?

    public init(padding: RSAEncryptionPadding, framing: Framing = .legacy, maxMessage: Int = Framing.defaultMaxMessage,
                digest: Bool = false, privateKey: RSAPrivateKey, message: Data = RSASocket.defaultMessage,
                quirk: RSASocketServerQuirk? = nil) {
        self.padding = padding; self.framing = framing; self.maxMessage = maxMessage; self.digest = digest
        self.privateKey = privateKey; self.message = message; self.quirk = quirk
    }
}

/// The Raspberry Pi's side of rsa-socket, both directions, as a sans-I/O machine.
/// Every failure is answered by exactly `Server: ERROR` and a close (no oracle).
public final class RSASocketServer: SessionMachine {
    enum State { case awaitFirst, awaitEncrypted, awaitQuit, done }

    let config: RSASocketServerConfig
    private var state = State.awaitFirst
    private var stream: MessageStream
    public private(set) var closed = false

    public init(config: RSASocketServerConfig) {
        self.config = config
        stream = MessageStream(framing: config.framing, maxMessage: config.maxMessage)
    }

    public func start() -> [SessionAction] { [] }

    public func receive(_ data: Data) -> [SessionAction] {
        guard !closed else { return [] }
        var data = data
        if config.quirk == ._TUTORIAL_STRIP_CRLF { data = stripCRLF(from: data) }
        stream.append(data)
        return pump(atEnd: false)
    }

    public func idle() -> [SessionAction] {
        guard !closed, !stream.isIdle(expecting: expectation) else { return [] }
        return pump(atEnd: true)
    }

    private var expectation: AwaitedMessage {
        switch state {
        case .awaitFirst: return .oneOf([.literals([RSASocket.hello]), .pem(prefix: RSASocket.keyPrefix)])
        case .awaitEncrypted: return .prefixedBytes(prefix: RSASocket.encryptedPrefix, count: config.privateKey.modulusByteCount)
        case .awaitQuit, .done: return .literals([RSASocket.quit])
        }
    }

    private func pump(atEnd: Bool) -> [SessionAction] {
        var actions: [SessionAction] = []
        while !closed {
            let message: Parsed?
            do { message = try stream.next(expectation, atEnd: atEnd) } catch {
                return actions + fail("\(error)")
            }
            guard let message else { break }
            actions += handle(message)
        }
        return actions
    }

    private func handle(_ message: Parsed) -> [SessionAction] {
        switch (state, message) {
        case (.awaitFirst, .literal):
            do {
                let pem = try config.privateKey.publicKey.exported(.spkiPEM)
                state = .awaitEncrypted
                return [send(Data(RSASocket.keyPrefix.utf8) + pem + Data("\n".utf8))]
            } catch { return fail("cannot export the server key: \(error)") }
        case let (.awaitFirst, .pem(pem)):
            do {
                let clientKey = try RSAPublicKey(importing: pem)
                let padding = config.quirk == ._PKCS1_DESPITE_OAEP ? ._WEAK_AND_INSECURE_PKCS_V1_5 : config.padding
                let ciphertext = try clientKey.encrypt(config.message, padding: padding)
                state = .awaitQuit
                return [.event(.sentCiphertext), send(ciphertext)]
            } catch { return fail("client key: \(error)") }
        case let (.awaitEncrypted, .bytes(ciphertext)):
            do {
                let plaintext = try config.privateKey.decrypt(ciphertext, padding: config.padding)
                state = .awaitQuit
                let reply = config.digest ? RSASocket.okWithDigest(plaintext) : RSASocket.ok
                return [.event(.decrypted(plaintext)), send(Data(reply.utf8))]
            } catch { return fail("decryption: \(error)") }
        case (.awaitQuit, .literal):
            state = .done
            closed = true
            return [.event(.quit), send(Data((RSASocket.stopped + "\n").utf8)), .close]
        default:
            return fail("unexpected message \(message) in state \(state)")
        }
    }

    private func send(_ payload: Data) -> SessionAction { .send(config.framing.encode(payload)) }

    private func fail(_ reason: String) -> [SessionAction] {
        state = .done
        closed = true
        return [.event(.error(reason)), send(Data(RSASocket.error.utf8)), .close]
    }
}

/// The tutorial's `replace("\r\n", "")`, applied to raw bytes.
func stripCRLF(from data: Data) -> Data {
    var out = Data(capacity: data.count)
    var index = data.startIndex
    while index < data.endIndex {
        if data[index] == 0x0d, data.index(after: index) < data.endIndex, data[data.index(after: index)] == 0x0a {
            index = data.index(index, offsetBy: 2)
            continue
        }
        out.append(data[index])
        index = data.index(after: index)
    }
    return out
}
