import Foundation
import XCTest
import Security

/// What the key-storage audit reads from the keychain: the attributes each item was stored with,
/// by Apple's names, and the default where the app gave none.
final class KeychainRecordsTests: XCTestCase {
    func testStoredItems_recordWhatTheAppAskedFor() throws {
        let keychain = InMemoryKeychain()
        let key = Data(repeating: 7, count: 32)
        try InMemoryKeychain.withKeychain(keychain) {
            XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: "a",
                                       kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock, kSecValueData as String: key] as CFDictionary, nil), errSecSuccess)
            XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "b",
                                       kSecValueData as String: key] as CFDictionary, nil), errSecSuccess)
            var error: Unmanaged<CFError>?
            let privateKey = try XCTUnwrap(SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 1024,
                                                                  kSecAttrIsPermanent as String: true] as CFDictionary, &error))
            let exported = try XCTUnwrap(SecKeyCopyExternalRepresentation(privateKey, &error) as Data?)
            XCTAssertTrue(InMemoryKeychain.exportedPrivateKeys.contains(exported))
        }
        let items = keychain.storedItems
        // kSecAttrIsPermanent at the top level applies to both keys of the pair.
        XCTAssertEqual(items.count, 4, "\(items)")
        XCTAssertEqual(items[2...].map(\.generatedPermanentKey), [true, true])
        XCTAssertEqual(items[2...].map(\.isPrivateKey), [false, true])
        XCTAssertNil(items[3].requested["kSecAttrApplicationTag"])
        XCTAssertEqual(items[0].itemClass, "kSecClassKey")
        XCTAssertEqual(items[0].requested, ["kSecAttrApplicationTag": "a", "kSecAttrAccessible": "kSecAttrAccessibleAfterFirstUnlock"])
        XCTAssertEqual(items[0].accessible, "kSecAttrAccessibleAfterFirstUnlock")
        XCTAssertEqual(items[0].value, key)
        XCTAssertFalse(items[0].generatedPermanentKey)
        XCTAssertEqual(items[1].itemClass, "kSecClassGenericPassword")
        XCTAssertEqual(items[1].requested, ["kSecAttrAccount": "b"])
        XCTAssertEqual(items[1].accessible, "kSecAttrAccessibleWhenUnlocked", "the keychain's default when none is given")
        XCTAssertTrue(InMemoryKeychain.everyStoredItem.contains(items[1]))
    }

    func testDeprecatedAlways_storedAndNamed() throws {
        let keychain = InMemoryKeychain()
        // The deprecated constants' values, as an app using them passes them (crosscheck's code never names them).
        for (value, name) in [("dk", "kSecAttrAccessibleAlways"), ("dku", "kSecAttrAccessibleAlwaysThisDeviceOnly")] {
            InMemoryKeychain.withKeychain(keychain) {
                XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: name,
                                           kSecAttrAccessible as String: value, kSecValueData as String: Data([1])] as CFDictionary, nil), errSecSuccess)
            }
            XCTAssertEqual(keychain.storedItems.last?.accessible, name)
        }
    }
}
