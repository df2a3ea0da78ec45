import Foundation
import AppUnderTest
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// `sessions.app_client.<server>_server`, `<app>.described.<conversation>`: the app as the client
/// of a described protocol (docs/PROTOCOL-DESCRIPTIONS.md), one whole conversation with its own
/// networking and crypto (`DescribedProtocolClient`) against a server that follows the description:
/// PythonRef's engine (`python3 -m pythonref described-server`, its own process, as on a Pi; every
/// transport) and the Swift engine (tcp descriptions). The server judges every message the app
/// sends as the description says (decrypts, authenticates, compares); the app must complete the
/// conversation, and when the server's answer carries the conversation's message, return it.
enum AppDescribedClientChecks {
    /// The message the servers carry to the app when the description names none: fixed per run so
    /// the app's answer can be compared.
    static let defaultMessage = "crosscheck described message"

    static func add(_ app: AppSubject, server: String, settings: AppSessionSettings, files: ProjectFiles, _ list: inout Lists) {
        guard let declared = app.read(DescribedProtocolClient.self, { ($0.describedProtocol, $0.describedConversation, $0.presharedSecrets) }) else { return }
        let (declaredName, conversationName, secrets) = declared
        let description: ProtocolDescription
        let path: String
        do {
            path = try resolve(declaredName, appFolder: app.folder, files: files)
            description = try ProtocolDescription(contentsOfFile: path)
        } catch {
            list.unknown("described", "described", "its describedProtocol \"\(declaredName)\": \(error)")
            return
        }
        guard let conversation = conversationName.isEmpty ? description.conversations.first : description.conversation(named: conversationName) else {
            list.unknown(description.name, "described", "its describedConversation \"\(conversationName)\" is not in \(path) (it has \(description.conversations.map(\.name).joined(separator: ", ")))")
            return
        }
        let testcase = "described.\(conversation.name)"
        // The description's weaknesses that this conversation meets (those of the others are not the app's).
        let position = (description.conversations.firstIndex { $0.name == conversation.name } ?? 0) + 1
        let weaknesses = description.weaknesses.filter { !$0.hasPrefix("conversation[") || $0.hasPrefix("conversation[\(position)]") }
        guard let servers = settings.servers else { return }  // the app's own networking needs a loopback port
        if let missing = description.secrets.values.first(where: { $0.madeBy == .preshared && secrets[$0.name] == nil }) {
            list.unknown(description.name, testcase, "secret \(missing.name) is preshared (\(path) line \(missing.line)): give its bytes in presharedSecrets")
            return
        }
        if let key = description.keys.values.first(where: { $0.preshared && $0.holder == .server }) {
            list.add(description.name, testcase, weaknesses: weaknesses) {
                .skipped(reason: "key \(key.name) is preshared and the server holds it: crosscheck cannot serve a private key it does not have")
            }
            return
        }
        let message = conversation.message ?? Data(defaultMessage.utf8)
        let run = Conversing(app: app, description: description, path: path, conversation: conversation, secrets: secrets, message: message,
                             timeout: settings.timeout, quietGap: settings.quietGap, files: files)
        switch server {
        case "python":
            list.add(description.name, testcase, weaknesses: weaknesses) { try run.withPythonServer(python: servers.pythonExecutable) }
        default:
            guard description.transport.kind == .tcp, description.transport.framing != .close else {
                list.add(description.name, testcase, weaknesses: weaknesses) {
                    .skipped(reason: description.transport.kind == .tcp
                        ? "the Swift engine's socket server does not end a message at a half-close (framing close); PythonRef's server checks the app"
                        : "the Swift engine serves tcp descriptions only; PythonRef's server checks the app over \(description.transport.kind.rawValue)")
                }
                return
            }
            list.add(description.name, testcase, weaknesses: weaknesses) { try run.withSwiftServer() }
        }
    }

    /// A path as the adapter gave it: absolute; else beside the app (`--app DIR`), the working
    /// directory, then the checkout or installed data crosscheck runs from (`protocols/…`).
    static func resolve(_ name: String, appFolder: URL?, files: ProjectFiles) throws -> String {
        if name.hasPrefix("/") { return name }
        let root = files.pythonRef.deletingLastPathComponent()
        var candidates: [String] = []
        if let appFolder { candidates.append(appFolder.appendingPathComponent(name).path) }
        candidates += [FileManager.default.currentDirectoryPath + "/" + name, root.appendingPathComponent(name).path]
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw AppDescribedClientError.noDescription(name, looked: candidates)
        }
        return found
    }

    /// One conversation of the app with one server.
    struct Conversing: Sendable {
        let app: AppSubject
        let description: ProtocolDescription
        let path: String
        let conversation: ProtocolDescription.Conversation
        let secrets: [String: Data]
        let message: Data
        let timeout: TimeInterval
        let quietGap: TimeInterval
        let files: ProjectFiles

        /// Text in quotes when it is UTF-8, else the bytes.
        func shown(_ bytes: Data) -> String { String(data: bytes, encoding: .utf8).map { "\"\($0)\"" } ?? Expect.preview(bytes) }

        /// Whether a server step's value carries the conversation's message to the app.
        var serverCarriesMessage: Bool {
            conversation.steps.filter { $0.from == .server }.flatMap(\.values).contains { $0.carries == .message }
        }

        /// The app's side, then the verdict from what the server saw (`serverOutcome` waits for it, at
        /// most the seconds it is given: the whole conversation's deadline, or a quiet gap's worth
        /// once the app has failed and may never have connected).
        func judge(server: String, port: UInt16, serverOutcome: (TimeInterval) -> ServerOutcome) throws -> CheckOutcome {
            let answered: Result<Data, Error>
            do {
                answered = .success(try app.with(DescribedProtocolClient.self) {
                    try $0.runDescribedConversation(host: "127.0.0.1", port: Int(port), timeout: timeout)
                })
            } catch let unreachable as AppUnreachable {
                throw unreachable
            } catch {
                answered = .failure(error)
            }
            let appFailed = if case .failure = answered { true } else { false }
            let seen = serverOutcome(appFailed ? max(quietGap * 4, 1) : timeout * 2)
            let serverSaid = "the \(server) server: \(seen)"
            switch (answered, seen) {
            case let (.failure(error), .refused(reason)):
                return .failed(message: "\(app.identifier)'s conversation \(conversation.name) (\(path)) was refused by the \(server) server: \(reason) (the app: \(error))", details: serverSaid)
            case let (.failure(error), _):
                return .failed(message: "\(app.identifier) did not complete conversation \(conversation.name) (\(path)): \(error)", details: serverSaid)
            case let (.success, .refused(reason)):
                return .failed(message: "the \(server) server refused what \(app.identifier) sent in conversation \(conversation.name): \(reason); the app did not notice", details: serverSaid)
            case (.success, .incomplete):
                return .failed(message: "\(app.identifier) returned, but the \(server) server did not see conversation \(conversation.name) completed", details: serverSaid)
            case let (.success(plaintext), .done):
                if serverCarriesMessage, plaintext != message {
                    return .failed(message: "\(app.identifier) took \(shown(plaintext)) from the server's answer; the server sent \(shown(message))", details: serverSaid)
                }
                return .passed
            }
        }

        /// PythonRef's engine as its own process; its JSON event line for the conversation is the verdict.
        func withPythonServer(python: String) throws -> CheckOutcome {
            var arguments = ["described-server", "--protocol", path, "--host", "127.0.0.1", "--port", "0",
                             "--timeout", String(timeout), "--quiet-gap", String(quietGap)]
            // Only a message the server sends is the run's to choose; one the app sends is the app's.
            if serverCarriesMessage { arguments += ["--message", String(decoding: message, as: UTF8.self)] }
            for (name, bytes) in secrets.sorted(by: { $0.key < $1.key }) { arguments += ["--secret", "\(name)=\(bytes.hexString)"] }
            if description.transport.kind == .https {
                let tls = files.vectors.appendingPathComponent("tls")
                arguments += ["--cert", tls.appendingPathComponent("pinned.crt.pem").path, "--key", tls.appendingPathComponent("pinned.key.pem").path]
            }
            let server = try PythonRefProcess(python: python, pythonRef: files.pythonRef, arguments: arguments)
            defer { server.stop() }
            let port: UInt16
            do { port = try server.announcedPort(prefix: "LISTENING ", within: 30) } catch {
                return .error(message: "PythonRef's described-server did not start (run `make deps`)", details: "\(error)")
            }
            return try judge(server: "python", port: port) { wait in
                let end = server.lines.first(where: { $0.stream == .err && ServerOutcome(eventLine: $0.text) != nil }, deadline: Date().addingTimeInterval(wait))
                return end.flatMap { ServerOutcome(eventLine: $0.text) } ?? .incomplete("no end of the conversation within \(Int(wait.rounded(.up))) s")
            }
        }

        /// The Swift engine's server party on a loopback port, one connection.
        func withSwiftServer() throws -> CheckOutcome {
            let listener = try TCPListener(host: "127.0.0.1", port: 0)
            defer { listener.close() }
            let finished = DispatchSemaphore(value: 0)
            let outcome = OutcomeBox()
            let (timeout, quietGap, description, secrets) = (self.timeout, self.quietGap, self.description, self.secrets)
            let message = serverCarriesMessage ? self.message : nil
            Thread {
                defer { finished.signal() }
                // The party is made on the thread that drives it (as SessionMachineServer makes its machines).
                let session: DescribedSession
                do {
                    let serve = { try DescribedParty(description: description, conversation: nil, role: .server, secrets: secrets, message: message) }
                    session = DescribedSession(party: try serve(), restart: serve)
                } catch {
                    outcome.set(.incomplete("the Swift engine could not serve the description: \(error)"))
                    return
                }
                guard let connection = try? listener.accept(timeout: timeout) else { outcome.set(.incomplete("the app never connected")); return }
                defer { connection.close() }
                let transcript = SocketDriver.drive(session, over: connection, quietGap: quietGap, timeout: timeout, deadline: timeout * 2)
                let party = session.party
                if let refusal = party.refusal { outcome.set(.refused(refusal.reason)) } else if party.isDone { outcome.set(.done) } else {
                    outcome.set(.incomplete("stopped at step \(party.stepIndex + 1)\(transcript.transportError.map { ": \($0)" } ?? "")"))
                }
            }.start()
            return try judge(server: "swift", port: listener.port) { wait in
                _ = finished.wait(timeout: .now() + wait)
                return outcome.value ?? .incomplete("the server's conversation did not end within \(Int(wait.rounded(.up))) s")
            }
        }
    }

    /// How the server's conversation ended.
    enum ServerOutcome: CustomStringConvertible, Sendable {
        case done
        case refused(String)
        case incomplete(String)

        /// PythonRef described-server's event line (`{"event": "done" | "refused" | "eof" | …, "reason"}`).
        init?(eventLine: String) {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(eventLine.utf8))) as? [String: Any],
                  let event = object["event"] as? String else { return nil }
            let reason = object["reason"] as? String ?? ""
            switch event {
            case "done": self = .done
            case "refused", "framing": self = .refused(reason)
            default: self = .incomplete("\(event)\(reason.isEmpty ? "" : ": \(reason)")")
            }
        }

        var description: String {
            switch self {
            case .done: return "completed the conversation"
            case let .refused(reason): return "refused: \(reason)"
            case let .incomplete(why): return "did not complete it: \(why)"
            }
        }
    }
}

/// What the adapter declared cannot be used.
enum AppDescribedClientError: Error, CustomStringConvertible {
    case noDescription(String, looked: [String])

    var description: String {
        switch self {
        case let .noDescription(name, looked):
            return "no description \(name) (looked in \(looked.joined(separator: ", "))): give a path beside the app, an absolute one, or protocols/NAME.toml"
        }
    }
}

/// The Swift server thread's verdict, read by the check's thread.
final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: AppDescribedClientChecks.ServerOutcome?
    func set(_ outcome: AppDescribedClientChecks.ServerOutcome) { lock.withLock { stored = outcome } }
    var value: AppDescribedClientChecks.ServerOutcome? { lock.withLock { stored } }
}
