// The adapter for seed 000 (not seed code): maps the ported view controller onto AppUnderTest.
// It drives the controller the way its buttons and stream events would, in its own keychain,
// and reads the outcome from the controller's state (labels, enabled buttons, glue records).
import Foundation
import Security
import AppUnderTest

public final class Seed000Adapter: AppUnderTest, RSASocketClient, RSASocketSession, DescribedProtocolClient {
    public let identifier = "seed-000"
    public let summary = "seed 000: iPhone ⇄ Raspberry Pi RSA socket client (Swift 2.1 view controller, ported), PKCS#1, 1024-bit key"
    public let rsaPadding = "pkcs1"
    /// Its own session is the seed protocol's pi-to-phone conversation, as crosscheck describes it.
    public let describedProtocol = "protocols/rsa-socket.toml"
    public let describedConversation = "pi-to-phone"

    let keychain = InMemoryKeychain()
    let viewController = ViewController()

    /// Loads the view: the seed's KeySetup makes (or finds) its key pair and PEM.
    public init() {
        InMemoryKeychain.withKeychain(keychain) { viewController.viewDidLoad() }
    }

    /// The bytes "Send public key to server" writes.
    public func publicKeyMessage() throws -> Data {
        try written { viewController.btnSendKey(sender: viewController.buttonSendKey) }
    }

    /// The bytes "Send \"Quit\"" writes.
    public func quitMessage() -> Data {
        (try? written { viewController.btnQuitPressed(sender: viewController.buttonQuit) }) ?? Data()
    }

    private func written(_ press: () -> Void) throws -> Data {
        let memory = OutputStream(toMemory: ())
        memory.open()
        let previous = viewController.outStream
        viewController.outStream = memory
        InMemoryKeychain.withKeychain(keychain) { press() }
        viewController.outStream = previous
        guard let data = memory.property(forKey: .dataWrittenToMemoryStreamKey) as? Data else {
            throw AppFailure("write", "the app wrote nothing")
        }
        return data
    }

    /// One read event with `bytes` available, then "Decrypt message", as the app handles them. The
    /// buffer is reset as the app's NetworkEnable() resets it for each connection.
    public func receiveEncryptedMessage(_ bytes: Data) throws -> Data {
        let controller = viewController
        let stream = InputStream(data: bytes)
        stream.open()
        controller.inStream = stream
        controller.buffer = [UInt8](repeating: 0, count: 200)
        controller.buttonDecryptMsg.isEnabled = false
        controller.label.text = nil
        controller.stream(stream, handle: .hasBytesAvailable)
        return try decrypt()
    }

    private func decrypt() throws -> Data {
        let controller = viewController
        guard controller.buttonDecryptMsg.isEnabled else {
            throw AppFailure("receive", "the app's read returned \(String(describing: controller.inStreamLength)) bytes; it has nothing to decrypt")
        }
        controller.lastDecryptStatus = nil
        controller.trappedOnNonUTF8 = false
        InMemoryKeychain.withKeychain(keychain) { controller.btnDecryptMsg(sender: controller.buttonDecryptMsg) }
        if controller.trappedOnNonUTF8 {
            throw AppFailure("decrypt", "the plaintext is not UTF-8: the app force-unwraps NSString(bytes:…) and would crash")
        }
        guard let status = controller.lastDecryptStatus, status == noErr else {
            throw AppFailure("decrypt", "SecKeyDecrypt returned \(controller.lastDecryptStatus.map(String.init) ?? "nothing") on the \(controller.inStreamLength ?? 0) bytes the app read")
        }
        guard let text = controller.label.text, text.hasPrefix("Server sent:\n") else {
            throw AppFailure("decrypt", "the app showed \(controller.label.text ?? "nothing")")
        }
        return Data(text.dropFirst("Server sent:\n".count).utf8)
    }

    /// A whole pi-to-phone session with the app's own networking: connect, send the public key,
    /// take the first read, decrypt, send "Quit", wait for the server to close.
    public func runSession(host: String, port: Int, timeout: TimeInterval) throws -> Data {
        let controller = viewController
        let deadline = Date().addingTimeInterval(timeout)
        controller.addr = host
        controller.port = port
        controller.buttonDecryptMsg.isEnabled = false
        controller.btnConnectPressed(sender: controller.buttonConnect)
        defer { controller.inStream?.close(); controller.outStream?.close() }
        guard let input = controller.inStream else { throw AppFailure("connect", "the app made no streams") }
        input.pumpEvents(until: deadline) { controller.buttonSendKey.isEnabled || controller.buttonConnect.isEnabled }
        guard controller.buttonSendKey.isEnabled else {
            throw AppFailure("connect", controller.labelConnection.text ?? "no connection")
        }
        InMemoryKeychain.withKeychain(keychain) { controller.btnSendKey(sender: controller.buttonSendKey) }
        input.pumpEvents(until: deadline) { controller.buttonDecryptMsg.isEnabled || controller.buttonConnect.isEnabled }
        let plaintext = try decrypt()
        controller.btnQuitPressed(sender: controller.buttonQuit)
        input.pumpEvents(until: deadline) { controller.buttonConnect.isEnabled }
        return plaintext
    }

    public func runDescribedConversation(host: String, port: Int, timeout: TimeInterval) throws -> Data {
        try runSession(host: host, port: port, timeout: timeout)
    }
}
