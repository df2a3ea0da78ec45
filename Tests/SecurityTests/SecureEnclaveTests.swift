import Foundation
import XCTest
import Security
import TestSupport

/// kSecAttrTokenIDSecureEnclave keys on the software enclave: P-256 only, the private key never
/// exported, and signatures, key agreement and ECIES that openssl and pyca check.
final class SecureEnclaveTests: XCTestCase {
    private func enclaveKey(_ extra: [String: Any] = [:], permanentTag: String? = nil) -> (SecKey?, OSStatus?) {
        var privateAttributes: [String: Any] = [:]
        if let permanentTag { privateAttributes = [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: permanentTag] }
        var parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                                         kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave, kSecPrivateKeyAttrs as String: privateAttributes]
        parameters.merge(extra) { $1 }
        var error: Unmanaged<CFError>?
        let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error)
        return (key, error.map { OSStatus(CFErrorGetCode($0.takeRetainedValue())) })
    }

    func testOnlyP256_asOnADevice() {
        XCTAssertNotNil(enclaveKey().0)
        XCTAssertEqual(enclaveKey([kSecAttrKeySizeInBits as String: 384]).1, errSecParam)
        XCTAssertEqual(enclaveKey([kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048]).1, errSecParam)
        XCTAssertEqual(enclaveKey([kSecAttrTokenID as String: "com.example.token"]).1, errSecParam)
    }

    /// The private key cannot be exported (errSecUnimplemented), is not in its attributes nor in a
    /// keychain item; the public key exports as X9.63, as on a device.
    func testPrivateKeyNeverLeaves() throws {
        let keychain = InMemoryKeychain()
        try InMemoryKeychain.withKeychain(keychain) {
            let (made, _) = enclaveKey(permanentTag: "com.app.enclave")
            let key = try XCTUnwrap(made)
            var error: Unmanaged<CFError>?
            XCTAssertNil(SecKeyCopyExternalRepresentation(key, &error))
            XCTAssertEqual(error.map { CFErrorGetCode($0.takeRetainedValue()) }, Int(errSecUnimplemented))
            let attributes = try XCTUnwrap(SecKeyCopyAttributes(key) as? [String: Any])
            XCTAssertNil(attributes[kSecValueData as String])
            XCTAssertEqual(attributes[kSecAttrTokenID as String] as? String, kSecAttrTokenIDSecureEnclave as String)
            let publicKey = try XCTUnwrap(SecKeyCopyPublicKey(key))
            XCTAssertEqual((SecKeyCopyExternalRepresentation(publicKey, nil) as Data?)?.count, 65)
            // Found again by its tag, as a reference that still signs; its item holds no key bytes.
            var found: CFTypeRef?
            XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: "com.app.enclave",
                                                kSecReturnRef as String: true] as CFDictionary, &found), errSecSuccess)
            let again = try XCTUnwrap(found as? SecKey)
            XCTAssertNotNil(SecKeyCreateSignature(again, .ecdsaSignatureMessageX962SHA256, Data("x".utf8) as CFData, nil))
            XCTAssertEqual(keychain.storedItems.filter { $0.isPrivateKey }.compactMap(\.value), [])
        }
    }

    /// Its ECDSA signature verifies under openssl with the exported public key, and ECIES
    /// (eciesEncryptionCofactorVariableIVX963SHA256AESGCM) and key agreement work with it inside.
    func testSignAgreeAndECIES_withTheKeyInside() throws {
        let key = try XCTUnwrap(enclaveKey().0)
        let publicKey = try XCTUnwrap(SecKeyCopyPublicKey(key))
        let message = Data("enclave says hello \(UUID())".utf8)
        var error: Unmanaged<CFError>?
        let signature = try XCTUnwrap(SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message as CFData, &error) as Data?)
        let scratch = try Scratch()
        let x963 = try XCTUnwrap(SecKeyCopyExternalRepresentation(publicKey, nil) as Data?)
        // SubjectPublicKeyInfo for P-256 is a fixed 26-byte header before the X9.63 point.
        let spkiHeader: [UInt8] = [0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00]
        try scratch.write("public.der", Data(spkiHeader) + x963)
        try scratch.write("message", message)
        try scratch.write("message.sig", signature)
        let verified = try runProgram("/usr/bin/openssl", ["dgst", "-sha256", "-verify", "public.der", "-keyform", "DER", "-signature", "message.sig", "message"], in: scratch.url)
        XCTAssertEqual(verified.status, 0, verified.errorText)

        let algorithm = SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA256AESGCM
        XCTAssertTrue(SecKeyIsAlgorithmSupported(key, .decrypt, algorithm))
        let ciphertext = try XCTUnwrap(SecKeyCreateEncryptedData(publicKey, algorithm, message as CFData, &error) as Data?)
        XCTAssertEqual(SecKeyCreateDecryptedData(key, algorithm, ciphertext as CFData, &error) as Data?, message)

        let peer = try XCTUnwrap(SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256] as CFDictionary, nil))
        let mine = SecKeyCopyKeyExchangeResult(key, .ecdhKeyExchangeStandard, SecKeyCopyPublicKey(peer)!, [:] as CFDictionary, &error) as Data?
        let theirs = SecKeyCopyKeyExchangeResult(peer, .ecdhKeyExchangeStandard, publicKey, [:] as CFDictionary, &error) as Data?
        XCTAssertNotNil(mine)
        XCTAssertEqual(mine, theirs)
    }

    /// With an access control (privateKeyUsage and userPresence), each signature asks the simulated user.
    func testAccessControlledEnclaveKey_signsOnlyForThePresentUser() throws {
        let control = try XCTUnwrap(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.privateKeyUsage, .userPresence], nil))
        let key = try XCTUnwrap(enclaveKey([kSecPrivateKeyAttrs as String: [kSecAttrAccessControl as String: control]]).0)
        let message = Data("pay 10".utf8) as CFData
        SimulatedUser.with(.present) { XCTAssertNotNil(SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, nil)) }
        SimulatedUser.with(.cancel) {
            var error: Unmanaged<CFError>?
            XCTAssertNil(SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, &error))
            XCTAssertEqual(error.map { CFErrorGetCode($0.takeRetainedValue()) }, Int(errSecUserCanceled))
        }
    }
}
