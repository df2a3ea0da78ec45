import Foundation
import XCTest
import Security
import AppUnderTest
import SeedApps
import Seed000App
import Seed001App
import Seed002App
import WireCrypto
import TestSupport

/// Seed 000's ported view controller: its key message, its single read and PKCS#1 decryption.
final class Seed000AppTests: XCTestCase {
    static let message = "Secret message from RPi server"

    /// What a Pi server does with the app's key message: PKCS#1 v1.5 encryption with pyca.
    func encryptForApp(_ keyMessage: Data, _ plaintext: Data, padding: String = "pkcs1") throws -> Data {
        Data(hex: try python("""
            import sys
            from cryptography.hazmat.primitives import hashes, serialization
            from cryptography.hazmat.primitives.asymmetric import padding
            pem, message, mode = sys.stdin.read().split("|")
            key = serialization.load_pem_public_key(pem[len("public_key="):].encode())
            pad = padding.PKCS1v15() if mode == "pkcs1" else padding.OAEP(padding.MGF1(hashes.SHA1()), hashes.SHA1(), None)
            print(key.encrypt(bytes.fromhex(message), pad).hex())
            """, input: "\(String(decoding: keyMessage, as: UTF8.self))|\(plaintext.hex)|\(padding)"))
    }

    func testKeyMessage_isSPKIPEMOfA1024BitKey_inTheIOSLayout() throws {
        let app = Seed000Adapter()
        let message = String(decoding: try app.publicKeyMessage(), as: UTF8.self)
        XCTAssertTrue(message.hasPrefix("public_key=-----BEGIN PUBLIC KEY-----\n"))
        XCTAssertTrue(message.hasSuffix("\n-----END PUBLIC KEY-----"))
        let pem = String(message.dropFirst("public_key=".count))
        let body = pem.components(separatedBy: "\n").dropFirst().dropLast()
        XCTAssertTrue(body.dropLast().allSatisfy { $0.count == 64 })
        // WireCrypto writes the iOS layout independently; the app's bytes must be the same.
        let key = try RSAPublicKey(pemRepresentation: pem)
        XCTAssertEqual(key.bits, 1024)
        XCTAssertEqual(String(decoding: try key.exported(.spkiPEM), as: UTF8.self), pem)
        let scratch = try Scratch()
        try Data(pem.utf8).write(to: scratch.file("app.pem"))
        XCTAssertTrue(String(decoding: try openssl(["pkey", "-pubin", "-in", "app.pem", "-noout", "-text"], in: scratch.url), as: UTF8.self)
                        .contains("Public-Key: (1024 bit)"))
        XCTAssertEqual(app.quitMessage(), Data("Quit".utf8))
        // Loading again finds the same keys in its keychain (the seed's GetKeysFromKeychain path).
        XCTAssertEqual(try app.publicKeyMessage(), Data(message.utf8))
    }

    func testDecryptsWhatPycaEncrypts_withPKCS1() throws {
        let app = Seed000Adapter()
        let cipher = try encryptForApp(try app.publicKeyMessage(), Data(Self.message.utf8))
        XCTAssertEqual(cipher.count, 128)
        XCTAssertEqual(try app.receiveEncryptedMessage(cipher), Data(Self.message.utf8))
    }

    func testRefusals_oaep_moreThanOneRead_nonUTF8() throws {
        let app = Seed000Adapter()
        let keyMessage = try app.publicKeyMessage()
        // OAEP is not what the app decrypts. Before iOS 17.4 SecKeyDecrypt reports errSecParam (-50) and
        // the seed prints its error; from 17.4 (implicit rejection, the default target) it returns a
        // random message, so the seed's error branch is never taken: it shows garbage, or crashes on
        // bytes that are not UTF-8.
        let oaep = try encryptForApp(keyMessage, Data(Self.message.utf8), padding: "oaep")
        let console = AppConsole.mark
        try TargetIOS.with(TargetIOS(major: 17, minor: 3)) {
            XCTAssertThrowsError(try app.receiveEncryptedMessage(oaep)) { XCTAssertTrue("\($0)".contains("-50"), "\($0)") }
        }
        // What the seed's code prints goes to AppConsole, not to stdout.
        XCTAssertTrue(AppConsole.lines(since: console).contains("Decryption Error! -50"), "\(AppConsole.lines(since: console))")
        switch Result(catching: { try app.receiveEncryptedMessage(oaep) }) {
        case let .success(garbage): XCTAssertNotEqual(garbage, Data(Self.message.utf8))
        case let .failure(error): XCTAssertTrue("\(error)".contains("crash") && !"\(error)".contains("-50"), "\(error)")
        }
        // Whatever arrives in one read is decrypted as one ciphertext: a ciphertext with more bytes after it fails.
        let good = try encryptForApp(keyMessage, Data(Self.message.utf8))
        XCTAssertThrowsError(try app.receiveEncryptedMessage(good + Data("Server stopped\n".utf8))) { XCTAssertTrue("\($0)".contains("-50"), "\($0)") }
        // The single read takes at most 200 bytes.
        XCTAssertThrowsError(try app.receiveEncryptedMessage(Data(count: 300))) { XCTAssertTrue("\($0)".contains("200 bytes"), "\($0)") }
        // Plaintext that is not UTF-8 would crash the app (force-unwrapped NSString).
        let binary = try encryptForApp(keyMessage, Data([0xff, 0xfe, 0xfd]))
        XCTAssertThrowsError(try app.receiveEncryptedMessage(binary)) { XCTAssertTrue("\($0)".contains("crash"), "\($0)") }
        // The app still works afterwards.
        XCTAssertEqual(try app.receiveEncryptedMessage(good), Data(Self.message.utf8))
    }

    /// The app's own networking (StreamGlue) against a pi-to-phone server written in Python.
    func testSession_withTheAppsOwnSocket_againstAPythonServer() throws {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = ["-c", """
            import socket, sys
            from cryptography.hazmat.primitives import serialization
            from cryptography.hazmat.primitives.asymmetric import padding
            listener = socket.socket()
            listener.settimeout(20)
            listener.bind(("127.0.0.1", 0))
            listener.listen(1)
            print(listener.getsockname()[1], flush=True)
            conn, _ = listener.accept()
            conn.settimeout(10)
            data = b""
            while b"-----END PUBLIC KEY-----" not in data:
                chunk = conn.recv(4096)
                if not chunk: sys.exit("client closed before sending its key")
                data += chunk
            key = serialization.load_pem_public_key(data[len(b"public_key="):])
            conn.sendall(key.encrypt(b"\(Self.message)", padding.PKCS1v15()))
            quit_message = conn.recv(1024)
            conn.sendall(b"Server stopped\\n")
            conn.close()
            print(quit_message.decode(), flush=True)
            """]
        let output = Pipe()
        server.standardOutput = output
        try server.run()
        defer { if server.isRunning { server.terminate() } }
        var portLine = Data()
        while !portLine.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            portLine += chunk
        }
        let port = try XCTUnwrap(Int(String(decoding: portLine, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        let app = Seed000Adapter()
        XCTAssertEqual(try app.runSession(host: "127.0.0.1", port: port, timeout: 20), Data(Self.message.utf8))
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        server.waitUntilExit()
        XCTAssertEqual(server.terminationStatus, 0)
        XCTAssertEqual(rest.trimmingCharacters(in: .whitespacesAndNewlines), "Quit")
    }

    func testSession_refusedConnection_isAnAppFailure_notAHang() throws {
        let app = Seed000Adapter()
        // Port 9 on loopback: nothing listens there in the test environment.
        XCTAssertThrowsError(try app.runSession(host: "127.0.0.1", port: 9, timeout: 5)) { XCTAssertTrue($0 is AppFailure, "\($0)") }
    }
}

/// Seed 001's serializers as an aes-https client, against pyca/cryptography.
final class Seed001AppTests: XCTestCase {
    /// The server side of the envelope, written with pyca (utf8-zeropad16 key derivation).
    func serverOpens(_ body: Data, key: Data) throws -> String {
        try python("""
            import sys, json, base64
            from cryptography.hazmat.primitives import padding
            from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
            key, body = sys.stdin.read().split("|")
            envelope = json.loads(body)
            decryptor = Cipher(algorithms.AES(bytes.fromhex(key)), modes.CBC(base64.b64decode(envelope["iv"]))).decryptor()
            padded = decryptor.update(base64.b64decode(envelope["data"])) + decryptor.finalize()
            unpadder = padding.PKCS7(128).unpadder()
            print(json.dumps(json.loads(unpadder.update(padded) + unpadder.finalize()), sort_keys=True))
            """, input: "\(key.hex)|\(String(decoding: body, as: UTF8.self))")
    }

    func serverSeals(_ json: String, key: Data) throws -> Data {
        Data(try python("""
            import sys, json, base64, os
            from cryptography.hazmat.primitives import padding
            from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
            key, text = sys.stdin.read().split("|", 1)
            iv = os.urandom(16)
            padder = padding.PKCS7(128).padder()
            padded = padder.update(text.encode()) + padder.finalize()
            encryptor = Cipher(algorithms.AES(bytes.fromhex(key)), modes.CBC(iv)).encryptor()
            data = encryptor.update(padded) + encryptor.finalize()
            print(json.dumps({"data": base64.b64encode(data).decode(), "iv": base64.b64encode(iv).decode()}))
            """, input: "\(key.hex)|\(json)").utf8)
    }

    func testEnvelope_bothDirections_withAShortKeyString() throws {
        let app = Seed001Adapter()
        let keyString = "k3y-from-login"  // 14 UTF-8 bytes
        let key = Data(keyString.utf8) + Data(count: 16 - keyString.utf8.count)
        let body = try app.requestBody(parameters: ["example": "data"], encryptionKey: keyString)
        XCTAssertEqual(try serverOpens(body, key: key), "{\"example\": \"data\"}")
        let response = try serverSeals("{\"echo\": {\"example\": \"data\"}}", key: key)
        let object = try XCTUnwrap(try app.responseObject(body: response, encryptionKey: keyString) as? [String: Any])
        XCTAssertEqual((object["echo"] as? [String: Any])?["example"] as? String, "data")
    }

    /// With a 16-byte key string, Apple's getCString fails and leaves the key buffer zeroed: the
    /// app encrypts with sixteen zero bytes, not with the key the server gave it.
    func testSixteenByteKeyString_encryptsWithAnAllZeroKey_asOnIOS() throws {
        let app = Seed001Adapter()
        let keyString = "0123456789abcdef"
        let body = try app.requestBody(parameters: ["example": "data"], encryptionKey: keyString)
        XCTAssertEqual(try serverOpens(body, key: Data(count: 16)), "{\"example\": \"data\"}")
        XCTAssertThrowsError(try serverOpens(body, key: Data(keyString.utf8)))
    }

    func testWrongKeyOrDamagedEnvelope_givesNoObject() throws {
        let app = Seed001Adapter()
        let key = Data("right".utf8) + Data(count: 11)
        let response = try serverSeals("{\"echo\": 1}", key: key)
        XCTAssertThrowsError(try app.responseObject(body: response, encryptionKey: "wrong"))
        XCTAssertThrowsError(try app.responseObject(body: Data("not json".utf8), encryptionKey: "right"))
        XCTAssertThrowsError(try app.responseObject(body: Data("{\"data\": \"@@\", \"iv\": \"AAAA\"}".utf8), encryptionKey: "right"))
    }
}

/// Seed 002's pinning delegate deciding real TLS server trusts, certificates made by the openssl CLI.
final class Seed002AppTests: XCTestCase {
    nonisolated(unsafe) static var certificates: [String: Data] = [:]

    override class func setUp() {
        super.setUp()
        // A CA, a server it signed (SAN localhost), and an impostor CA with its own server.
        let scratch = try! Scratch()
        func make(_ arguments: [String]) { _ = try! openssl(arguments, in: scratch.url) }
        let ext = "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n"
        try! Data(ext.utf8).write(to: scratch.file("server.ext"))
        for ca in ["ca", "impostor-ca"] {
            make(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(ca).key", "-out", "\(ca).pem", "-days", "365",
                  "-subj", "/CN=\(ca)", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"])
        }
        for (leaf, ca) in [("server", "ca"), ("impostor", "impostor-ca")] {
            make(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(leaf).key", "-out", "\(leaf).csr", "-subj", "/CN=localhost"])
            make(["x509", "-req", "-in", "\(leaf).csr", "-CA", "\(ca).pem", "-CAkey", "\(ca).key", "-CAcreateserial", "-out", "\(leaf).pem",
                  "-days", "365", "-extfile", "server.ext"])
        }
        for name in ["ca", "impostor-ca", "server", "impostor"] {
            make(["x509", "-in", "\(name).pem", "-outform", "DER", "-out", "\(name).der"])
            certificates[name] = try! Data(contentsOf: scratch.file("\(name).der"))
        }
    }

    func testAcceptsThePinnedCAsServer_andThePinnedLeaf() throws {
        let app = Seed002Adapter()
        let certs = Self.certificates
        XCTAssertTrue(try app.evaluateServerTrust(chainDER: [certs["server"]!], host: "localhost", pinnedCertificateDER: certs["ca"]!))
        XCTAssertTrue(try app.evaluateServerTrust(chainDER: [certs["server"]!, certs["ca"]!], host: "127.0.0.1", pinnedCertificateDER: certs["ca"]!))
        XCTAssertTrue(try app.evaluateServerTrust(chainDER: [certs["server"]!], host: "localhost", pinnedCertificateDER: certs["server"]!))
    }

    func testRefusesImpostorWrongHostExpired_andAnOverlongValidity() throws {
        let app = Seed002Adapter()
        let certs = Self.certificates
        XCTAssertFalse(try app.evaluateServerTrust(chainDER: [certs["impostor"]!], host: "localhost", pinnedCertificateDER: certs["ca"]!))
        XCTAssertFalse(try app.evaluateServerTrust(chainDER: [certs["impostor"]!, certs["impostor-ca"]!], host: "localhost", pinnedCertificateDER: certs["ca"]!))
        XCTAssertFalse(try app.evaluateServerTrust(chainDER: [certs["server"]!], host: "other.example", pinnedCertificateDER: certs["ca"]!))
        let expired = try vectorCertificateDER("expired")
        XCTAssertFalse(try app.evaluateServerTrust(chainDER: [expired], host: "localhost", pinnedCertificateDER: expired))
        // Vectors/tls/pinned.crt.pem is valid for 30 years: iOS refuses it even when pinned (825-day rule).
        let pinned = try vectorCertificateDER("pinned")
        XCTAssertFalse(try app.evaluateServerTrust(chainDER: [pinned], host: "localhost", pinnedCertificateDER: pinned))
        // A pin that is not a DER certificate (a PEM file renamed .der) refuses rather than crashing.
        let pem = try Data(contentsOf: repositoryRoot.appendingPathComponent("Vectors/tls/pinned.crt.pem"))
        XCTAssertFalse(try app.evaluateServerTrust(chainDER: [certs["server"]!], host: "localhost", pinnedCertificateDER: pem))
    }
}

final class SeedAppsRegistryTests: XCTestCase {
    func testEverySeedApp_hasAnAdapter_withItsCapabilities() {
        let expected: [String: [String]] = [
            "seed-000": ["RSASocketClient", "RSASocketSession", "DescribedProtocolClient"],
            "seed-001": ["AESEnvelopeClient"],
            "seed-002": ["CertificatePinning"],
            "seed-003": ["RSAOwnKeyEncryption", "SymmetricKeyStorage", "AEADSealing"],
            "seed-004": ["FileSealing"],
        ]
        for identifier in SeedApps.identifiers {
            let app = SeedApps.make(identifier)
            XCTAssertEqual(app?.identifier, identifier)
            XCTAssertEqual(app?.capabilityNames, expected[identifier], identifier)
        }
        XCTAssertNil(SeedApps.make("seed-999"))
    }
}

final class AppConsoleTests: XCTestCase {
    func testKeepsLinesInOrder_andOnlyTheLastCapacity() {
        let start = AppConsole.mark
        AppConsole.write("one\ntwo\n")
        AppConsole.write("three")
        XCTAssertEqual(AppConsole.lines(since: start), ["one", "two", "three"])
        let flood = AppConsole.mark
        for index in 0..<(AppConsole.capacity + 5) { AppConsole.write("line \(index)\n") }
        let kept = AppConsole.lines(since: flood)
        XCTAssertEqual(kept.count, AppConsole.capacity)
        XCTAssertEqual(kept.last, "line \(AppConsole.capacity + 4)")
        XCTAssertEqual(kept.first, "line 5")
    }
}
