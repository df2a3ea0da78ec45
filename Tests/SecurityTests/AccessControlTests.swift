import Foundation
import Security
import XCTest

/// SecAccessControl on keychain items and keys, and the simulated user who answers the prompts.
final class AccessControlTests: XCTestCase {
    private func control(_ flags: SecAccessControlCreateFlags, _ protection: CFString = kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly) -> SecAccessControl {
        var error: Unmanaged<CFError>?
        let made = SecAccessControlCreateWithFlags(kCFAllocatorDefault, protection, flags, &error)
        XCTAssertNil(error)
        return made!
    }

    func testFlags_haveApplesRawValues() {
        XCTAssertEqual(SecAccessControlCreateFlags.userPresence.rawValue, 1)
        XCTAssertEqual(SecAccessControlCreateFlags.biometryAny.rawValue, 2)
        XCTAssertEqual(SecAccessControlCreateFlags.biometryCurrentSet.rawValue, 8)
        XCTAssertEqual(SecAccessControlCreateFlags.devicePasscode.rawValue, 16)
        XCTAssertEqual(SecAccessControlCreateFlags.watch.rawValue, 32)
        XCTAssertEqual(SecAccessControlCreateFlags.or.rawValue, 0x4000)
        XCTAssertEqual(SecAccessControlCreateFlags.and.rawValue, 0x8000)
        XCTAssertEqual(SecAccessControlCreateFlags.privateKeyUsage.rawValue, 0x4000_0000)
        XCTAssertEqual(SecAccessControlCreateFlags.applicationPassword.rawValue, 0x8000_0000)
        XCTAssertEqual(CFGetTypeID(control(.userPresence)), SecAccessControlGetTypeID())
    }

    func testCreate_refusesABadProtectionBothConjunctionsAndUnknownFlags() {
        let cases: [(CFString, SecAccessControlCreateFlags)] = [("nonsense" as CFString, .userPresence),
                                    (kSecAttrAccessibleWhenUnlocked, [.biometryAny, .devicePasscode, .or, .and]),
                                    (kSecAttrAccessibleWhenUnlocked, SecAccessControlCreateFlags(rawValue: 1 << 9))]
        for (protection, flags) in cases {
            var error: Unmanaged<CFError>?
            XCTAssertNil(SecAccessControlCreateWithFlags(nil, protection, flags, &error), "\(protection) \(flags)")
            XCTAssertEqual(error.map { CFErrorGetCode($0.takeRetainedValue()) }, Int(errSecParam))
        }
    }

    private func addSecret(_ flags: SecAccessControlCreateFlags, account: String = "alice") -> OSStatus {
        SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc", kSecAttrAccount as String: account,
                    kSecAttrAccessControl as String: control(flags), kSecValueData as String: Data("s3cret".utf8)] as CFDictionary, nil)
    }

    private func read(_ extra: [String: Any] = [:], account: String = "alice") -> (OSStatus, Data?) {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                                    kSecAttrAccount as String: account, kSecReturnData as String: true]
        query.merge(extra) { $1 }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result as? Data)
    }

    /// The item's secret is read only when the simulated user authenticates; canceling and failing
    /// give Apple's two statuses; a query that forbids the prompt gets errSecInteractionNotAllowed.
    func testProtectedItem_readAsTheSimulatedUserAnswers() {
        let keychain = InMemoryKeychain()
        InMemoryKeychain.withKeychain(keychain) {
            XCTAssertEqual(addSecret([.biometryCurrentSet, .or, .devicePasscode]), errSecSuccess)
            SimulatedUser.with(.present) {
                let (status, data) = read()
                XCTAssertEqual(status, errSecSuccess)
                XCTAssertEqual(data, Data("s3cret".utf8))
                XCTAssertEqual(read([kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail]).0, errSecInteractionNotAllowed)
                XCTAssertEqual(read([kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip]).0, errSecItemNotFound)
            }
            SimulatedUser.with(.cancel) { XCTAssertEqual(read().0, errSecUserCanceled) }
            SimulatedUser.with(.absent) {
                XCTAssertEqual(read().0, errSecAuthFailed)
                // Attributes alone need no prompt, and they hold the access control the app gave.
                var result: CFTypeRef?
                let status = SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice",
                                                  kSecReturnAttributes as String: true] as CFDictionary, &result)
                XCTAssertEqual(status, errSecSuccess)
                let attributes = result as? NSDictionary
                XCTAssertEqual(attributes?[kSecAttrAccessControl as String] as? SecAccessControl, control([.biometryCurrentSet, .or, .devicePasscode]))
                XCTAssertEqual(attributes?[kSecAttrAccessible as String] as? String, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly as String)
            }
        }
    }

    /// An item without a user constraint (privateKeyUsage alone) never asks.
    func testItemWithoutUserConstraint_readsWhateverTheUser() {
        let keychain = InMemoryKeychain()
        InMemoryKeychain.withKeychain(keychain) {
            XCTAssertEqual(addSecret([]), errSecSuccess)
            SimulatedUser.with(.cancel) { XCTAssertEqual(read().0, errSecSuccess) }
        }
    }

    /// securityd refuses kSecAttrAccessible next to an access control it does not equal.
    func testAccessibleBesideAccessControl_conflictsUnlessTheSame() {
        let keychain = InMemoryKeychain()
        InMemoryKeychain.withKeychain(keychain) {
            func add(_ accessible: CFString, _ flags: SecAccessControlCreateFlags, _ account: String) -> OSStatus {
                SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account, kSecAttrAccessible as String: accessible,
                            kSecAttrAccessControl as String: control(flags), kSecValueData as String: Data([1])] as CFDictionary, nil)
            }
            XCTAssertEqual(add(kSecAttrAccessibleWhenUnlocked, .userPresence, "a"), errSecParam, "other protection")
            XCTAssertEqual(add(kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, .userPresence, "b"), errSecParam, "constraints")
            XCTAssertEqual(add(kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, [], "c"), errSecSuccess, "equal")
            XCTAssertEqual(keychain.count, 1)
            XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "d",
                                       kSecAttrAccessControl as String: "userPresence"] as CFDictionary, nil), errSecParam, "not a SecAccessControl")
        }
    }

    /// A private key made with an access control asks the user each time it signs or decrypts.
    func testKeyWithAccessControl_signsOnlyWhenTheUserAuthenticates() {
        let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048,
                                         kSecPrivateKeyAttrs as String: [kSecAttrAccessControl as String: control(.userPresence)]]
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error) else { return XCTFail("\(error!.takeRetainedValue())") }
        let message = Data("sign me".utf8) as CFData
        SimulatedUser.with(.present) {
            XCTAssertNotNil(SecKeyCreateSignature(key, .rsaSignatureMessagePKCS1v15SHA256, message, nil))
        }
        SimulatedUser.with(.cancel) {
            var error: Unmanaged<CFError>?
            XCTAssertNil(SecKeyCreateSignature(key, .rsaSignatureMessagePKCS1v15SHA256, message, &error))
            XCTAssertEqual(error.map { CFErrorGetCode($0.takeRetainedValue()) }, Int(errSecUserCanceled))
            let ciphertext = SecKeyCreateEncryptedData(SecKeyCopyPublicKey(key)!, .rsaEncryptionOAEPSHA256, message, nil)!
            XCTAssertNil(SecKeyCreateDecryptedData(key, .rsaEncryptionOAEPSHA256, ciphertext, nil))
        }
    }

    /// The key-storage audit's record of the item names the access control with its flags.
    func testStoredItem_reportsTheAccessControlFlags() {
        let keychain = InMemoryKeychain()
        InMemoryKeychain.withKeychain(keychain) { XCTAssertEqual(addSecret([.biometryAny, .or, .devicePasscode]), errSecSuccess) }
        let item = keychain.storedItems.first
        XCTAssertEqual(item?.requested["kSecAttrAccessControl"], "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, biometryAny|devicePasscode|or")
        XCTAssertEqual(item?.accessible, "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly")
    }

    /// The environment variable `crosscheck run --app-user` sets picks the user in an app's process.
    func testSimulatedUser_comesFromTheEnvironmentByDefault() {
        XCTAssertEqual(SimulatedUser.environmentVariable, "CROSSCHECK_APP_USER")
        XCTAssertEqual(SimulatedUser.allCases.map(\.rawValue), ["present", "absent", "cancel"])
        XCTAssertEqual(SimulatedUser.with(.absent) { SimulatedUser.current }, .absent)
    }
}
