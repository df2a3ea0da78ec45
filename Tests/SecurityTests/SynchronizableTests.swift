import Foundation
import XCTest
import Security

/// kSecAttrSynchronizable (iCloud Keychain) with a ThisDeviceOnly accessibility: Apple's
/// kSecAttrAccessible documentation allows a synchronizable item only the classes whose names do
/// not end in ThisDeviceOnly; the keychain refuses the add (errSecParam) and keeps nothing.
final class SynchronizableTests: XCTestCase {
    override func setUp() { InMemoryKeychain.shared.removeAll() }

    func item(_ accessible: CFString, sync: Bool) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "sync-test", kSecAttrAccount as String: "a",
         kSecAttrAccessible as String: accessible, kSecAttrSynchronizable as String: sync, kSecValueData as String: Data("secret".utf8)]
    }

    func testSynchronizableWithThisDeviceOnly_isRefused_andStoresNothing() {
        for accessible in [kSecAttrAccessibleWhenUnlockedThisDeviceOnly, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly] {
            XCTAssertEqual(SecItemAdd(item(accessible, sync: true) as CFDictionary, nil), errSecParam, "\(accessible)")
            XCTAssertEqual(SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "sync-test",
                                                kSecAttrSynchronizable as String: kSecAttrSynchronizableAny] as CFDictionary, nil), errSecItemNotFound)
        }
    }

    func testSynchronizableWithAMigratingClass_andThisDeviceOnlyWithoutSync_areStored() {
        XCTAssertEqual(SecItemAdd(item(kSecAttrAccessibleWhenUnlocked, sync: true) as CFDictionary, nil), errSecSuccess)
        InMemoryKeychain.shared.removeAll()
        XCTAssertEqual(SecItemAdd(item(kSecAttrAccessibleWhenUnlockedThisDeviceOnly, sync: false) as CFDictionary, nil), errSecSuccess)
    }
}
