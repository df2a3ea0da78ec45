// A client of the seed's rsa-socket protocol, phone-to-pi direction, written for these tests from
// docs/PROTOCOL.md ("rsa-socket") alone — not from crosscheck's described engine — as an app
// would: a blocking POSIX socket, the Pi's PEM key through `SecKeyCreateWithData`, the message
// through `SecKeyCreateEncryptedData`. Planted flaws where marked PLANTED.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import CryptoKit
import Security
import AppUnderTest
#if canImport(Glibc)
import Glibc
#endif

final class PhoneToPiClientApp: AppUnderTest, DescribedProtocolClient {
    enum Plant { case none, oaepInsteadOfPKCS1, noLabel }
    let identifier: String
    let summary = "tests: an rsa-socket phone-to-pi client with its own socket, written from docs/PROTOCOL.md"
    let describedProtocol: String
    let describedConversation = "phone-to-pi"
    let plant: Plant

    init(_ identifier: String, plant: Plant = .none, description: String = "protocols/rsa-socket.toml") {
        self.identifier = identifier; self.plant = plant; describedProtocol = description
    }

    func runDescribedConversation(host: String, port: Int, timeout: TimeInterval) throws -> Data {
        let socket = try BlockingSocket(host: host, port: port, timeout: timeout)
        defer { socket.close() }
        try socket.send(Data("Client: OK".utf8))
        let greeting = try socket.read(until: Data("-----END PUBLIC KEY-----\n".utf8))
        guard let text = String(data: greeting, encoding: .utf8), text.hasPrefix("public_key=") else {
            throw AppFailure("read key", "the server sent \(greeting.prefix(40)) instead of public_key=")
        }
        let algorithm: SecKeyAlgorithm = plant == .oaepInsteadOfPKCS1 ? .rsaEncryptionOAEPSHA256 : .rsaEncryptionPKCS1  // PLANTED (oaep)
        guard let key = PiRSAHelper.publicKey(fromPEM: String(text.dropFirst("public_key=".count))) else {
            throw AppFailure("SecKeyCreateWithData", "the server's key does not load")
        }
        var error: Unmanaged<CFError>?
        guard let ciphertext = SecKeyCreateEncryptedData(key, algorithm, Data("hello from the phone".utf8) as CFData, &error) as Data? else {
            throw AppFailure("SecKeyCreateEncryptedData", "\(String(describing: error?.takeRetainedValue()))")
        }
        let label = plant == .noLabel ? Data() : Data("encrypted_message=".utf8)  // PLANTED (noLabel)
        try socket.send(label + ciphertext)
        let answer = try socket.readAvailable()
        guard answer == Data("Server: OK".utf8) else { throw AppFailure("read answer", "the server answered \(String(decoding: answer, as: UTF8.self))") }
        try socket.send(Data("Quit".utf8))
        let stopped = try socket.read(until: Data("\n".utf8))
        guard stopped == Data("Server stopped\n".utf8) else { throw AppFailure("read stop", "the server answered \(String(decoding: stopped, as: UTF8.self))") }
        return Data()
    }
}

/// A POSIX TCP client socket with a receive and send timeout.
final class BlockingSocket {
    private let fd: Int32
    private var buffer = Data()

    init(host: String, port: Int, timeout: TimeInterval) throws {
        fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw AppFailure("socket", "errno \(errno)") }
        var wait = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { Glibc.close(fd); throw AppFailure("connect", "errno \(errno)") }
    }

    func send(_ data: Data) throws {
        let sent = data.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, data.count, Int32(MSG_NOSIGNAL)) }
        guard sent == data.count else { throw AppFailure("send", "sent \(sent) of \(data.count) bytes") }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let got = recv(fd, &chunk, chunk.count, 0)
        guard got > 0 else { throw AppFailure("recv", got == 0 ? "the server closed the connection" : "errno \(errno)") }
        buffer += Data(chunk[0..<got])
    }

    func read(until end: Data) throws -> Data {
        while buffer.range(of: end) == nil { try fill() }
        let upTo = buffer.range(of: end)!.upperBound
        defer { buffer = Data(buffer[upTo...]) }
        return Data(buffer[..<upTo])
    }

    func read(exactly count: Int) throws -> Data {
        while buffer.count < count { try fill() }
        defer { buffer = Data(buffer.dropFirst(count)) }
        return Data(buffer.prefix(count))
    }

    /// What one read brings (the answer the server sends in one write).
    func readAvailable() throws -> Data {
        if buffer.isEmpty { try fill() }
        defer { buffer = Data() }
        return buffer
    }

    func close() { Glibc.close(fd) }
}

/// rsa-socket pi-to-phone, from docs/PROTOCOL.md: the phone sends `public_key=` and its SPKI PEM
/// (iOS exports PKCS#1, so the app prepends the fixed 2048-bit SPKI header, as iOS code does), the
/// Pi answers one PKCS#1 v1.5 ciphertext of its message, the phone sends Quit.
final class PiToPhoneClientApp: AppUnderTest, DescribedProtocolClient {
    let identifier: String
    let summary = "tests: an rsa-socket pi-to-phone client with its own socket, written from docs/PROTOCOL.md"
    let describedProtocol = "protocols/rsa-socket.toml"
    let describedConversation = "pi-to-phone"
    /// PLANTED when true: the app shows the first 16 bytes of what it decrypted, not all of it.
    let cutsThePlaintext: Bool
    static let spkiHeader2048 = Data([0x30, 0x82, 0x01, 0x22, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01,
                                      0x05, 0x00, 0x03, 0x82, 0x01, 0x0f, 0x00])

    init(_ identifier: String, cutsThePlaintext: Bool = false) { self.identifier = identifier; self.cutsThePlaintext = cutsThePlaintext }

    func runDescribedConversation(host: String, port: Int, timeout: TimeInterval) throws -> Data {
        var error: Unmanaged<CFError>?
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048]
        guard let privateKey = SecKeyCreateRandomKey(attributes as CFDictionary, &error), let publicKey = SecKeyCopyPublicKey(privateKey),
              let pkcs1 = SecKeyCopyExternalRepresentation(publicKey, &error) as Data? else {
            throw AppFailure("SecKeyCreateRandomKey", "\(String(describing: error?.takeRetainedValue()))")
        }
        let base64 = (Self.spkiHeader2048 + pkcs1).base64EncodedString(options: .lineLength64Characters).replacingOccurrences(of: "\r\n", with: "\n")
        let pem = "-----BEGIN PUBLIC KEY-----\n\(base64)\n-----END PUBLIC KEY-----"
        let socket = try BlockingSocket(host: host, port: port, timeout: timeout)
        defer { socket.close() }
        try socket.send(Data("public_key=\(pem)".utf8))
        let ciphertext = try socket.read(exactly: 256)
        guard let plaintext = SecKeyCreateDecryptedData(privateKey, .rsaEncryptionPKCS1, ciphertext as CFData, &error) as Data? else {
            throw AppFailure("SecKeyCreateDecryptedData", "\(String(describing: error?.takeRetainedValue()))")
        }
        try socket.send(Data("Quit".utf8))
        _ = try socket.read(until: Data("\n".utf8))
        return cutsThePlaintext ? plaintext.prefix(16) : plaintext  // PLANTED (cutsThePlaintext)
    }
}

/// examples/protocols/gcm-key-in-request.toml's client, written from that description as an app
/// would: a fresh CryptoKit key, `AES.GCM.seal`, one JSON POST with URLSession, the answer's
/// "plaintext" read back. PLANTED when `nonceInsideCiphertext`: CryptoKit's combined box
/// (nonce || ciphertext || tag) sent as "ciphertext", a common slip.
final class KeyInRequestClientApp: AppUnderTest, DescribedProtocolClient {
    let identifier: String
    let summary = "tests: an HTTP client of gcm-key-in-request with URLSession and CryptoKit"
    let describedProtocol = "examples/protocols/gcm-key-in-request.toml"
    let nonceInsideCiphertext: Bool

    init(_ identifier: String, nonceInsideCiphertext: Bool = false) { self.identifier = identifier; self.nonceInsideCiphertext = nonceInsideCiphertext }

    func runDescribedConversation(host: String, port: Int, timeout: TimeInterval) throws -> Data {
        let key = SymmetricKey(size: .bits256)
        let box = try AES.GCM.seal(Data("reading 21.5".utf8), using: key)
        let keyBytes = key.withUnsafeBytes { Data($0) }
        let ciphertext = nonceInsideCiphertext ? box.combined! : box.ciphertext + box.tag  // PLANTED (nonceInsideCiphertext)
        let body: [String: String] = ["key": keyBytes.base64EncodedString(), "nonce": Data(box.nonce).base64EncodedString(),
                                      "ciphertext": ciphertext.base64EncodedString()]
        var request = URLRequest(url: URL(string: "http://\(host):\(port)/decrypt")!, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var answer: (Data?, URLResponse?, Error?) = (nil, nil, nil)
        URLSession.shared.dataTask(with: request) { data, response, error in answer = (data, response, error); done.signal() }.resume()
        guard done.wait(timeout: .now() + timeout) == .success else { throw AppFailure("URLSession", "no answer within \(timeout) s") }
        if let error = answer.2 { throw AppFailure("URLSession", "\(error)") }
        guard let status = (answer.1 as? HTTPURLResponse)?.statusCode, status == 200, let data = answer.0,
              let object = try JSONSerialization.jsonObject(with: data) as? [String: Any], let plaintext = object["plaintext"] as? String else {
            throw AppFailure("decrypt", "the server answered \((answer.1 as? HTTPURLResponse)?.statusCode ?? 0) \(String(decoding: answer.0 ?? Data(), as: UTF8.self))")
        }
        return Data(plaintext.utf8)
    }
}

/// examples/protocols/textbook-rsa-pycrypto-tuple.toml from the app's side, written for these tests
/// from the description as an iOS app talking to a PyCrypto Pi would be: the server's SPKI PEM after
/// `public_key=`, the message encrypted with `SecKeyCreateEncryptedData(.rsaEncryptionRaw)` (textbook
/// RSA: the message read as a number), sent as Python 2's `str((c,))` after `encrypted_message=`.
/// Planted flaws where marked PLANTED.
final class TextbookTupleClientApp: AppUnderTest, DescribedProtocolClient {
    enum Plant { case none, python3Repr }
    let identifier: String
    let summary = "tests: a textbook-RSA client of a Python 2 server, with its own socket, written from the description"
    let describedProtocol = "examples/protocols/textbook-rsa-pycrypto-tuple.toml"
    let describedConversation = "encrypted-message"
    let plant: Plant

    init(_ identifier: String, plant: Plant = .none) { self.identifier = identifier; self.plant = plant }

    /// Python 2's text of a one-tuple of a str: quoted with ' unless the bytes hold ' and no ", that
    /// quote and the backslash escaped, \t \n \r, other bytes outside 0x20…0x7E as \xhh (lowercase).
    static func python2Tuple(_ bytes: Data) -> String {
        let quote: Character = bytes.contains(0x27) && !bytes.contains(0x22) ? "\"" : "'"
        var text = "(" + String(quote)
        for byte in bytes {
            let character = Character(Unicode.Scalar(byte))
            switch byte {
            case 0x5C: text += "\\\\"
            case _ where character == quote: text += "\\" + String(quote)
            case 0x09: text += "\\t"
            case 0x0A: text += "\\n"
            case 0x0D: text += "\\r"
            case 0x20...0x7E: text.append(character)
            default: text += String(format: "\\x%02x", byte)
            }
        }
        return text + String(quote) + ",)"
    }

    func runDescribedConversation(host: String, port: Int, timeout: TimeInterval) throws -> Data {
        let socket = try BlockingSocket(host: host, port: port, timeout: timeout)
        defer { socket.close() }
        try socket.send(Data("Client: OK".utf8))
        let greeting = try socket.read(until: Data("-----END PUBLIC KEY-----\n".utf8))
        guard let text = String(data: greeting, encoding: .utf8), text.hasPrefix("public_key="),
              let key = PiRSAHelper.publicKey(fromPEM: String(text.dropFirst("public_key=".count))) else {
            throw AppFailure("read key", "the server sent \(greeting.prefix(40)) and no key after public_key=")
        }
        var error: Unmanaged<CFError>?
        guard let ciphertext = SecKeyCreateEncryptedData(key, .rsaEncryptionRaw, Data("hello pi".utf8) as CFData, &error) as Data? else {
            throw AppFailure("SecKeyCreateEncryptedData", "\(String(describing: error?.takeRetainedValue()))")
        }
        // PLANTED (python3Repr): the text Python 3 writes, bytes with a b prefix, as a port of a Python 3 client would.
        let written = plant == .python3Repr ? "(b" + Self.python2Tuple(ciphertext).dropFirst() : Self.python2Tuple(ciphertext)
        try socket.send(Data(("encrypted_message=" + written).utf8))
        let answer = try socket.read(exactly: "Server: OK".utf8.count)
        guard answer == Data("Server: OK".utf8) else { throw AppFailure("read answer", "the server answered \(String(decoding: answer, as: UTF8.self))") }
        try socket.send(Data("Quit".utf8))
        let stopped = try socket.read(until: Data("\n".utf8))
        guard stopped == Data("Server stopped\n".utf8) else { throw AppFailure("read stop", "the server answered \(String(decoding: stopped, as: UTF8.self))") }
        return Data()
    }
}
