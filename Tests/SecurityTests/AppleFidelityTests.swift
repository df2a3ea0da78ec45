import Foundation
import StorageRecords
import XCTest
import Security
import TestSupport

/// Issue 38: where app code leans on the Security module, it answers as iOS does. One test per
/// behaviour, each asserting Apple's answer and naming the line of Apple's open source that gives
/// it (apple-oss-distributions/Security at Security-61901.0.87.0.1; corecrypto as published). The
/// table in docs/APPLE-MODULES.md ("How the modules compare with a device") lists them.
final class AppleFidelityTests: XCTestCase {
    override func setUp() { InMemoryKeychain.shared.removeAll() }

    private func rsaKeyPair(bits: Int = 2048) throws -> (privateKey: SecKey, publicKey: SecKey) {
        var error: Unmanaged<CFError>?
        let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: bits]
        let privateKey = try XCTUnwrap(SecKeyCreateRandomKey(parameters as CFDictionary, &error), "\(String(describing: error))")
        return (privateKey, try XCTUnwrap(SecKeyCopyPublicKey(privateKey)))
    }

    private func ecKeyPair() throws -> (privateKey: SecKey, publicKey: SecKey) {
        var error: Unmanaged<CFError>?
        let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]
        let privateKey = try XCTUnwrap(SecKeyCreateRandomKey(parameters as CFDictionary, &error), "\(String(describing: error))")
        return (privateKey, try XCTUnwrap(SecKeyCopyPublicKey(privateKey)))
    }

    private func code(_ error: Unmanaged<CFError>?) -> Int? { error.map { CFErrorGetCode($0.takeRetainedValue()) } }

    private func addPassword(account: String = "alice", service: String = "svc", password: String = "secret") -> OSStatus {
        SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
                    kSecAttrService as String: service, kSecValueData as String: Data(password.utf8)] as CFDictionary, nil)
    }

    // MARK: 1. SecKeyCreateWithData takes an RSA SubjectPublicKeyInfo

    /// corecrypto ccrsa/src/ccrsa_import_pub.c, `ccrsa_import_pub`: `ccder_decode_rsa_pub_x509` first,
    /// `ccder_decode_rsa_pub` second; Security OSX/sec/Security/SecRSAKey.c:160-172 (`SecRSAPublicKeyInit`).
    func testCreateWithData_takesAnRSASubjectPublicKeyInfo_asCorecryptoImportsIt() throws {
        let (_, publicKey) = try rsaKeyPair()
        let pkcs1 = try XCTUnwrap(SecKeyCopyExternalRepresentation(publicKey, nil) as Data?)
        let scratch = try Scratch()
        try scratch.write("key.der", pkcs1)
        try scratch.openssl(["rsa", "-RSAPublicKey_in", "-inform", "DER", "-in", "key.der", "-pubout", "-outform", "DER", "-out", "spki.der"])
        let spki = try scratch.read("spki.der")
        XCTAssertEqual(spki.prefix(4), Data([0x30, 0x82, 0x01, 0x22]), "openssl wrote a 2048-bit SPKI")
        var error: Unmanaged<CFError>?
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPublic]
        let imported = try XCTUnwrap(SecKeyCreateWithData(spki as CFData, attributes as CFDictionary, &error), "\(String(describing: error))")
        // The key is the same key: its external representation is the PKCS#1 it came from.
        XCTAssertEqual(SecKeyCopyExternalRepresentation(imported, nil) as Data?, pkcs1)
    }

    /// The refusal names the format given and the formats taken (PEM text is not DER: corecrypto's
    /// decoders read DER only).
    func testCreateWithData_refusalNamesTheFormatGivenAndTheFormatsTaken() throws {
        let (privateKey, publicKey) = try rsaKeyPair()
        let pem = "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----\n"
        var error: Unmanaged<CFError>?
        let publicAttributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPublic]
        XCTAssertNil(SecKeyCreateWithData(Data(pem.utf8) as CFData, publicAttributes as CFDictionary, &error))
        let message = try XCTUnwrap(error.map { CFErrorCopyDescription($0.takeRetainedValue()) as String })
        XCTAssertTrue(message.contains("given PEM text"), message)
        XCTAssertTrue(message.contains("PKCS#1 RSAPublicKey or an X.509 SubjectPublicKeyInfo"), message)
        // A private key's bytes offered as a public key: named as what they are.
        let privateDER = try XCTUnwrap(SecKeyCopyExternalRepresentation(privateKey, nil) as Data?)
        error = nil
        XCTAssertNil(SecKeyCreateWithData(privateDER as CFData, publicAttributes as CFDictionary, &error))
        XCTAssertEqual(code(error), Int(errSecParam))
        // And a public key's bytes offered as a private key.
        let publicDER = try XCTUnwrap(SecKeyCopyExternalRepresentation(publicKey, nil) as Data?)
        let privateAttributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate]
        error = nil
        XCTAssertNil(SecKeyCreateWithData(publicDER as CFData, privateAttributes as CFDictionary, &error))
        let privateMessage = try XCTUnwrap(error.map { CFErrorCopyDescription($0.takeRetainedValue()) as String })
        XCTAssertTrue(privateMessage.contains("given a PKCS#1 RSAPublicKey"), privateMessage)
    }

    // MARK: 2. SecItemUpdate and SecItemDelete refuse a read query

    /// keychain/securityd/SecItemServer.c:3192-3200 (`SecServerItemUpdateWithCustomDb`): "return data
    /// not supported by update" — errSecReturnDataUnsupported = errSecParam (base/SecBasePriv.h:78).
    func testUpdate_withAReturnKeyInTheQuery_isErrSecParam_andChangesNothing() throws {
        XCTAssertEqual(addPassword(), errSecSuccess)
        for key in [kSecReturnData, kSecReturnAttributes, kSecReturnRef] {
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice", key as String: true]
            XCTAssertEqual(SecItemUpdate(query as CFDictionary, [kSecValueData as String: Data("new".utf8)] as CFDictionary), errSecParam, "\(key)")
        }
        var result: CFTypeRef?
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: true] as CFDictionary, &result), errSecSuccess)
        XCTAssertEqual(result as? Data, Data("secret".utf8))
        // kSecMatchLimitAll is not checked by update (that function has no match-limit test): it updates.
        XCTAssertEqual(SecItemUpdate([kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll] as CFDictionary,
                                     [kSecValueData as String: Data("new".utf8)] as CFDictionary), errSecSuccess)
    }

    /// SecItemServer.c:3292-3295 (`SecServerItemDeleteWithCustomDb`): "match limit not supported by
    /// delete", "match not supported by delete" (kSecMatchLimitAll is a match pair too,
    /// SecDbQuery.c:470-486 `query_add_match`); both errSecParam (SecBasePriv.h:74, 85). The logout
    /// delete that works in a simulator-less test fails on a device, leaving the password behind.
    func testDelete_withKSecMatchLimit_isErrSecParam_andTheItemStays() throws {
        XCTAssertEqual(addPassword(), errSecSuccess)
        for limit in [kSecMatchLimitOne, kSecMatchLimitAll] {
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice", kSecMatchLimit as String: limit]
            XCTAssertEqual(SecItemDelete(query as CFDictionary), errSecParam, "\(limit)")
        }
        XCTAssertEqual(InMemoryKeychain.shared.count, 1)
        // kSecReturnData is not checked by delete (SecItemServer.c has no such test there): it deletes.
        XCTAssertEqual(SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: true] as CFDictionary), errSecSuccess)
        XCTAssertEqual(InMemoryKeychain.shared.count, 0)
    }

    // MARK: 4. PKCS#1 v1.5 decryption with the wrong key: implicit rejection from iOS 17.4

    /// OSX/sec/Security/SecKeyAdaptors.m:685-699 (`SecKeyRSACopyDecryptedWithPadding`): software keys
    /// decode with corecrypto's `ccrsa_eme_pkcs1v15_decode_safe`, "random dummy responses in case of
    /// decryption failures": no error, the same answer for the same key and ciphertext.
    func testPKCS1Decrypt_wrongKey_onIOS17_4_isADeterministicMessage_notAnError() throws {
        let (_, publicKey) = try rsaKeyPair()
        let (otherPrivate, _) = try rsaKeyPair()
        let ciphertext = try XCTUnwrap(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionPKCS1, Data("attack at dawn".utf8) as CFData, nil))
        try TargetIOS.with(TargetIOS(major: 17, minor: 4)) {
            var error: Unmanaged<CFError>?
            let first = try XCTUnwrap(SecKeyCreateDecryptedData(otherPrivate, .rsaEncryptionPKCS1, ciphertext, &error) as Data?, "\(String(describing: error))")
            let second = try XCTUnwrap(SecKeyCreateDecryptedData(otherPrivate, .rsaEncryptionPKCS1, ciphertext, nil) as Data?)
            XCTAssertEqual(first, second, "deterministic per key and ciphertext")
            XCTAssertNotEqual(first, Data("attack at dawn".utf8))
            XCTAssertLessThanOrEqual(first.count, 256 - 11)
            // Another ciphertext gives another message.
            var other = Data(ciphertext as Data)
            other[other.count - 1] ^= 1
            XCTAssertNotEqual(SecKeyCreateDecryptedData(otherPrivate, .rsaEncryptionPKCS1, other as CFData, nil) as Data?, first)
            // The older call wraps the new one (SecKey.c): success and the same message.
            var buffer = [UInt8](repeating: 0, count: 256)
            var length = buffer.count
            let status = (ciphertext as Data).withUnsafeBytes {
                SecKeyDecrypt(otherPrivate, .PKCS1, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), 256, &buffer, &length)
            }
            XCTAssertEqual(status, errSecSuccess)
            XCTAssertEqual(Data(buffer.prefix(length)), first)
        }
    }

    /// The app is given the synthetic message, as iOS gives it; SecurityEventLog counts it (and, in an
    /// app's own process, writes it to its container's log), so that `remote --app` can fail an app
    /// that took one for the server's message (AppRemoteChecks). A padding that checks is not counted.
    func testPKCS1Decrypt_implicitRejection_isRecordedForTheChecks_andARightPaddingIsNot() throws {
        let (privateKey, publicKey) = try rsaKeyPair()
        let (otherPrivate, _) = try rsaKeyPair()
        let ciphertext = try XCTUnwrap(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionPKCS1, Data("attack at dawn".utf8) as CFData, nil))
        try TargetIOS.with(TargetIOS.defaultVersion) {
            let before = SecurityEventLog.implicitRejectionCount
            XCTAssertEqual(SecKeyCreateDecryptedData(privateKey, .rsaEncryptionPKCS1, ciphertext, nil) as Data?, Data("attack at dawn".utf8))
            XCTAssertEqual(SecurityEventLog.implicitRejectionCount, before)
            _ = try XCTUnwrap(SecKeyCreateDecryptedData(otherPrivate, .rsaEncryptionPKCS1, ciphertext, nil) as Data?)
            XCTAssertEqual(SecurityEventLog.implicitRejectionCount, before + 1)
        }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("security-events-\(UUID().uuidString).log")
        XCTAssertTrue(FileManager.default.createFile(atPath: log.path, contents: Data("earlier\n".utf8)))
        defer { try? FileManager.default.removeItem(at: log) }
        SecurityEventLog.recordImplicitRejection(environment: [SecurityEventLog.environmentVariable: log.path])
        SecurityEventLog.recordImplicitRejection(environment: [SecurityEventLog.environmentVariable: log.path])
        XCTAssertEqual(try String(contentsOf: log, encoding: .utf8), "earlier\nimplicit-rejection\nimplicit-rejection\n")
        XCTAssertEqual(SecurityEventLog.implicitRejections(in: log, after: 8), 2)
        XCTAssertEqual(SecurityEventLog.implicitRejections(in: log, after: 8 + 19), 1)
    }

    /// Before 17.4 the same adaptor called `ccrsa_eme_pkcs1v15_decode`: errSecParam, "RSAdecrypt wrong input".
    func testPKCS1Decrypt_wrongKey_beforeIOS17_4_isErrSecParam() throws {
        let (_, publicKey) = try rsaKeyPair()
        let (otherPrivate, _) = try rsaKeyPair()
        let ciphertext = try XCTUnwrap(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionPKCS1, Data("attack at dawn".utf8) as CFData, nil))
        TargetIOS.with(TargetIOS(major: 17, minor: 3)) {
            var error: Unmanaged<CFError>?
            XCTAssertNil(SecKeyCreateDecryptedData(otherPrivate, .rsaEncryptionPKCS1, ciphertext, &error))
            XCTAssertEqual(code(error), Int(errSecParam))
        }
    }

    /// OAEP is unchanged by 17.4 (`ccrsa_oaep_decode`, the same adaptor): a wrong key is errSecParam,
    /// and the right key still decrypts under both targets.
    func testOAEPDecrypt_wrongKey_isErrSecParam_onEveryTarget_andTheRightKeyDecrypts() throws {
        let (privateKey, publicKey) = try rsaKeyPair()
        let (otherPrivate, _) = try rsaKeyPair()
        let ciphertext = try XCTUnwrap(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionOAEPSHA256, Data("hi".utf8) as CFData, nil))
        let pkcs1 = try XCTUnwrap(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionPKCS1, Data("hi".utf8) as CFData, nil))
        for version in [TargetIOS(major: 17, minor: 3), TargetIOS.defaultVersion] {
            TargetIOS.with(version) {
                var error: Unmanaged<CFError>?
                XCTAssertNil(SecKeyCreateDecryptedData(otherPrivate, .rsaEncryptionOAEPSHA256, ciphertext, &error), "\(version)")
                XCTAssertEqual(code(error), Int(errSecParam))
                XCTAssertEqual(SecKeyCreateDecryptedData(privateKey, .rsaEncryptionOAEPSHA256, ciphertext, nil) as Data?, Data("hi".utf8))
                XCTAssertEqual(SecKeyCreateDecryptedData(privateKey, .rsaEncryptionPKCS1, pkcs1, nil) as Data?, Data("hi".utf8))
            }
        }
    }

    /// `crosscheck run --ios` reaches an app's process in CROSSCHECK_IOS_VERSION, as `--app-user` does.
    func testTargetIOS_comesFromTheEnvironmentVariableRunSets() {
        XCTAssertEqual(TargetIOS.environmentVariable, "CROSSCHECK_IOS_VERSION")
        XCTAssertEqual(TargetIOS.with(TargetIOS(major: 17, minor: 3)) { TargetIOS.current }, TargetIOS(major: 17, minor: 3))
    }

    func testTargetIOS_defaultIs26_andReadsVersions() {
        XCTAssertEqual(TargetIOS.defaultVersion, TargetIOS(major: 26))
        XCTAssertEqual(TargetIOS("17.4"), TargetIOS(major: 17, minor: 4))
        XCTAssertEqual(TargetIOS("18"), TargetIOS(major: 18))
        XCTAssertEqual(TargetIOS("17.4.1"), TargetIOS(major: 17, minor: 4))
        XCTAssertNil(TargetIOS("seventeen"))
        XCTAssertNil(TargetIOS("17."))
        XCTAssertTrue(TargetIOS(major: 17, minor: 3) < TargetIOS.implicitRejection)
    }

    // MARK: 5. An attribute of another class

    /// keychain/securityd/SecItemDb.c:64-86 (`SecDbAttrWithKey`): "attribute %@ not found in class
    /// %@", errSecNoSuchAttr; the classes' attribute lists are SecItemSchema.c's (genp: no atag; keys:
    /// no acct).
    func testAttributeOfAnotherClass_isErrSecNoSuchAttr() throws {
        let password: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a",
                                       kSecAttrApplicationTag as String: Data("tag".utf8), kSecValueData as String: Data("p".utf8)]
        XCTAssertEqual(SecItemAdd(password as CFDictionary, nil), errSecNoSuchAttr)
        let key: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("tag".utf8),
                                  kSecAttrAccount as String: "a", kSecValueData as String: Data(count: 32)]
        XCTAssertEqual(SecItemAdd(key as CFDictionary, nil), errSecNoSuchAttr)
        XCTAssertEqual(InMemoryKeychain.shared.count, 0)
        // Queries too: a key query with an account matches nothing on iOS because it is refused.
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrService as String: "s"] as CFDictionary, nil), errSecNoSuchAttr)
        XCTAssertEqual(SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrServer as String: "h"] as CFDictionary), errSecNoSuchAttr)
        // And the class's own attributes are fine.
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "h", kSecAttrAccount as String: "a",
                                   kSecAttrPort as String: 443, kSecValueData as String: Data("p".utf8)] as CFDictionary, nil), errSecSuccess)
    }

    // MARK: 7. kSecAttrAccessGroup comes back

    /// SecItemServer.c (`SecServerItemAdd`: no agrp given → the client's first access group); the
    /// "bundle seed ID" idiom reads it back and takes what is before the first dot.
    func testReturnedAttributes_carryTheAccessGroup_forTheBundleSeedIDIdiom() throws {
        XCTAssertEqual(addPassword(account: "bundleSeedID"), errSecSuccess)
        var result: CFTypeRef?
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "bundleSeedID",
                                            kSecReturnAttributes as String: true] as CFDictionary, &result), errSecSuccess)
        let attributes = try XCTUnwrap(result as? [String: Any])
        let group = try XCTUnwrap(attributes[kSecAttrAccessGroup as String] as? String)
        XCTAssertEqual(group, InMemoryKeychain.defaultAccessGroup)
        XCTAssertEqual(group.components(separatedBy: ".").first, "CROSSCHECK")
        // Given explicitly, it is kept.
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "shared",
                                   kSecAttrAccessGroup as String: "ABCDE12345.shared", kSecValueData as String: Data()] as CFDictionary, nil), errSecSuccess)
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrAccessGroup as String: "ABCDE12345.shared"] as CFDictionary, nil),
                       errSecSuccess)
    }

    // MARK: 8. SecKeyVerifySignature with a private key

    /// OSX/sec/Security/SecKeyAdaptors.m:545-558 (`SecKeyRSAVerifyAdaptorCopyResult`) runs the key's raw
    /// operation, for a private key the private one (SecRSAKey.c:573, decrypt), so the padding never
    /// matches: false, errSecVerifyFailed — even for a good signature.
    func testVerifyWithAnRSAPrivateKey_isFalse_errSecVerifyFailed() throws {
        let (privateKey, publicKey) = try rsaKeyPair()
        let message = Data("hello".utf8) as CFData
        let signature = try XCTUnwrap(SecKeyCreateSignature(privateKey, .rsaSignatureMessagePKCS1v15SHA256, message, nil))
        XCTAssertTrue(SecKeyVerifySignature(publicKey, .rsaSignatureMessagePKCS1v15SHA256, message, signature, nil))
        var error: Unmanaged<CFError>?
        XCTAssertFalse(SecKeyVerifySignature(privateKey, .rsaSignatureMessagePKCS1v15SHA256, message, signature, &error))
        XCTAssertEqual(code(error), Int(errSecVerifyFailed))
    }

    /// SecECKey.m:501 (`SecECPrivateKeyCopyOperationResult`: sign and key exchange only) → SecKey.m:1937
    /// "algorithm not supported by the key", errSecParam; SecKeyIsAlgorithmSupported says so too.
    func testVerifyWithAnECPrivateKey_isErrSecParam_unsupported() throws {
        let (privateKey, publicKey) = try ecKeyPair()
        let message = Data("hello".utf8) as CFData
        let signature = try XCTUnwrap(SecKeyCreateSignature(privateKey, .ecdsaSignatureMessageX962SHA256, message, nil))
        XCTAssertTrue(SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message, signature, nil))
        var error: Unmanaged<CFError>?
        XCTAssertFalse(SecKeyVerifySignature(privateKey, .ecdsaSignatureMessageX962SHA256, message, signature, &error))
        XCTAssertEqual(code(error), Int(errSecParam))
        XCTAssertFalse(SecKeyIsAlgorithmSupported(privateKey, .verify, .ecdsaSignatureMessageX962SHA256))
        XCTAssertTrue(SecKeyIsAlgorithmSupported(publicKey, .verify, .ecdsaSignatureMessageX962SHA256))
    }

    // MARK: 9. Account and service as Data; a missing account

    /// SecItemSchema.c:111,113 (`v6acct "acct", Blob`, `v6svce "svce", Blob`): blobs, so Data is taken
    /// and comes back as Data.
    func testAccountAndServiceAsData_areTaken_andComeBackAsData() throws {
        let account = Data([0x00, 0xff, 0x41])
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
                                   kSecAttrService as String: Data("svc".utf8), kSecValueData as String: Data("p".utf8)] as CFDictionary, nil), errSecSuccess)
        var result: CFTypeRef?
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
                                            kSecReturnAttributes as String: true] as CFDictionary, &result), errSecSuccess)
        let attributes = try XCTUnwrap(result as? [String: Any])
        XCTAssertEqual(attributes[kSecAttrAccount as String] as? Data, account)
        XCTAssertEqual(attributes[kSecAttrService as String] as? Data, Data("svc".utf8))
    }

    /// SecItemSchema.c:111 flags acct not-null with an empty default ('E', 'N'); SecDbItem.c:244-255
    /// (`SecDbAttrCopyDefaultValue`) makes a Blob's default an empty CFData. So a password saved without
    /// an account has account = empty, and a second one without an account (same service) is a duplicate.
    func testMissingAccount_defaultsToEmpty_andASecondOneIsADuplicate() throws {
        let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc", kSecValueData as String: Data("p".utf8)]
        XCTAssertEqual(SecItemAdd(item as CFDictionary, nil), errSecSuccess)
        XCTAssertEqual(SecItemAdd(item as CFDictionary, nil), errSecDuplicateItem)
        var result: CFTypeRef?
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecReturnAttributes as String: true] as CFDictionary, &result), errSecSuccess)
        let attributes = try XCTUnwrap(result as? [String: Any])
        XCTAssertEqual(attributes[kSecAttrAccount as String] as? Data, Data())
    }

    // MARK: 10. The smaller ones

    /// SecItemDb.c:1052 (`s3dl_query`): `q->q_limit == 1` answers one value; the number 1 is that limit
    /// (SecDbQuery.c:478-480 reads a CFNumber into q_limit).
    func testNumericMatchLimitOne_returnsOneValue_notAnArray() throws {
        XCTAssertEqual(addPassword(account: "a"), errSecSuccess)
        XCTAssertEqual(addPassword(account: "b"), errSecSuccess)
        var result: CFTypeRef?
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: 1,
                                            kSecReturnData as String: true] as CFDictionary, &result), errSecSuccess)
        XCTAssertEqual(result as? Data, Data("secret".utf8))
        result = nil
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: 2,
                                            kSecReturnData as String: true] as CFDictionary, &result), errSecSuccess)
        XCTAssertEqual((result as? [Data])?.count, 2)
    }

    /// SecItemSchema.c:133,157 (`v6kcls "kcls", Number`, `v6keytype "type", Number`): a key item's class
    /// and type come back as numbers.
    func testKeyItemAttributes_typeAndClassAreNumbers() throws {
        let (privateKey, _) = try rsaKeyPair(bits: 1024)
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassKey, kSecValueRef as String: privateKey,
                                   kSecAttrApplicationTag as String: Data("t".utf8)] as CFDictionary, nil), errSecSuccess)
        var result: CFTypeRef?
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("t".utf8),
                                            kSecReturnAttributes as String: true] as CFDictionary, &result), errSecSuccess)
        let attributes = try XCTUnwrap(result as? [String: Any])
        XCTAssertEqual(attributes[kSecAttrKeyType as String] as? NSNumber, NSNumber(value: 42))
        XCTAssertEqual(attributes[kSecAttrKeyClass as String] as? NSNumber, NSNumber(value: 1))
        XCTAssertNil(attributes[kSecAttrKeyType as String] as? String)
        // Matching by the string constants still finds it.
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
                                            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate] as CFDictionary, nil), errSecSuccess)
    }

    /// OSX/sec/Security/SecItem.m:442-466 (`SecItemCreateFromAttributeDictionary`): a reference is made
    /// for keys, certificates and identities only; a password's is NULL, so the call succeeds with nil.
    func testReturnRefOnAPassword_isSuccessWithNil() throws {
        XCTAssertEqual(addPassword(), errSecSuccess)
        var result: CFTypeRef? = "untouched" as CFString
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecReturnRef as String: true] as CFDictionary, &result), errSecSuccess)
        XCTAssertNil(result)
    }

    /// OSX/sec/Security/SecAccessControl.m:301-310 (`SecAccessControlSetProtection`): a protection not in
    /// Apple's list is errSecParam, "SecAccessControl: invalid protection".
    func testUnknownAccessibility_isErrSecParam() {
        let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a",
                                   kSecAttrAccessible as String: "whenever", kSecValueData as String: Data("p".utf8)]
        XCTAssertEqual(SecItemAdd(item as CFDictionary, nil), errSecParam)
        var known = item
        known[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        XCTAssertEqual(SecItemAdd(known as CFDictionary, nil), errSecSuccess)
    }

    /// keychain/securityd/SecDbQuery.c:928-936 (`query_infer_keyclass`): "third party certs are always
    /// dk"; other items default to ak.
    func testCertificateDefaultAccessibility_isDk_passwordsAk() throws {
        let factory = try CertificateFactory()
        let certificate = try XCTUnwrap(SecCertificateCreateWithData(nil, try factory.der("server") as CFData))
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate] as CFDictionary, nil), errSecSuccess)
        XCTAssertEqual(addPassword(), errSecSuccess)
        var result: CFTypeRef?
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassCertificate, kSecReturnAttributes as String: true] as CFDictionary, &result), errSecSuccess)
        XCTAssertEqual((result as? [String: Any])?[kSecAttrAccessible as String] as? String, "dk")
        result = nil
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecReturnAttributes as String: true] as CFDictionary, &result), errSecSuccess)
        XCTAssertEqual((result as? [String: Any])?[kSecAttrAccessible as String] as? String, kSecAttrAccessibleWhenUnlocked as String)
    }

    /// OSX/sec/Security/SecRSAKey.c:507-513 (`SecRSAPrivateKeyInit`, kSecGenerateKey): below 512 or above
    /// kMaximumRSAKeyBits (8192, SecRSAKey.c:67), or no size, is errSecKeySizeNotAllowed; 512 is made.
    func testRSAGeneration_limitsAre512To8192_errSecKeySizeNotAllowed() throws {
        for bits: Any? in [511, 8200, nil] {
            var parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA]
            parameters[kSecAttrKeySizeInBits as String] = bits
            var error: Unmanaged<CFError>?
            XCTAssertNil(SecKeyCreateRandomKey(parameters as CFDictionary, &error), "\(String(describing: bits))")
            XCTAssertEqual(code(error), Int(errSecKeySizeNotAllowed), "\(String(describing: bits))")
        }
        let (small, _) = try rsaKeyPair(bits: 512)
        XCTAssertEqual(SecKeyGetBlockSize(small), 64)
    }
}
