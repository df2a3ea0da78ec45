import Foundation
import XCTest
import AppUnderTest
import Seed003App
import Seed004App
import TestSupport

/// Seed 003's own code through its adapter, against pyca/cryptography and the openssl CLI.
final class Seed003AppTests: XCTestCase {
    let golden = Data("this is our golden secret. Encrypt it!".utf8)

    func testKeychainStoreAndRead_asTheSeedDoesIt() throws {
        let app = Seed003Adapter()
        let first = Data((0..<32).map { UInt8($0) }), second = Data((0..<32).map { UInt8(255 - $0) })
        try app.storeKey(first, tag: "com.myapp.keys.localStore")
        XCTAssertEqual(try app.readKey(tag: "com.myapp.keys.localStore"), first)
        // The seed deletes before adding, so storing again replaces the key.
        try app.storeKey(second, tag: "com.myapp.keys.localStore")
        XCTAssertEqual(try app.readKey(tag: "com.myapp.keys.localStore"), second)
        XCTAssertThrowsError(try app.readKey(tag: "com.myapp.keys.other")) { XCTAssertEqual("\($0)", "COULDNOTREAD") }
        // Another adapter is another app: its own keychain.
        XCTAssertThrowsError(try Seed003Adapter().readKey(tag: "com.myapp.keys.localStore"))
    }

    func testAESGCM_sealedByTheApp_openedByPyca_andTheReverse() throws {
        let app = Seed003Adapter()
        let key = Data((0..<32).map { UInt8($0 * 3 % 256) })
        let combined = try app.seal(golden, key: key)
        XCTAssertEqual(combined.count, 12 + golden.count + 16)
        let opened = try python("""
            import sys
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            key, blob = (bytes.fromhex(x) for x in sys.stdin.read().split())
            print(AESGCM(key).decrypt(blob[:12], blob[12:], None).decode())
            """, input: "\(key.hex) \(combined.hex)")
        XCTAssertEqual(opened, String(decoding: golden, as: UTF8.self))
        let fromPython = try python("""
            import sys, os
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            key = bytes.fromhex(sys.stdin.read().strip())
            nonce = os.urandom(12)
            print((nonce + AESGCM(key).encrypt(nonce, b"sealed on the Pi", None)).hex())
            """, input: key.hex)
        XCTAssertEqual(try app.open(Data(hex: fromPython), key: key), Data("sealed on the Pi".utf8))
        var tampered = combined
        tampered[20] ^= 1
        XCTAssertThrowsError(try app.open(tampered, key: key))
        XCTAssertThrowsError(try app.open(combined, key: Data(count: 32)))
        XCTAssertThrowsError(try app.seal(Data("other".utf8), key: key)) { XCTAssertTrue($0 is AppFailure) }
    }

    /// Seed 003's SecKeyCreateEncryptedData(.rsaEncryptionOAEPSHA256) ciphertext, decrypted by
    /// `openssl pkeyutl` with the private key the app generated (exported as iOS exports it).
    /// With SEED003_OPENSSL_DIR set, the key and ciphertext are left there to run openssl by hand.
    func testRSAOAEPSHA256_ciphertext_decryptsWithOpenSSLPkeyutl() throws {
        let app = Seed003Adapter()
        let (ciphertext, privateKeyDER) = try app.encryptWithNewKey(golden)
        XCTAssertEqual(ciphertext.count, 256)
        let scratch = try Scratch()
        let directory = ProcessInfo.processInfo.environment["SEED003_OPENSSL_DIR"].map { URL(fileURLWithPath: $0) } ?? scratch.url
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try privateKeyDER.write(to: directory.appendingPathComponent("seed003-key.der"))
        try ciphertext.write(to: directory.appendingPathComponent("seed003-cipher.bin"))
        try openssl(["rsa", "-inform", "DER", "-in", "seed003-key.der", "-out", "seed003-key.pem"], in: directory)
        let arguments = ["pkeyutl", "-decrypt", "-inkey", "seed003-key.pem", "-in", "seed003-cipher.bin",
                         "-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha256", "-pkeyopt", "rsa_mgf1_md:sha256"]
        let plaintext = try openssl(arguments, in: directory)
        print("$ openssl \(arguments.joined(separator: " "))\n\(String(decoding: plaintext, as: UTF8.self))")
        XCTAssertEqual(plaintext, golden)
        // SHA-1 OAEP (OpenSSL's default) must not open it: the padding really is OAEP-SHA256.
        XCTAssertThrowsError(try openssl(["pkeyutl", "-decrypt", "-inkey", "seed003-key.pem", "-in", "seed003-cipher.bin",
                                          "-pkeyopt", "rsa_padding_mode:oaep"], in: directory))
        // pyca opens it too.
        let pyca = try python("""
            import sys
            from cryptography.hazmat.primitives import hashes, serialization
            from cryptography.hazmat.primitives.asymmetric import padding
            key_der, cipher = (bytes.fromhex(x) for x in sys.stdin.read().split())
            key = serialization.load_der_private_key(key_der, None)
            print(key.decrypt(cipher, padding.OAEP(padding.MGF1(hashes.SHA256()), hashes.SHA256(), None)).decode())
            """, input: "\(privateKeyDER.hex) \(ciphertext.hex)")
        XCTAssertEqual(pyca, String(decoding: golden, as: UTF8.self))
    }

    func testCertificateListing() throws {
        let app = Seed003Adapter()
        XCTAssertEqual(app.certificateInfo(), "--- Certificates in Keychain ---\nNone\n-------------------------------")
        try app.addCertificate(vectorCertificateDER("pinned"))
        XCTAssertEqual(app.certificateInfo(), "--- Certificates in Keychain ---\nlocalhost\n-------------------------------")
    }
}

/// Seed 004's CryptoManager sealing real files, opened by pyca, and the reverse.
final class Seed004AppTests: XCTestCase {
    func testSealsARealFile_pycaOpensIt_andTheAppOpensWhatPycaSealed() throws {
        let app = Seed004Adapter()
        let key = try app.currentKey()
        XCTAssertEqual(key.count, 32)
        let scratch = try Scratch()
        let plaintext = Data((0..<5000).map { (i: Int) -> UInt8 in UInt8((i * 7 + 1) % 256) })
        try plaintext.write(to: scratch.file("Sample.text"))
        try app.sealFile(at: scratch.file("Sample.text"), to: scratch.file("Sample.sealed"))
        let sealed = try Data(contentsOf: scratch.file("Sample.sealed"))
        XCTAssertEqual(sealed.count, 12 + plaintext.count + 16)
        let opened = try python("""
            import sys
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            key, path = sys.stdin.read().split()
            blob = open(path, "rb").read()
            print(AESGCM(bytes.fromhex(key)).decrypt(blob[:12], blob[12:], None).hex())
            """, input: "\(key.hex) \(scratch.file("Sample.sealed").path)")
        XCTAssertEqual(opened, plaintext.hex)

        _ = try python("""
            import sys, os
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            key, path = sys.stdin.read().split()
            nonce = os.urandom(12)
            open(path, "wb").write(nonce + AESGCM(bytes.fromhex(key)).encrypt(nonce, b"a file sealed by the Pi", None))
            """, input: "\(key.hex) \(scratch.file("FromPi.sealed").path)")
        try app.openFile(at: scratch.file("FromPi.sealed"), to: scratch.file("FromPi.text"))
        XCTAssertEqual(try Data(contentsOf: scratch.file("FromPi.text")), Data("a file sealed by the Pi".utf8))

        var tampered = sealed
        tampered[tampered.count - 1] ^= 1
        try tampered.write(to: scratch.file("Tampered.sealed"))
        XCTAssertThrowsError(try app.openFile(at: scratch.file("Tampered.sealed"), to: scratch.file("Tampered.text")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.file("Tampered.text").path))
        // The key persists where the app keeps it.
        XCTAssertEqual(try Seed004Adapter().currentKey(), key)
    }

    /// A text file sealed by CryptoManager, opened by PythonRef's own `aead` module (the Pi's code),
    /// with the key as the app keeps it (base64 in UserDefaults). With SEED004_SEALED_DIR set, the
    /// plaintext, the sealed file and key.b64 are left there to run PythonRef by hand:
    ///   cd PythonRef && /usr/bin/python3 -c "from pythonref import aead; …"  (README, docs/APPLE-MODULES.md)
    func testSealedByCryptoManager_openedByPythonRef() throws {
        let app = Seed004Adapter()
        let scratch = try Scratch()
        let directory = ProcessInfo.processInfo.environment["SEED004_SEALED_DIR"].map { URL(fileURLWithPath: $0) } ?? scratch.url
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let text = Data("A file sealed on the phone by seed 004's CryptoManager.\n".utf8)
        try text.write(to: directory.appendingPathComponent("Sample.text"))
        try app.sealFile(at: directory.appendingPathComponent("Sample.text"), to: directory.appendingPathComponent("Sample.sealed"))
        try Data(try app.currentKey().base64EncodedString().utf8).write(to: directory.appendingPathComponent("key.b64"))
        let script = """
            from pythonref import aead
            key = aead.parse_symkey(open("key.b64").read().strip())
            print(aead.open_combined("aes-gcm", key, open("Sample.sealed", "rb").read()).decode(), end="")
            """
        let opened = try runChecked("/usr/bin/python3", ["-c", "import sys; sys.path.insert(0, sys.argv[1]); exec(sys.argv[2])",
                                                  repositoryRoot.appendingPathComponent("PythonRef").path, script], in: directory)
        print("$ cd \(directory.path) && /usr/bin/python3 -c '<PythonRef: aead.open_combined(\"aes-gcm\", key.b64, Sample.sealed)>'\n"
              + String(decoding: opened, as: UTF8.self))
        XCTAssertEqual(opened, text)
    }
}
