import Foundation
import WireCrypto
import WireProtocol
import StrictFormats

/// What each libFuzzer target (`make libfuzzer TARGET=…`) feeds one input to: the Swift parsers a
/// peer's bytes reach, one family of them per target, so each target runs fast and its coverage
/// says how much of that family's parsing the fuzzer reached. Nothing here may crash, whatever the
/// input; AddressSanitizer watches the memory. No Python here (the differential target is apart).
public enum ParserTargets {
    /// The targets by name, as `make libfuzzer TARGET=NAME` names them.
    public static let all: [String: @Sendable (Data) -> Void] = [
        "rsa-socket": rsaSocket, "keys-public": publicKeys, "keys-private": privateKeys, "json": json, "sealed": sealed, "https": https,
        "all": everything,
    ]

    /// The seed corpus's 1024-bit key (`CROSSCHECK_FUZZ_KEY`, default Vectors/frames/keys/fuzz-rsa1024.pem
    /// under the working directory), so corpus ciphertexts decrypt; a fresh key if it is missing.
    static let key: RSAPrivateKey = {
        let path = ProcessInfo.processInfo.environment["CROSSCHECK_FUZZ_KEY"] ?? "Vectors/frames/keys/fuzz-rsa1024.pem"
        if let pem = FileManager.default.contents(atPath: path), let key = try? RSAPrivateKey(importing: pem) { return key }
        // Without the corpus key the target still runs, on a key of its own; generating one cannot fail short of OpenSSL being broken.
        return try! RSAPrivateKey(bits: 1024)
    }()
    static let symmetricKey = Data(repeating: 0x42, count: 32)
    static let httpsServer: (server: AESHTTPSServer, token: String) = {
        let server = AESHTTPSServer(config: AESHTTPSServerConfig(users: ["alice": "wonderland"], keyMode: .weakUTF8ZeroPad16, encryptionKey: "pi-secret"))
        let response = server.handle(AESHTTPSClient.loginRequest(username: "alice", password: "wonderland"))
        let token = (try? AESHTTPSClient.parseLogin(response, mode: .weakUTF8ZeroPad16).token) ?? ""
        return (server, token)
    }()

    /// rsa-socket machines: servers (legacy PKCS#1 with digest, whole; framed OAEP-SHA256 in two
    /// pieces), clients (phone-to-pi reading the server's key and replies; pi-to-phone reading a
    /// ciphertext), each then told the line went quiet. The first byte picks the split.
    public static func rsaSocket(_ input: Data) {
        let split = input.isEmpty ? 0 : Int(input[input.startIndex]) % (input.count + 1)
        drive(RSASocketServer(config: RSASocketServerConfig(padding: ._WEAK_AND_INSECURE_PKCS_V1_5, framing: .legacy, digest: true, privateKey: key)),
              input, split: nil)
        drive(RSASocketServer(config: RSASocketServerConfig(padding: .oaepSHA256, framing: .framed, maxMessage: 4096, privateKey: key)),
              input, split: split)
        drive(RSASocketClient(config: RSASocketClientConfig(direction: .phoneToPi, padding: .oaepSHA1, framing: .legacy, digest: true,
                                                           plaintext: Data("fuzz".utf8))), input, split: split)
        drive(RSASocketClient(config: RSASocketClientConfig(direction: .piToPhone, padding: ._WEAK_AND_INSECURE_PKCS_V1_5, framing: .framed,
                                                           privateKey: key)), input, split: nil)
    }

    /// Public-key files (and wire keys): PEM and DER, SPKI and PKCS#1.
    public static func publicKeys(_ input: Data) {
        _ = try? RSAPublicKey(importing: input).info
    }

    /// Private-key files: PKCS#8 and PKCS#1, PEM and DER, encrypted ones with and without the passphrase.
    public static func privateKeys(_ input: Data) {
        _ = try? RSAPrivateKey(importing: input).info
        _ = try? RSAPrivateKey(importing: input, passphrase: Data("fuzz passphrase".utf8)).info
    }

    /// JSON and envelopes: the strict JSON reader, the envelope opener, strict base64, key derivation.
    public static func json(_ input: Data) {
        _ = try? CBCEnvelope(json: input).open(key: symmetricKey)
        _ = StrictJSON.object(input)
        let text = String(decoding: input, as: UTF8.self)
        _ = StrictBase64.decode(text)
        for mode in KeyDerivationMode.allCases { _ = try? mode.deriveKey(from: text) }
    }

    /// Sealed boxes: AES-GCM and ChaChaPoly combined blobs.
    public static func sealed(_ input: Data) {
        _ = try? AES.GCM.open(AES.GCM.SealedBox(combined: input), using: SymmetricKey(data: symmetricKey))
        _ = try? ChaChaPoly.open(ChaChaPoly.SealedBox(combined: input), using: SymmetricKey(data: symmetricKey), authenticating: Data("aad".utf8))
    }

    /// aes-https requests: the server logic, `/secure-data` with a valid token and `/login`.
    public static func https(_ input: Data) {
        _ = httpsServer.server.handle(WebRequest(method: "POST", path: "/secure-data", headers: ["authorization": httpsServer.token], body: input))
        _ = httpsServer.server.handle(WebRequest(method: "POST", path: "/login", body: input))
    }

    /// Every parser above, one input each.
    public static func everything(_ input: Data) {
        rsaSocket(input); publicKeys(input); privateKeys(input); json(input); https(input); sealed(input)
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
