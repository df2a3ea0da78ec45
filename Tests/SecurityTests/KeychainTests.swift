import Foundation
import XCTest
import Security
import TestSupport

/// The in-memory keychain through SecItem*, with the OSStatus results Apple documents.
final class KeychainTests: XCTestCase {
    override func setUp() { InMemoryKeychain.shared.removeAll() }

    /// Seed 003's store(key:withTag:) and read(tag:) sequence, step by step.
    func testSeed003StoreAndRead_sequence() throws {
        let keyData = Data((0..<32).map { UInt8($0) })
        let attributes: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: "com.myapp.keys.localStore"]
        XCTAssertEqual(SecItemDelete(attributes as CFDictionary), errSecItemNotFound)
        let query: [String: Any] = [
            kSecClass as String: kSecClassKey,
            kSecAttrApplicationTag as String: "com.myapp.keys.localStore",
            kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
            kSecValueData as String: keyData,
        ]
        XCTAssertEqual(SecItemAdd(query as CFDictionary, nil), errSecSuccess)
        XCTAssertEqual(SecItemAdd(query as CFDictionary, nil), errSecDuplicateItem)
        let readQuery: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: "com.myapp.keys.localStore",
                                        kSecReturnData as String: true]
        var item: CFTypeRef?
        XCTAssertEqual(SecItemCopyMatching(readQuery as CFDictionary, &item), errSecSuccess)
        XCTAssertEqual(item as? Data, keyData)
        XCTAssertEqual(CFGetTypeID(item), CFDataGetTypeID())
        // The same tag given as bytes finds the same item (tags are stored as data).
        var byBytes: CFTypeRef?
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("com.myapp.keys.localStore".utf8),
                                            kSecReturnData as String: true] as CFDictionary, &byBytes), errSecSuccess)
        // Raw key bytes stored without a key type have no SecKey form: asking for a reference is errSecParam.
        var ref: CFTypeRef?
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: "com.myapp.keys.localStore",
                                            kSecReturnRef as String: true] as CFDictionary, &ref), errSecParam)
        // Delete, then nothing is found.
        XCTAssertEqual(SecItemDelete(attributes as CFDictionary), errSecSuccess)
        item = nil
        XCTAssertEqual(SecItemCopyMatching(readQuery as CFDictionary, &item), errSecItemNotFound)
        XCTAssertNil(item)
    }

    func testReturnShapes_attributesDataAndAll() throws {
        for account in ["alice", "bob"] {
            XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
                                       kSecAttrService as String: "pi", kSecValueData as String: Data(account.utf8)] as CFDictionary, nil), errSecSuccess)
        }
        var result: CFTypeRef?
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "bob",
                                            kSecReturnAttributes as String: true, kSecReturnData as String: true] as CFDictionary, &result), errSecSuccess)
        let dictionary = try XCTUnwrap(result as? [String: Any])
        XCTAssertEqual(dictionary[kSecAttrAccount as String] as? String, "bob")
        XCTAssertEqual(dictionary[kSecValueData as String] as? Data, Data("bob".utf8))
        XCTAssertEqual(dictionary[kSecAttrAccessible as String] as? String, kSecAttrAccessibleWhenUnlocked as String)
        XCTAssertNotNil(dictionary[kSecAttrCreationDate as String] as? Date)
        result = nil
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
                                            kSecReturnData as String: true] as CFDictionary, &result), errSecSuccess)
        XCTAssertEqual(CFGetTypeID(result), CFArrayGetTypeID())
        XCTAssertEqual(Set(((result as? NSArray) as? [Data]) ?? []), [Data("alice".utf8), Data("bob".utf8)])
        // A numeric limit of 1 is kSecMatchLimitOne (SecItemDb.c `s3dl_query`: q_limit == 1): one value, not an array.
        result = nil
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: 1,
                                            kSecReturnData as String: true] as CFDictionary, &result), errSecSuccess)
        XCTAssertNotNil(result as? Data)
        result = nil
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitOne,
                                            kSecReturnData as String: true] as CFDictionary, &result), errSecSuccess)
        XCTAssertNotNil(result as? Data)
        // No return key: success, no result.
        result = nil
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword] as CFDictionary, &result), errSecSuccess)
        XCTAssertNil(result)
        // SecItemAdd can return what it added.
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "carol",
                                   kSecValueData as String: Data("c".utf8), kSecReturnAttributes as String: true] as CFDictionary, &result), errSecSuccess)
        XCTAssertEqual((result as? [String: Any])?[kSecAttrAccount as String] as? String, "carol")
    }

    func testUpdate_changesValues_refusesDuplicates_andReportsNotFound() throws {
        for account in ["alice", "bob"] {
            XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
                                       kSecValueData as String: Data(account.utf8)] as CFDictionary, nil), errSecSuccess)
        }
        let alice = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice"] as [String: Any]
        XCTAssertEqual(SecItemUpdate(alice as CFDictionary, [kSecValueData as String: Data("new".utf8)] as CFDictionary), errSecSuccess)
        var result: CFTypeRef?
        XCTAssertEqual(SecItemCopyMatching(alice.merging([kSecReturnData as String: true]) { $1 } as CFDictionary, &result), errSecSuccess)
        XCTAssertEqual(result as? Data, Data("new".utf8))
        XCTAssertEqual(SecItemUpdate(alice as CFDictionary, [kSecAttrAccount as String: "bob"] as CFDictionary), errSecDuplicateItem)
        XCTAssertEqual(SecItemCopyMatching(alice.merging([kSecReturnData as String: true]) { $1 } as CFDictionary, &result), errSecSuccess)
        XCTAssertEqual(SecItemUpdate([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "nobody"] as CFDictionary,
                                     [kSecValueData as String: Data()] as CFDictionary), errSecItemNotFound)
        XCTAssertEqual(SecItemUpdate(alice as CFDictionary, [kSecClass as String: kSecClassKey] as CFDictionary), errSecParam)
    }

    func testBadQueries() {
        XCTAssertEqual(SecItemAdd([kSecAttrAccount as String: "x"] as CFDictionary, nil), errSecParam)
        XCTAssertEqual(SecItemCopyMatching([kSecAttrAccount as String: "x"] as CFDictionary, nil), errSecParam)
        XCTAssertEqual(SecItemDelete([kSecAttrAccount as String: "x"] as CFDictionary), errSecParam)
        XCTAssertEqual(SecItemAdd([kSecClass as String: "nonsense"] as CFDictionary, nil), errSecNoSuchClass)
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassGenericPassword, "zzzz": "x"] as CFDictionary, nil), errSecNoSuchAttr)
        // An account as Data is a blob, as securityd stores it (AppleFidelityTests); a number is not.
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: [1]] as CFDictionary, nil), errSecParam)
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: Data([1])] as CFDictionary, nil), errSecUnimplemented)
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecMatchLimit as String: "lots"] as CFDictionary, nil), errSecParam)
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a"] as CFDictionary, nil), errSecSuccess)
        XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: "lots"] as CFDictionary, nil), errSecParam)
    }

    /// Seed 003's showCertificateInfo query: certificates stored as references, read back as an array.
    func testCertificatesInTheKeychain_asSeed003ListsThem() throws {
        let factory = try CertificateFactory()
        let server = try XCTUnwrap(SecCertificateCreateWithData(nil, try factory.der("server") as CFData))
        let ca = try XCTUnwrap(SecCertificateCreateWithData(nil, try factory.der("ca") as CFData))
        XCTAssertEqual(SecItemAdd([kSecValueRef as String: server] as CFDictionary, nil), errSecSuccess)
        XCTAssertEqual(SecItemAdd([kSecValueRef as String: server] as CFDictionary, nil), errSecDuplicateItem)
        var result: CFTypeRef?
        let one = [kSecReturnRef: true, kSecClass: kSecClassCertificate] as CFDictionary
        XCTAssertEqual(SecItemCopyMatching(one, &result), errSecSuccess)
        XCTAssertEqual(CFGetTypeID(result), SecCertificateGetTypeID())
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassCertificate, kSecValueRef as String: ca] as CFDictionary, nil), errSecSuccess)
        let query = [kSecMatchLimit: kSecMatchLimitAll, kSecReturnRef: true, kSecClass: kSecClassCertificate] as CFDictionary
        XCTAssertEqual(SecItemCopyMatching(query, &result), errSecSuccess)
        XCTAssertEqual(CFGetTypeID(result), CFArrayGetTypeID())
        let array = try XCTUnwrap((result as? NSArray) as? [SecCertificate])
        XCTAssertEqual(Set(array.compactMap { SecCertificateCopySubjectSummary($0) as String? }), ["localhost", "ca"])
        // Stored as data only: a reference is made from the DER on the way out.
        XCTAssertEqual(SecItemDelete([kSecClass as String: kSecClassCertificate] as CFDictionary), errSecSuccess)
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassCertificate, kSecValueData as String: try factory.der("server")] as CFDictionary, nil), errSecSuccess)
        XCTAssertEqual(SecItemCopyMatching(one, &result), errSecSuccess)
        XCTAssertEqual((result as? SecCertificate).map { SecCertificateCopyData($0) as Data }, try factory.der("server"))
    }

    func testSeparateKeychains_forSeparateApps() {
        let appA = InMemoryKeychain(), appB = InMemoryKeychain()
        let item = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "same"] as CFDictionary
        InMemoryKeychain.withKeychain(appA) { XCTAssertEqual(SecItemAdd(item, nil), errSecSuccess) }
        InMemoryKeychain.withKeychain(appB) {
            XCTAssertEqual(SecItemCopyMatching(item, nil), errSecItemNotFound)
            XCTAssertEqual(SecItemAdd(item, nil), errSecSuccess)
        }
        XCTAssertEqual(appA.count, 1)
        XCTAssertEqual(appB.count, 1)
        XCTAssertEqual(InMemoryKeychain.shared.count, 0)
    }

    func testErrorMessages() {
        XCTAssertEqual(SecCopyErrorMessageString(errSecParam, nil) as String?, "One or more parameters passed to a function were not valid.")
        XCTAssertEqual(SecCopyErrorMessageString(errSecItemNotFound, nil) as String?, "The specified item could not be found in the keychain.")
        XCTAssertEqual(errSecItemNotFound, -25300)
        XCTAssertEqual(errSecDuplicateItem, -25299)
    }
}
