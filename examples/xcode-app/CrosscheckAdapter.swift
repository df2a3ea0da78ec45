// The adapter crosscheck builds with PiRemote's crypto files (not part of the Xcode project):
// `crosscheck run --app examples/xcode-app/PiRemote.xcodeproj`.
import Foundation
import AppUnderTest

final class PiRemoteAdapter: AppUnderTest, PeerKeyEncryption, RequestSigning {
    // The app's own bundled key must be reachable as on iOS (Bundle.main / Bundle(for:)).
    let identifier = ServerKeyEncryptor.bundledServerKeyPEM() != nil && Bundle.main.path(forResource: "pi_public", ofType: "pem") != nil
        ? "pi-remote" : "pi-remote-without-its-bundle"
    let summary = "PiRemote's ServerKeyEncryptor and RequestSigner, from its Xcode project"

    let peerKeyScheme = PeerKeyScheme(keyFormats: ["pem-spki"], padding: "oaep-sha256",
                                      appFunction: "ServerKeyEncryptor.encrypt(_:publicKeyPEM:) in PiRemote/Crypto/ServerKeyEncryptor.swift")

    func encrypt(_ plaintext: Data, toPeerKey key: Data, format: String) throws -> Data {
        // The app encrypts text; crosscheck's bytes go through as text when they are UTF-8.
        guard let text = String(data: plaintext, encoding: .utf8) else { throw AppFailure("adapter", "ServerKeyEncryptor takes text") }
        // appCall: what the app throws comes back naming its function and this line.
        let base64 = try appCall("ServerKeyEncryptor.encrypt") { try ServerKeyEncryptor.encrypt(text, publicKeyPEM: String(decoding: key, as: UTF8.self)) }
        guard let ciphertext = Data(base64Encoded: base64) else { throw AppFailure("adapter", "not base64: \(base64)") }
        return ciphertext
    }

    let requestSigningScheme = RequestSigningScheme(algorithm: "hmac-sha256", canonicalTemplate: "{method}\n{path}\n{timestamp}\n{body}",
                                                    secretEncoding: "hex", signatureEncoding: "hex",
                                                    appFunction: "RequestSigner.sign(method:path:timestamp:body:secretHex:) in PiRemote/Crypto/RequestSigner.swift")

    func signRequest(_ request: SignableRequest, secret: Data) throws -> Data {
        Data(RequestSigner.sign(method: request.method, path: request.path, timestamp: request.timestamp,
                                body: String(decoding: request.body, as: UTF8.self), secretHex: String(decoding: secret, as: UTF8.self)).utf8)
    }
}

func makeAppUnderTest() -> AppUnderTest { PiRemoteAdapter() }
