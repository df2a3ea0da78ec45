import Foundation
import PythonBridge
import WireCrypto
import WireProtocol

/// What a session check asks of a server, in terms both implementations understand.
/// What an rsa-socket server's library does with a bad PKCS#1 v1.5 padding: an error (OpenSSL ≤
/// 3.1, iOS) or a synthetic plaintext (OpenSSL ≥ 3.2's implicit rejection; ImplicitRejection).
/// Only PythonRef models both; the Swift server is explicit, as iOS is.
public enum RSARejection: String, Sendable, CaseIterable {
    case explicit, implicit
}

public struct RSASocketServerSpec: Sendable {
    public var padding: RSAEncryptionPadding
    public var framing: Framing
    public var digest: Bool
    public var rejection: RSARejection = .explicit
    /// PKCS#8 PEM of the server's key.
    public var privateKeyPEM: Data
    public var message: Data = RSASocket.defaultMessage
    public var maxMessage: Int = Framing.defaultMaxMessage
    public var quirk: RSASocketServerQuirk?

    public init(padding: RSAEncryptionPadding, framing: Framing, digest: Bool, privateKeyPEM: Data, message: Data = RSASocket.defaultMessage,
                maxMessage: Int = Framing.defaultMaxMessage, quirk: RSASocketServerQuirk? = nil) {
        self.padding = padding; self.framing = framing; self.digest = digest; self.privateKeyPEM = privateKeyPEM
        self.message = message; self.maxMessage = maxMessage; self.quirk = quirk
    }
}

public struct RSASocketClientSpec: Sendable {
    public var direction: RSASocket.Direction
    public var padding: RSAEncryptionPadding
    public var framing: Framing
    public var digest: Bool
    /// PKCS#8 PEM of the client's key (pi-to-phone).
    public var privateKeyPEM: Data?
    public var plaintext: Data
    public var keyFormat: ClientKeyFormat = .spkiPEM
    public var maxMessage: Int = Framing.defaultMaxMessage
    public var quirk: RSASocketClientQuirk?

    public init(direction: RSASocket.Direction, padding: RSAEncryptionPadding, framing: Framing, digest: Bool, privateKeyPEM: Data? = nil,
                plaintext: Data, keyFormat: ClientKeyFormat = .spkiPEM, maxMessage: Int = Framing.defaultMaxMessage,
                quirk: RSASocketClientQuirk? = nil) {
        self.direction = direction; self.padding = padding; self.framing = framing; self.digest = digest; self.privateKeyPEM = privateKeyPEM
        self.plaintext = plaintext; self.keyFormat = keyFormat; self.maxMessage = maxMessage; self.quirk = quirk
    }
}

/// Makes protocol machines of one implementation. Tests swap in factories that plant quirks.
public protocol SessionFactory: Sendable {
    var name: String { get }
    /// The rejections its rsa-socket server can model (`RSASocketServerSpec.rejection`).
    var rejections: [RSARejection] { get }
    func rsaSocketServer(_ spec: RSASocketServerSpec) throws -> SessionMachine
    func rsaSocketClient(_ spec: RSASocketClientSpec) throws -> SessionMachine
}

extension SessionFactory {
    public var rejections: [RSARejection] { [.explicit] }
}

/// The Swift machines of WireProtocol.
public struct SwiftSessions: SessionFactory {
    public let name = "swift"
    public init() {}

    public func rsaSocketServer(_ spec: RSASocketServerSpec) throws -> SessionMachine {
        guard spec.rejection == .explicit else {
            throw PeerFailure(.unsupported, "the Swift server rejects a bad PKCS#1 v1.5 padding explicitly, as iOS does; only PythonRef models implicit rejection")
        }
        let key = try RSAPrivateKey(importing: spec.privateKeyPEM)
        return RSASocketServer(config: RSASocketServerConfig(padding: spec.padding, framing: spec.framing, maxMessage: spec.maxMessage,
                                                            digest: spec.digest, privateKey: key, message: spec.message, quirk: spec.quirk))
    }

    public func rsaSocketClient(_ spec: RSASocketClientSpec) throws -> SessionMachine {
        let key = try spec.privateKeyPEM.map { try RSAPrivateKey(importing: $0) }
        return RSASocketClient(config: RSASocketClientConfig(direction: spec.direction, padding: spec.padding, framing: spec.framing,
                                                            maxMessage: spec.maxMessage, digest: spec.digest, privateKey: key,
                                                            plaintext: spec.plaintext, keyFormat: spec.keyFormat, quirk: spec.quirk))
    }
}

/// PythonRef's machines, as sessions inside the embedded interpreter (`session.*` ops).
public struct PythonSessions: SessionFactory {
    public let name = "python"
    /// Both Pi generations: OpenSSL ≤ 3.1's error and OpenSSL ≥ 3.2's implicit rejection.
    public var rejections: [RSARejection] { RSARejection.allCases }
    public let peer: PythonPeer
    public init(peer: PythonPeer) { self.peer = peer }

    public func rsaSocketServer(_ spec: RSASocketServerSpec) throws -> SessionMachine {
        var config: [String: PythonValue] = [
            "rejection": .string(spec.rejection.rawValue),
            "padding": .string(spec.padding.description), "framing": .string(spec.framing.rawValue),
            "max_message": .int(spec.maxMessage), "digest": .bool(spec.digest), "private_key": .bytes(spec.privateKeyPEM),
            "message": .bytes(spec.message),
        ]
        if let quirk = spec.quirk { config["quirk"] = .string(quirk.rawValue) }
        return try PythonSessionMachine(peer: peer, role: "rsa-socket.server", config: config)
    }

    public func rsaSocketClient(_ spec: RSASocketClientSpec) throws -> SessionMachine {
        var config: [String: PythonValue] = [
            "direction": .string(spec.direction.rawValue), "padding": .string(spec.padding.description),
            "framing": .string(spec.framing.rawValue), "max_message": .int(spec.maxMessage), "digest": .bool(spec.digest),
            "plaintext": .bytes(spec.plaintext), "key_format": .string(spec.keyFormat.rawValue),
        ]
        if let key = spec.privateKeyPEM { config["private_key"] = .bytes(key) }
        if let quirk = spec.quirk { config["quirk"] = .string(quirk.rawValue) }
        return try PythonSessionMachine(peer: peer, role: "rsa-socket.client", config: config)
    }
}

/// A PythonRef machine seen through `session.open/receive/idle/close`. A failing call to Python
/// (which `handle` should never produce) becomes a `failed` event, so a broken reference is
/// reported by the check instead of crashing the run.
public final class PythonSessionMachine: SessionMachine {
    public let peer: PythonPeer
    public let session: Int
    private var initial: [SessionAction]
    public private(set) var closed = false

    public init(peer: PythonPeer, role: String, config: [String: PythonValue]) throws {
        self.peer = peer
        let reply = try peer.handle("session.open", ["role": .string(role), "config": .dict(config)])
        guard let id = reply["session"]?.intValue else { throw PeerFailure(.internal, "session.open returned \(reply)") }
        session = id
        initial = []
        initial = try decodeActions(reply["actions"])
    }

    deinit { _ = try? peer.handle("session.close", ["session": .int(session)]) }

    public func start() -> [SessionAction] { track(initial) }

    public func receive(_ data: Data) -> [SessionAction] {
        guard !closed else { return [] }
        return call("session.receive", ["session": .int(session), "data": .bytes(data)])
    }

    public func idle() -> [SessionAction] {
        guard !closed else { return [] }
        return call("session.idle", ["session": .int(session)])
    }

    private func call(_ op: String, _ arguments: [String: PythonValue]) -> [SessionAction] {
        do { return track(try decodeActions(peer.handle(op, arguments)["actions"])) } catch {
            closed = true
            return [.event(.failed("pythonref \(op) failed: \(error)")), .close]
        }
    }

    private func track(_ actions: [SessionAction]) -> [SessionAction] {
        if actions.contains(.close) { closed = true }
        return actions
    }

    private func decodeActions(_ value: PythonValue?) throws -> [SessionAction] {
        guard case let .list(items)? = value else { throw PeerFailure(.internal, "pythonref session actions missing: \(value.map { "\($0)" } ?? "nil")") }
        return try items.map { item in
            if let bytes = item["send"]?.bytesValue { return .send(bytes) }
            if item["close"] != nil { return .close }
            guard let name = item["event"]?.stringValue else { throw PeerFailure(.internal, "unknown pythonref action \(item)") }
            switch name {
            case "decrypted": return .event(.decrypted(item["plaintext"]?.bytesValue ?? Data()))
            case "server-ok":
                let digest = item["digest"]?.stringValue
                var verified: Bool? = nil
                if case let .bool(flag)? = item["verified"] { verified = flag }
                return .event(.serverOK(digest: digest, verified: verified))
            case "server-error": return .event(.serverError)
            case "server-stopped": return .event(.serverStopped)
            case "failed": return .event(.failed(item["reason"]?.stringValue ?? ""))
            case "sent-ciphertext": return .event(.sentCiphertext)
            case "quit": return .event(.quit)
            case "error": return .event(.error(item["reason"]?.stringValue ?? ""))
            default: throw PeerFailure(.internal, "unknown pythonref event \(name)")
            }
        }
    }
}
