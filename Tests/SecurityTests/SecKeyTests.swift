import Foundation
import XCTest
import Security
import TestSupport

/// The code an iOS app writes, against keys from this module, checked against the openssl CLI.
final class SecKeyTests: XCTestCase {
    /// One 2048-bit pair for the tests that do not need a fresh one (generation takes ~0.1 s).
    static let shared: (privateKey: SecKey, publicKey: SecKey) = {
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048]
        var error: Unmanaged<CFError>?
        let privateKey = SecKeyCreateRandomKey(attributes as CFDictionary, &error)!
        return (privateKey, SecKeyCopyPublicKey(privateKey)!)
    }()

    override func setUp() { InMemoryKeychain.shared.removeAll() }

    func testSeed003Generation_storesBothKeysUnderTheTag_andOAEPSHA256RoundTrips() throws {
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
            kSecAttrKeySizeInBits as String: 2048,
            kSecAttrIsPermanent as String: true,
            kSecAttrApplicationTag as String: "com.myapp.keys.localStore",
        ]
        var error: Unmanaged<CFError>?
        let privateKey = try XCTUnwrap(SecKeyCreateRandomKey(attributes as CFDictionary, &error))
        XCTAssertNil(error)
        let publicKey = try XCTUnwrap(SecKeyCopyPublicKey(privateKey))
        XCTAssertEqual(SecKeyGetBlockSize(publicKey), 256)
        let plainText = "this is our golden secret. Encrypt it!".data(using: .utf8)!
        let cipher = try XCTUnwrap(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionOAEPSHA256, plainText as CFData, &error) as Data?)
        XCTAssertEqual(cipher.count, 256)
        XCTAssertEqual(SecKeyCreateDecryptedData(privateKey, .rsaEncryptionOAEPSHA256, cipher as CFData, &error) as Data?, plainText)

        let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: "com.myapp.keys.localStore",
                                    kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true]
        var result: CFTypeRef?
        XCTAssertEqual(SecItemCopyMatching(query as CFDictionary, &result), errSecSuccess)
        let items = try XCTUnwrap((result as? NSArray) as? [[String: Any]])
        // A key item's class is a number in securityd's schema (SecItemSchema.c `"kcls", Number`).
        XCTAssertEqual(Set(items.compactMap { ($0[kSecAttrKeyClass as String] as? NSNumber)?.intValue }), [0, 1])
        XCTAssertEqual(items.first?[kSecAttrApplicationTag as String] as? Data, Data("com.myapp.keys.localStore".utf8))
        XCTAssertEqual(items.first?[kSecAttrKeySizeInBits as String] as? Int, 2048)
    }

    /// A scratch folder holding `privateKey` as key.pem and its public half as pub.pem, for openssl pkeyutl.
    static func openSSLKeyFiles(_ privateKey: SecKey) throws -> Scratch {
        let scratch = try Scratch()
        let privateDER = try XCTUnwrap(SecKeyCopyExternalRepresentation(privateKey, nil) as Data?)
        try scratch.write("key.der", privateDER)
        try scratch.openssl(["rsa", "-inform", "DER", "-in", "key.der", "-out", "key.pem"])
        try scratch.openssl(["rsa", "-in", "key.pem", "-pubout", "-out", "pub.pem"])
        return scratch
    }

    func testEveryAlgorithm_roundTrips_andOpenSSLDecryptsIt_andTheReverse() throws {
        let (privateKey, publicKey) = Self.shared
        let scratch = try Self.openSSLKeyFiles(privateKey)
        let cases: [(SecKeyAlgorithm, [String])] = [
            (.rsaEncryptionPKCS1, ["-pkeyopt", "rsa_padding_mode:pkcs1"]),
            (.rsaEncryptionOAEPSHA1, ["-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha1", "-pkeyopt", "rsa_mgf1_md:sha1"]),
            (.rsaEncryptionOAEPSHA224, ["-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha224", "-pkeyopt", "rsa_mgf1_md:sha224"]),
            (.rsaEncryptionOAEPSHA256, ["-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha256", "-pkeyopt", "rsa_mgf1_md:sha256"]),
            (.rsaEncryptionOAEPSHA384, ["-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha384", "-pkeyopt", "rsa_mgf1_md:sha384"]),
            (.rsaEncryptionOAEPSHA512, ["-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha512", "-pkeyopt", "rsa_mgf1_md:sha512"]),
        ]
        for (algorithm, options) in cases {
            let message = Data("message for \(algorithm.rawValue)".utf8)
            XCTAssertTrue(SecKeyIsAlgorithmSupported(publicKey, .encrypt, algorithm))
            XCTAssertTrue(SecKeyIsAlgorithmSupported(privateKey, .decrypt, algorithm))
            var error: Unmanaged<CFError>?
            let cipher = try XCTUnwrap(SecKeyCreateEncryptedData(publicKey, algorithm, message as CFData, &error) as Data?, "\(algorithm.rawValue)")
            try scratch.write("cipher.bin", cipher)
            let opened = try scratch.openssl(["pkeyutl", "-decrypt", "-inkey", "key.pem", "-in", "cipher.bin"] + options)
            XCTAssertEqual(opened, message, "\(algorithm.rawValue)")
            try scratch.write("plain.bin", message)
            let fromOpenSSL = try scratch.openssl(["pkeyutl", "-encrypt", "-pubin", "-inkey", "pub.pem", "-in", "plain.bin"] + options)
            XCTAssertEqual(SecKeyCreateDecryptedData(privateKey, algorithm, fromOpenSSL as CFData, &error) as Data?, message, "\(algorithm.rawValue)")
        }
    }

    /// `.rsaEncryptionRaw` is textbook RSA: what `openssl pkeyutl -pkeyopt rsa_padding_mode:none` does
    /// with the message left-padded with zeros to the block (Apple reads the input as a number), both
    /// ways; the decryption keeps the block's leading zeros, and the older SecPadding API's `.none` is it too.
    func testRawEncryption_isOpenSSLsNoPadding_bothWays_leadingZerosKept() throws {
        let (privateKey, publicKey) = Self.shared
        let scratch = try Self.openSSLKeyFiles(privateKey)
        XCTAssertTrue(SecKeyIsAlgorithmSupported(publicKey, .encrypt, .rsaEncryptionRaw))
        XCTAssertTrue(SecKeyIsAlgorithmSupported(privateKey, .decrypt, .rsaEncryptionRaw))
        XCTAssertFalse(SecKeyIsAlgorithmSupported(privateKey, .encrypt, .rsaEncryptionRaw))
        let message = Data("hello pi".utf8)
        let block = Data(count: 256 - message.count) + message
        var error: Unmanaged<CFError>?
        let cipher = try XCTUnwrap(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionRaw, message as CFData, &error) as Data?)
        XCTAssertEqual(cipher.count, 256)
        // Deterministic: the same message, the same ciphertext.
        XCTAssertEqual(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionRaw, message as CFData, &error) as Data?, cipher)
        try scratch.write("cipher.bin", cipher)
        XCTAssertEqual(try scratch.openssl(["pkeyutl", "-decrypt", "-inkey", "key.pem", "-in", "cipher.bin", "-pkeyopt", "rsa_padding_mode:none"]), block)
        try scratch.write("block.bin", block)
        let fromOpenSSL = try scratch.openssl(["pkeyutl", "-encrypt", "-pubin", "-inkey", "pub.pem", "-in", "block.bin", "-pkeyopt", "rsa_padding_mode:none"])
        XCTAssertEqual(fromOpenSSL, cipher)
        XCTAssertEqual(SecKeyCreateDecryptedData(privateKey, .rsaEncryptionRaw, fromOpenSSL as CFData, &error) as Data?, block)
        var legacy = [UInt8](repeating: 0, count: 256), length = 256
        XCTAssertEqual(SecKeyEncrypt(publicKey, .none, [UInt8](message), message.count, &legacy, &length), errSecSuccess)
        XCTAssertEqual(Data(legacy.prefix(length)), cipher)
    }

    func testErrors_carryAppleStatusesInTheCFError() throws {
        let (privateKey, publicKey) = Self.shared
        func status(_ body: (UnsafeMutablePointer<Unmanaged<CFError>?>) -> AnyObject?) -> Int? {
            var error: Unmanaged<CFError>?
            XCTAssertNil(body(&error))
            let cfError = error?.takeRetainedValue()
            XCTAssertEqual(cfError?.domain, "NSOSStatusErrorDomain")
            return cfError?.code
        }
        // 256-byte modulus: OAEP-SHA256 takes at most 256 - 66 = 190 bytes.
        XCTAssertNotNil(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionOAEPSHA256, Data(count: 190) as CFData, nil))
        XCTAssertEqual(status { SecKeyCreateEncryptedData(publicKey, .rsaEncryptionOAEPSHA256, Data(count: 191) as CFData, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCreateEncryptedData(privateKey, .rsaEncryptionOAEPSHA256, Data(count: 1) as CFData, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCreateDecryptedData(publicKey, .rsaEncryptionOAEPSHA256, Data(count: 256) as CFData, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCreateEncryptedData(publicKey, .rsaEncryptionOAEPSHA256AESGCM, Data(count: 1) as CFData, $0) }, Int(errSecUnimplemented))
        // .rsaEncryptionRaw (SecRSAKey.c): more than the block, or not below the modulus, is errSecParam.
        XCTAssertEqual(status { SecKeyCreateEncryptedData(publicKey, .rsaEncryptionRaw, Data(count: 257) as CFData, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCreateEncryptedData(publicKey, .rsaEncryptionRaw, Data(repeating: 0xff, count: 256) as CFData, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCreateDecryptedData(privateKey, .rsaEncryptionRaw, Data(count: 257) as CFData, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCreateDecryptedData(privateKey, .rsaEncryptionRaw, Data(repeating: 0xff, count: 256) as CFData, $0) }, Int(errSecParam))
        var error: Unmanaged<CFError>?
        var cipher = try XCTUnwrap(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionOAEPSHA256, Data("x".utf8) as CFData, &error) as Data?)
        cipher[100] ^= 1
        XCTAssertEqual(status { SecKeyCreateDecryptedData(privateKey, .rsaEncryptionOAEPSHA256, cipher as CFData, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCreateDecryptedData(privateKey, .rsaEncryptionOAEPSHA256, Data(count: 257) as CFData, $0) }, Int(errSecParam))
        // The wrong padding is a decryption failure too.
        let pkcs1 = try XCTUnwrap(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionPKCS1, Data("x".utf8) as CFData, &error) as Data?)
        XCTAssertEqual(status { SecKeyCreateDecryptedData(privateKey, .rsaEncryptionOAEPSHA256, pkcs1 as CFData, $0) }, Int(errSecParam))
        // Generation parameters.
        XCTAssertEqual(status { SecKeyCreateRandomKey([kSecAttrKeySizeInBits as String: 2048] as CFDictionary, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 511] as CFDictionary, $0) },
                       Int(errSecKeySizeNotAllowed), "SecRSAKey.c: below 512 bits")
        XCTAssertEqual(status { SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 224] as CFDictionary, $0) }, Int(errSecUnimplemented))
        XCTAssertEqual(status { SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048,
                                                       kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave] as CFDictionary, $0) }, Int(errSecParam),
                       "the (software) Secure Enclave makes P-256 keys only, as a device's")
    }

    /// iOS reads an RSA ciphertext as a big-endian number, so one with its leading zero byte
    /// dropped still decrypts.
    func testShortCiphertext_isReadAsANumber() throws {
        let (privateKey, publicKey) = Self.shared
        let message = Data("leading zero".utf8)
        var error: Unmanaged<CFError>?
        for _ in 0..<2000 {
            let cipher = try XCTUnwrap(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionPKCS1, message as CFData, &error) as Data?)
            guard cipher.first == 0 else { continue }
            XCTAssertEqual(SecKeyCreateDecryptedData(privateKey, .rsaEncryptionPKCS1, cipher.dropFirst() as CFData, &error) as Data?, message)
            return
        }
        XCTFail("no ciphertext with a leading zero byte in 2000 tries (expected about 8)")
    }

    func testExternalRepresentation_isBarePKCS1_bothWaysWithOpenSSL() throws {
        let (privateKey, publicKey) = Self.shared
        let scratch = try Scratch()
        let publicDER = try XCTUnwrap(SecKeyCopyExternalRepresentation(publicKey, nil) as Data?)
        let privateDER = try XCTUnwrap(SecKeyCopyExternalRepresentation(privateKey, nil) as Data?)
        try scratch.write("pub.der", publicDER)
        try scratch.write("priv.der", privateDER)
        let publicModulus = try scratch.openssl(["rsa", "-RSAPublicKey_in", "-inform", "DER", "-in", "pub.der", "-noout", "-modulus"])
        let privateModulus = try scratch.openssl(["rsa", "-inform", "DER", "-in", "priv.der", "-noout", "-modulus"])
        XCTAssertEqual(publicModulus, privateModulus)
        XCTAssertTrue(String(decoding: try scratch.openssl(["rsa", "-inform", "DER", "-in", "priv.der", "-check", "-noout"]), as: UTF8.self).contains("RSA key ok"))
        // The top-level structure: RSAPublicKey is SEQUENCE { INTEGER n, INTEGER e }.
        let parsed = String(decoding: try scratch.openssl(["asn1parse", "-inform", "DER", "-in", "pub.der"]), as: UTF8.self)
        XCTAssertEqual(parsed.components(separatedBy: "prim: INTEGER").count - 1, 2)

        // A key made by the openssl CLI, imported in iOS's formats.
        try scratch.openssl(["genrsa", "-out", "cli.pem", "2048"])
        try scratch.openssl(["rsa", "-in", "cli.pem", "-traditional", "-outform", "DER", "-out", "cli-pkcs1.der"])
        try scratch.openssl(["rsa", "-in", "cli.pem", "-RSAPublicKey_out", "-outform", "DER", "-out", "cli-pub-pkcs1.der"])
        try scratch.openssl(["rsa", "-in", "cli.pem", "-pubout", "-outform", "DER", "-out", "cli-spki.der"])
        try scratch.openssl(["pkcs8", "-topk8", "-nocrypt", "-in", "cli.pem", "-outform", "DER", "-out", "cli-pkcs8.der"])
        var error: Unmanaged<CFError>?
        let importedPrivate = try XCTUnwrap(SecKeyCreateWithData(try scratch.read("cli-pkcs1.der") as CFData, [
            kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate] as CFDictionary, &error))
        let importedPublic = try XCTUnwrap(SecKeyCreateWithData(try scratch.read("cli-pub-pkcs1.der") as CFData, [
            kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPublic] as CFDictionary, &error))
        XCTAssertEqual(SecKeyCopyExternalRepresentation(importedPublic, nil) as Data?, try scratch.read("cli-pub-pkcs1.der"))
        try scratch.write("m.bin", Data("from the CLI".utf8))
        let cipher = try scratch.openssl(["pkeyutl", "-encrypt", "-inkey", "cli.pem", "-in", "m.bin", "-pkeyopt", "rsa_padding_mode:oaep",
                                          "-pkeyopt", "rsa_oaep_md:sha256", "-pkeyopt", "rsa_mgf1_md:sha256"])
        XCTAssertEqual(SecKeyCreateDecryptedData(importedPrivate, .rsaEncryptionOAEPSHA256, cipher as CFData, &error) as Data?, Data("from the CLI".utf8))
        // SPKI DER as a public key is iOS's too (corecrypto's ccrsa_import_pub reads X.509 first): the same key.
        let fromSPKI = try XCTUnwrap(SecKeyCreateWithData(try scratch.read("cli-spki.der") as CFData, [kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
                                                                                                   kSecAttrKeyClass as String: kSecAttrKeyClassPublic] as CFDictionary, nil))
        XCTAssertEqual(SecKeyCopyExternalRepresentation(fromSPKI, nil) as Data?, try scratch.read("cli-pub-pkcs1.der"))
        // Not iOS's formats: PKCS#8 as a private key, PEM, and a missing class.
        for (file, keyClass) in [("cli-pkcs8.der", kSecAttrKeyClassPrivate), ("cli.pem", kSecAttrKeyClassPrivate)] {
            var refused: Unmanaged<CFError>?
            XCTAssertNil(SecKeyCreateWithData(try scratch.read(file) as CFData, [kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
                                                                               kSecAttrKeyClass as String: keyClass] as CFDictionary, &refused), file)
            XCTAssertEqual(refused?.takeRetainedValue().code, Int(errSecParam), file)
        }
        var noClass: Unmanaged<CFError>?
        XCTAssertNil(SecKeyCreateWithData(publicDER as CFData, [kSecAttrKeyType as String: kSecAttrKeyTypeRSA] as CFDictionary, &noClass))
        XCTAssertEqual(noClass?.takeRetainedValue().code, Int(errSecParam))
    }

    /// SecKeyGeneratePair as seed 000 calls it: 1024 bits, per-key permanent attributes with tags.
    func testSeed000Generation_andTheOlderEncryptDecrypt() throws {
        let privateKeyAttr: [NSString: AnyObject] = [kSecAttrIsPermanent: true as AnyObject, kSecAttrApplicationTag: "com.mycompany.tagPrivate" as AnyObject]
        let publicKeyAttr: [NSString: AnyObject] = [kSecAttrIsPermanent: true as AnyObject, kSecAttrApplicationTag: "com.mycompany.tagPublic" as AnyObject]
        let parameters: [String: AnyObject] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
            kSecAttrKeySizeInBits as String: 1024 as AnyObject,
            kSecPrivateKeyAttrs as String: privateKeyAttr as AnyObject,
            kSecPublicKeyAttrs as String: publicKeyAttr as AnyObject,
        ]
        var publicKey, privateKey: SecKey?
        XCTAssertEqual(SecKeyGeneratePair(parameters as CFDictionary, &publicKey, &privateKey), noErr)
        XCTAssertEqual(SecKeyGetBlockSize(try XCTUnwrap(publicKey)), 128)

        // Found again by tag, as references; the public one as data too (PKCS#1 DER).
        for (tag, expected) in [("com.mycompany.tagPrivate", privateKey), ("com.mycompany.tagPublic", publicKey)] {
            let query: [String: AnyObject] = [kSecClass as String: kSecClassKey, kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
                                              kSecAttrApplicationTag as String: tag as AnyObject, kSecReturnRef as String: true as AnyObject]
            var result: AnyObject?
            XCTAssertEqual(SecItemCopyMatching(query as CFDictionary, &result), errSecSuccess)
            XCTAssertTrue(result as? SecKey === expected, tag)
        }
        let parametersForData = [kSecClass as String: kSecClassKey, kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
                                 kSecAttrKeyClass as String: kSecAttrKeyClassPublic, kSecReturnData as String: true] as [String: Any]
        var unsafeData: AnyObject?
        XCTAssertEqual(SecItemCopyMatching(parametersForData as CFDictionary, &unsafeData), noErr)
        XCTAssertEqual(unsafeData as? Data, SecKeyCopyExternalRepresentation(publicKey!, nil) as Data?)

        // SecKeyEncrypt/SecKeyDecrypt with PKCS#1: buffer sizes in and out.
        let message = [UInt8]("Secret message from RPi server".utf8)
        var cipher = [UInt8](repeating: 0, count: 128)
        var cipherLength = cipher.count
        XCTAssertEqual(SecKeyEncrypt(publicKey!, SecPadding.PKCS1, message, message.count, &cipher, &cipherLength), errSecSuccess)
        XCTAssertEqual(cipherLength, 128)
        var plain = [UInt8](repeating: 0, count: 128)
        var plainLength = plain.count
        XCTAssertEqual(SecKeyDecrypt(privateKey!, SecPadding.PKCS1, &cipher, cipherLength, &plain, &plainLength), errSecSuccess)
        XCTAssertEqual(Array(plain.prefix(plainLength)), message)
        // A buffer too small for the result, a corrupted ciphertext, a padding iOS never had: errSecParam.
        var tiny = [UInt8](repeating: 0, count: 4)
        var tinyLength = tiny.count
        XCTAssertEqual(SecKeyDecrypt(privateKey!, .PKCS1, &cipher, cipherLength, &tiny, &tinyLength), errSecParam)
        var smallCipher = [UInt8](repeating: 0, count: 100)
        var smallCipherLength = smallCipher.count
        XCTAssertEqual(SecKeyEncrypt(publicKey!, .PKCS1, message, message.count, &smallCipher, &smallCipherLength), errSecParam)
        cipher[5] ^= 0x40
        plainLength = plain.count
        // A corrupted PKCS#1 ciphertext: errSecParam before iOS 17.4, a synthetic message from 17.4
        // (implicit rejection, AppleFidelityTests), so seed 000's error branch is never taken on a current device.
        TargetIOS.with(TargetIOS(major: 17, minor: 3)) {
            XCTAssertEqual(SecKeyDecrypt(privateKey!, .PKCS1, &cipher, cipherLength, &plain, &plainLength), errSecParam)
        }
        plainLength = plain.count
        XCTAssertEqual(SecKeyDecrypt(privateKey!, .PKCS1, &cipher, cipherLength, &plain, &plainLength), errSecSuccess)
        XCTAssertNotEqual(Array(plain.prefix(plainLength)), message)
        XCTAssertEqual(SecKeyDecrypt(privateKey!, .PKCS1SHA256, &cipher, cipherLength, &plain, &plainLength), errSecParam)
        // OAEP in the older API is OAEP with SHA-1.
        cipherLength = cipher.count
        XCTAssertEqual(SecKeyEncrypt(publicKey!, .OAEP, message, message.count, &cipher, &cipherLength), errSecSuccess)
        var error: Unmanaged<CFError>?
        XCTAssertEqual(SecKeyCreateDecryptedData(privateKey!, .rsaEncryptionOAEPSHA1, Data(cipher) as CFData, &error) as Data?, Data(message))
    }

    func testAttributesAndTypeIDs() throws {
        let (privateKey, publicKey) = Self.shared
        let attributes = try XCTUnwrap(SecKeyCopyAttributes(privateKey) as? [String: Any])
        XCTAssertEqual(attributes[kSecAttrKeyClass as String] as? String, kSecAttrKeyClassPrivate as String)
        XCTAssertEqual(attributes[kSecAttrKeySizeInBits as String] as? Int, 2048)
        XCTAssertEqual((attributes[kSecAttrApplicationLabel as String] as? Data)?.count, 20)
        XCTAssertEqual(CFGetTypeID(publicKey), SecKeyGetTypeID())
        XCTAssertNotEqual(CFGetTypeID(publicKey), CFArrayGetTypeID())
        XCTAssertFalse(SecKeyIsAlgorithmSupported(publicKey, .decrypt, .rsaEncryptionOAEPSHA256))
    }

    func testRandomBytes() {
        var first = [UInt8](repeating: 0, count: 32), second = [UInt8](repeating: 0, count: 32)
        XCTAssertEqual(SecRandomCopyBytes(kSecRandomDefault, first.count, &first), errSecSuccess)
        XCTAssertEqual(SecRandomCopyBytes(kSecRandomDefault, second.count, &second), errSecSuccess)
        XCTAssertNotEqual(first, second)
        XCTAssertNotEqual(first, [UInt8](repeating: 0, count: 32))
        XCTAssertEqual(SecRandomCopyBytes(kSecRandomDefault, 0, &first), errSecSuccess)
    }
}
