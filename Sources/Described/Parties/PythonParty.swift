import Foundation
import PythonBridge
import WireCrypto
import WireProtocol

/// PythonRef's engine (`pythonref.described`) as a party, kept in the interpreter between calls
/// (the `described.*` ops of handlers.py) and closed when this object goes.
public final class PythonParty: ConversationParty {
    public let engine = "python"
    private let interpreter: PythonInterpreter
    private let session: Int

    /// - Parameters:
    ///   - path: the description file (PythonRef reads it itself: each engine parses on its own).
    ///   - conversation: nil for a server that tells the conversations apart by the client's first message.
    public convenience init(interpreter: PythonInterpreter, path: String, conversation: String?, role: ProtocolDescription.Role,
                            privateKeys: [String: RSAPrivateKey] = [:], knownPublicKeys: [String: RSAPublicKey] = [:],
                            secrets: [String: Data] = [:], message: Data? = nil, config: [String: String] = [:]) throws {
        try self.init(interpreter: interpreter, path: path, conversation: conversation, role: role,
                      privateKeyPEMs: try privateKeys.mapValues { String(decoding: try $0.exported(.pkcs8PEM), as: UTF8.self) },
                      publicKeyPEMs: try knownPublicKeys.mapValues { String(decoding: try $0.exported(.spkiPEM), as: UTF8.self) },
                      secrets: secrets, message: message, config: config)
    }

    /// The keys as PEM text already (PKCS#8, SPKI): a caller that opens many parties with the same
    /// keys exports them once (PythonRef keeps the keys it loaded from the same text).
    public init(interpreter: PythonInterpreter, path: String, conversation: String?, role: ProtocolDescription.Role,
                privateKeyPEMs: [String: String], publicKeyPEMs: [String: String],
                secrets: [String: Data] = [:], message: Data? = nil, config: [String: String] = [:]) throws {
        self.interpreter = interpreter
        var arguments: [String: PythonValue] = [
            "path": .string(path), "conversation": conversation.map(PythonValue.string) ?? .none, "role": .string(role.rawValue),
            "private_keys": .dict(privateKeyPEMs.mapValues(PythonValue.string)),
            "known_public_keys": .dict(publicKeyPEMs.mapValues(PythonValue.string)),
            "secrets": .dict(secrets.mapValues(PythonValue.bytes)),
            "config": .dict(config.mapValues(PythonValue.string)),
        ]
        arguments["message"] = message.map(PythonValue.bytes) ?? PythonValue.none
        let opened = try Self.call(interpreter, "described.open", arguments)
        guard let session = opened["session"]?.intValue else { throw DescribedCheckError.pythonEngine("described.open answered \(opened)") }
        self.session = session
    }

    deinit { _ = try? Self.call(interpreter, "described.close", ["session": .int(session)]) }

    public func nextMessage() throws -> DescribedMessage? {
        let answer = try Self.call(interpreter, "described.next", ["session": .int(session)])
        guard let message = answer["message"], message != .none else { return nil }
        return try Self.message(message)
    }

    public func receive(_ message: DescribedMessage) throws {
        let answer = try Self.call(interpreter, "described.receive", ["session": .int(session), "message": Self.value(message)])
        if let reason = answer["refused"]?.stringValue { throw DescribedRefusal(reason: reason) }
    }

    public var isDone: Bool {
        (try? Self.call(interpreter, "described.state", ["session": .int(session)]))?["done"] == .bool(true)
    }

    public var received: [String: Data] {
        get throws {
            let state = try Self.call(interpreter, "described.state", ["session": .int(session)])
            guard case let .dict(fields)? = state["received"] else { return [:] }
            return fields.compactMapValues(\.bytesValue)
        }
    }

    public func refusalMessage() throws -> DescribedMessage? {
        let answer = try Self.call(interpreter, "described.refusal", ["session": .int(session)])
        guard let message = answer["message"], message != .none else { return nil }
        return try Self.message(message)
    }

    /// PythonRef reads the description at `path` on its own; its name, or the error it found.
    public static func check(path: String, interpreter: PythonInterpreter) throws -> String {
        try call(interpreter, "described.check", ["path": .string(path)]).stringValue ?? ""
    }

    /// One op through handlers.handle: `{"ok": value}` or `{"err": kind, "detail": text}`.
    static func call(_ interpreter: PythonInterpreter, _ op: String, _ arguments: [String: PythonValue]) throws -> PythonValue {
        let reply = try interpreter.call("pythonref.handlers", "handle", [.string(op), .dict(arguments)])
        if let value = reply["ok"] { return value }
        throw DescribedCheckError.pythonEngine("\(op): \(reply["err"]?.stringValue ?? "error"): \(reply["detail"]?.stringValue ?? "\(reply)")")
    }

    static func value(_ message: DescribedMessage) -> PythonValue {
        switch message {
        case let .bytes(data):
            return .bytes(data)
        case let .request(method, path, headers, body):
            return .dict(["method": .string(method), "path": .string(path), "headers": .dict(headers.mapValues(PythonValue.string)), "body": .bytes(body)])
        case let .response(status, headers, body):
            return .dict(["status": .int(status), "headers": .dict(headers.mapValues(PythonValue.string)), "body": .bytes(body)])
        }
    }

    static func message(_ value: PythonValue) throws -> DescribedMessage {
        if let data = value.bytesValue { return .bytes(data) }
        guard case let .dict(fields) = value, case let .dict(rawHeaders)? = fields["headers"], let body = fields["body"]?.bytesValue else {
            throw DescribedCheckError.pythonEngine("a message that is neither bytes nor an HTTP message: \(value)")
        }
        let headers = rawHeaders.compactMapValues(\.stringValue)
        if let status = fields["status"]?.intValue { return .response(status: status, headers: headers, body: body) }
        guard let method = fields["method"]?.stringValue, let path = fields["path"]?.stringValue else {
            throw DescribedCheckError.pythonEngine("an HTTP message with neither a status nor a method and path: \(value)")
        }
        return .request(method: method, path: path, headers: headers, body: body)
    }
}
