import Foundation
import WireCrypto
import WireProtocol

/// Every Swift parser a peer's bytes reach, fed one input: the rsa-socket server and client
/// machines (both framings, whole and split delivery, then a quiet gap), the key importers, the
/// aes-https envelope, JSON and base64 readers, the aes-https server logic, key derivation, and
/// the sealed-box openers. Nothing here may crash, whatever the input; the address sanitizer
/// watches the memory.
enum ParserTarget {
    /// The seed corpus's 1024-bit key (`CROSSCHECK_FUZZ_KEY`, default Vectors/frames/keys/fuzz-rsa1024.pem
    /// under the working directory), so corpus ciphertexts decrypt; a fresh key if it is missing.
    static let key: RSAPrivateKey = {
        let path = ProcessInfo.processInfo.environment["CROSSCHECK_FUZZ_KEY"] ?? "Vectors/frames/keys/fuzz-rsa1024.pem"
        if let pem = FileManager.default.contents(atPath: path), let key = try? RSAPrivateKey(importing: pem) { return key }
        return try! RSAPrivateKey(bits: 1024)
    }()
    static let symmetricKey = Data(repeating: 0x42, count: 32)
    static let https: (server: AESHTTPSServer, token: String) = {
        let server = AESHTTPSServer(config: AESHTTPSServerConfig(users: ["alice": "wonderland"], keyMode: .weakUTF8ZeroPad16, encryptionKey: "pi-secret"))
        let response = server.handle(AESHTTPSClient.loginRequest(username: "alice", password: "wonderland"))
        let token = (try? AESHTTPSClient.parseLogin(response, mode: .weakUTF8ZeroPad16).token) ?? ""
        return (server, token)
    }()

    static func run(_ buffer: UnsafeBufferPointer<UInt8>) {
        let input = Data(buffer)
        let split = input.isEmpty ? 0 : Int(input[input.startIndex]) % (input.count + 1)

        // rsa-socket servers: legacy (PKCS#1, digest) whole, framed (OAEP-SHA256) in two pieces.
        drive(RSASocketServer(config: RSASocketServerConfig(padding: ._WEAK_AND_INSECURE_PKCS_V1_5, framing: .legacy, digest: true, privateKey: key)),
              input, split: nil)
        drive(RSASocketServer(config: RSASocketServerConfig(padding: .oaepSHA256, framing: .framed, maxMessage: 4096, privateKey: key)),
              input, split: split)
        // rsa-socket clients: phone-to-pi (reads the server's key and replies), pi-to-phone (reads a ciphertext).
        drive(RSASocketClient(config: RSASocketClientConfig(direction: .phoneToPi, padding: .oaepSHA1, framing: .legacy, digest: true,
                                                           plaintext: Data("fuzz".utf8))), input, split: split)
        drive(RSASocketClient(config: RSASocketClientConfig(direction: .piToPhone, padding: ._WEAK_AND_INSECURE_PKCS_V1_5, framing: .framed,
                                                           privateKey: key)), input, split: nil)

        // Key files.
        _ = try? RSAPublicKey(importing: input).info
        _ = try? RSAPrivateKey(importing: input).info
        _ = try? RSAPrivateKey(importing: input, passphrase: Data("fuzz passphrase".utf8)).info

        // aes-https: envelope, JSON, base64, key derivation, the server logic.
        _ = try? CBCEnvelope(json: input).open(key: symmetricKey)
        _ = StrictJSON.object(input)
        let text = String(decoding: input, as: UTF8.self)
        _ = StrictBase64.decode(text)
        for mode in KeyDerivationMode.allCases { _ = try? mode.deriveKey(from: text) }
        _ = https.server.handle(WebRequest(method: "POST", path: "/secure-data", headers: ["authorization": https.token], body: input))
        _ = https.server.handle(WebRequest(method: "POST", path: "/login", body: input))

        // Sealed boxes.
        _ = try? AES.GCM.open(AES.GCM.SealedBox(combined: input), using: SymmetricKey(data: symmetricKey))
        _ = try? ChaChaPoly.open(ChaChaPoly.SealedBox(combined: input), using: SymmetricKey(data: symmetricKey), authenticating: Data("aad".utf8))
    }

    /// Feeds `input` (whole, or in two pieces at `split`), then a quiet gap, as a socket shell would.
    static func drive(_ machine: SessionMachine, _ input: Data, split: Int?) {
        _ = machine.start()
        if let split, split > 0, split < input.count {
            _ = machine.receive(input.prefix(split))
            if !machine.closed { _ = machine.receive(input.dropFirst(split)) }
        } else {
            _ = machine.receive(input)
        }
        if !machine.closed { _ = machine.idle() }
    }
}
