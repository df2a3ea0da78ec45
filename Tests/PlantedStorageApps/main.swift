// Apps for the key-storage audit's tests, written against Apple's API (crosscheck's Security and
// Foundation) as a team would, each keeping its key somewhere: one by the book and planted
// flaws, each of which the audit must flag at its place and nowhere else. Deliberately wrong
// where marked PLANTED. `planted-storage-apps NAME` serves one over the host protocol, as
// crosscheck's generated host serves a team's app (Tests/AppChecksTests/KeyStorageAuditTests.swift
// runs them in containers of their own).
import Foundation
import Security
import LocalAuthentication
import AppHost
import AppUnderTest

/// Keeps keys through `keep`/`fetch`; the subclasses differ only in where.
class StorageApp: AppUnderTest, SymmetricKeyStorage {
    let identifier: String
    let summary: String
    init(_ identifier: String, _ summary: String) { self.identifier = identifier; self.summary = summary }

    func storeKey(_ key: Data, tag: String) throws { try keep(key, tag: tag) }
    func readKey(tag: String) throws -> Data { try fetch(tag: tag) }
    func keep(_ key: Data, tag: String) throws { fatalError("a subclass keeps keys") }
    func fetch(tag: String) throws -> Data { fatalError("a subclass reads keys") }
}

/// A keychain item for the key, with the accessibility each app chooses (nil: none given).
func keychainStore(_ key: Data, tag: String, accessible: CFString?) throws {
    let match: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag]
    SecItemDelete(match as CFDictionary)
    var add = match
    add[kSecValueData as String] = key
    if let accessible { add[kSecAttrAccessible as String] = accessible }
    let status = SecItemAdd(add as CFDictionary, nil)
    guard status == errSecSuccess else { throw AppFailure("store", "SecItemAdd returned \(status)") }
}

func keychainRead(tag: String) throws -> Data {
    let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnData as String: true]
    var item: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &item)
    guard status == errSecSuccess, let data = item as? Data else { throw AppFailure("read", "SecItemCopyMatching returned \(status)") }
    return data
}

/// By the book: the keychain, kSecAttrAccessibleWhenUnlockedThisDeviceOnly.
final class TextbookStorage: StorageApp {
    override func keep(_ key: Data, tag: String) throws { try keychainStore(key, tag: tag, accessible: kSecAttrAccessibleWhenUnlockedThisDeviceOnly) }
    override func fetch(tag: String) throws -> Data { try keychainRead(tag: tag) }
}

/// PLANTED: the key as a file in Documents.
final class DocumentsFileStorage: StorageApp {
    func file(_ tag: String) -> URL {
        FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0].appendingPathComponent("\(tag).key")
    }
    override func keep(_ key: Data, tag: String) throws { try key.write(to: file(tag)) }
    override func fetch(tag: String) throws -> Data { try Data(contentsOf: file(tag)) }
}

/// PLANTED: the key as base64 in UserDefaults (seed 004's way).
final class DefaultsStorage: StorageApp {
    override func keep(_ key: Data, tag: String) throws { UserDefaults.standard.set(key.base64EncodedString(), forKey: "key.\(tag)") }
    override func fetch(tag: String) throws -> Data {
        guard let text = UserDefaults.standard.string(forKey: "key.\(tag)"), let key = Data(base64Encoded: text) else {
            throw AppFailure("read", "no key \(tag) in UserDefaults")
        }
        return key
    }
}

/// PLANTED: the keychain done right, but the key printed as hex "for debugging".
final class PrintingStorage: StorageApp {
    override func keep(_ key: Data, tag: String) throws {
        try keychainStore(key, tag: tag, accessible: kSecAttrAccessibleWhenUnlockedThisDeviceOnly)
        print("stored key for \(tag): \(key.map { String(format: "%02x", $0) }.joined())")
    }
    override func fetch(tag: String) throws -> Data { try keychainRead(tag: tag) }
}

/// PLANTED: the keychain as kSecAttrAccessibleAfterFirstUnlock (into backups, onto other devices).
final class AfterFirstUnlockStorage: StorageApp {
    override func keep(_ key: Data, tag: String) throws { try keychainStore(key, tag: tag, accessible: kSecAttrAccessibleAfterFirstUnlock) }
    override func fetch(tag: String) throws -> Data { try keychainRead(tag: tag) }
}

/// PLANTED: the keychain as kSecAttrAccessibleAlways, as an app written before iOS 12 does.
final class AlwaysStorage: StorageApp, LegacyKeychainStore {
    // Deprecated like the constant it uses (this package builds with -warnings-as-errors; a team's
    // app sees the warning), and called through a protocol so the warning stays here.
    @available(*, deprecated, message: "PLANTED: kSecAttrAccessibleAlways")
    func storeAlways(_ key: Data, tag: String) throws { try keychainStore(key, tag: tag, accessible: kSecAttrAccessibleAlways) }
    override func keep(_ key: Data, tag: String) throws { try (self as LegacyKeychainStore).storeAlways(key, tag: tag) }
    override func fetch(tag: String) throws -> Data { try keychainRead(tag: tag) }
}

protocol LegacyKeychainStore { func storeAlways(_ key: Data, tag: String) throws }

/// PLANTED: an RSA private key made permanent without a tag, and exported to Caches "as a backup".
final class UntaggedPermanentKey: AppUnderTest, RSAOwnKeyEncryption {
    let identifier = "planted-untagged-permanent-key"
    let summary = "tests: SecKeyCreateRandomKey with kSecAttrIsPermanent and no tag, its export written to Caches (PLANTED)"
    let rsaPadding = "oaep-sha256"

    func encryptWithNewKey(_ plaintext: Data) throws -> (ciphertext: Data, privateKeyPKCS1DER: Data) {
        var error: Unmanaged<CFError>?
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048,
                                         kSecAttrIsPermanent as String: true]
        guard let privateKey = SecKeyCreateRandomKey(attributes as CFDictionary, &error), let publicKey = SecKeyCopyPublicKey(privateKey),
              let ciphertext = SecKeyCreateEncryptedData(publicKey, .rsaEncryptionOAEPSHA256, plaintext as CFData, &error) as Data?,
              let exported = SecKeyCopyExternalRepresentation(privateKey, &error) as Data? else {
            throw AppFailure("encrypt", "\(String(describing: error?.takeRetainedValue()))")
        }
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
        try FileManager.default.createDirectory(at: caches, withIntermediateDirectories: true)
        try exported.base64EncodedString(options: .lineLength64Characters).write(to: caches.appendingPathComponent("rsa-backup.txt"), atomically: true, encoding: .utf8)
        return (ciphertext, exported)
    }
}

/// A password per account as a generic password (kSecAttrService + kSecAttrAccount), by the book:
/// WhenUnlockedThisDeviceOnly, SecItemUpdate on errSecDuplicateItem, nil for errSecItemNotFound.
class KeychainPasswords: AppUnderTest, PasswordStore {
    let identifier: String
    let summary: String
    let passwordItemClass = "generic"
    let passwordOnDuplicate = "replaces"
    let passwordOnMissing = "nil"
    init(_ identifier: String, _ summary: String) { self.identifier = identifier; self.summary = summary }

    func query(_ account: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "com.example.door", kSecAttrAccount as String: account]
    }

    func savePassword(_ password: String, account: String) throws {
        var add = query(account)
        add[kSecValueData as String] = Data(password.utf8)
        add[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        let status = SecItemAdd(add as CFDictionary, nil)
        if status == errSecDuplicateItem { return try updatePassword(password, account: account) }
        guard status == errSecSuccess else { throw AppFailure("save", "SecItemAdd returned \(status)") }
    }

    func readPassword(account: String) throws -> String? {
        var search = query(account)
        search[kSecReturnData as String] = kCFBooleanTrue
        var item: CFTypeRef?
        let status = SecItemCopyMatching(search as CFDictionary, &item)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = item as? Data else { throw AppFailure("read", "SecItemCopyMatching returned \(status)") }
        return String(decoding: data, as: UTF8.self)
    }

    func updatePassword(_ password: String, account: String) throws {
        let status = SecItemUpdate(query(account) as CFDictionary, [kSecValueData as String: Data(password.utf8)] as CFDictionary)
        guard status == errSecSuccess else { throw AppFailure("update", "SecItemUpdate returned \(status)") }
    }

    func deletePassword(account: String) throws {
        let status = SecItemDelete(query(account) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw AppFailure("delete", "SecItemDelete returned \(status)") }
    }
}

/// PLANTED: update's query names another service, so SecItemUpdate matches nothing, and the
/// errSecItemNotFound it returns is ignored.
final class UpdateDoesNothingPasswords: KeychainPasswords {
    override func updatePassword(_ password: String, account: String) throws {
        var wrong = query(account)
        wrong[kSecAttrService as String] = "com.example.door.settings"
        _ = SecItemUpdate(wrong as CFDictionary, [kSecValueData as String: Data(password.utf8)] as CFDictionary)
    }
}

/// PLANTED: says it keeps generic passwords in the keychain, keeps them in UserDefaults.
final class DefaultsPasswords: KeychainPasswords {
    override func savePassword(_ password: String, account: String) throws { UserDefaults.standard.set(password, forKey: "password.\(account)") }
    override func readPassword(account: String) throws -> String? { UserDefaults.standard.string(forKey: "password.\(account)") }
    override func updatePassword(_ password: String, account: String) throws { try savePassword(password, account: account) }
    override func deletePassword(account: String) throws { UserDefaults.standard.removeObject(forKey: "password.\(account)") }
}

/// Keeps a secret behind the user, as Apple's "Restricting keychain item accessibility" shows:
/// kSecAttrAccessControl with the flags it declares. The subclasses plant one flaw each.
class ProtectedStorage: AppUnderTest, ProtectedSecretStorage {
    let identifier: String
    let summary: String
    let declaredAccessControl = ["biometryCurrentSet", "or", "devicePasscode"]
    let protection: CFString
    init(_ identifier: String, _ summary: String, protection: CFString = kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly) {
        self.identifier = identifier; self.summary = summary; self.protection = protection
    }

    func query(_ name: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "planted", kSecAttrAccount as String: name]
    }

    func storeProtectedSecret(_ secret: Data, name: String) throws {
        SecItemDelete(query(name) as CFDictionary)
        var error: Unmanaged<CFError>?
        guard let control = SecAccessControlCreateWithFlags(nil, protection,
                                                            [.biometryCurrentSet, .or, .devicePasscode], &error) else {
            throw AppFailure("store", "SecAccessControlCreateWithFlags: \(String(describing: error?.takeRetainedValue()))")
        }
        var add = query(name)
        add[kSecAttrAccessControl as String] = control
        add[kSecValueData as String] = secret
        let status = SecItemAdd(add as CFDictionary, nil)
        guard status == errSecSuccess else { throw AppFailure("store", "SecItemAdd returned \(status)") }
    }

    func readProtectedSecret(name: String) throws -> Data {
        var read = query(name)
        read[kSecReturnData as String] = true
        read[kSecUseOperationPrompt as String] = "Unlock your secret"
        var item: CFTypeRef?
        let status = SecItemCopyMatching(read as CFDictionary, &item)
        guard status == errSecSuccess, let data = item as? Data else { throw AppFailure("read", "SecItemCopyMatching returned \(status)") }
        return data
    }
}

/// PLANTED: declares biometry-or-passcode but stores the secret with a plain accessibility class.
final class FlagIgnoredStorage: ProtectedStorage {
    override func storeProtectedSecret(_ secret: Data, name: String) throws {
        SecItemDelete(query(name) as CFDictionary)
        var add = query(name)
        add[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        add[kSecValueData as String] = secret
        let status = SecItemAdd(add as CFDictionary, nil)
        guard status == errSecSuccess else { throw AppFailure("store", "SecItemAdd returned \(status)") }
    }
}

/// PLANTED: keeps the secret in a plain item and asks LAContext.evaluatePolicy before reading it:
/// event-bound authentication, the only gate a hooked evaluatePolicy opens.
final class EvaluatePolicyGateStorage: ProtectedStorage {
    override func storeProtectedSecret(_ secret: Data, name: String) throws {
        SecItemDelete(query(name) as CFDictionary)
        var add = query(name)
        add[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        add[kSecValueData as String] = secret
        let status = SecItemAdd(add as CFDictionary, nil)
        guard status == errSecSuccess else { throw AppFailure("store", "SecItemAdd returned \(status)") }
    }
    override func readProtectedSecret(name: String) throws -> Data {
        let context = LAContext()
        let done = DispatchSemaphore(value: 0)
        let answer = Answer()
        context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Unlock your secret") { success, _ in
            answer.set(success)
            done.signal()
        }
        done.wait()
        guard answer.value else { throw AppFailure("read", "the user did not authenticate") }
        var read = query(name)
        read[kSecReturnData as String] = true
        var item: CFTypeRef?
        let status = SecItemCopyMatching(read as CFDictionary, &item)
        guard status == errSecSuccess, let data = item as? Data else { throw AppFailure("read", "SecItemCopyMatching returned \(status)") }
        return data
    }

    final class Answer: @unchecked Sendable {
        private let lock = NSLock()
        private var success = false
        func set(_ value: Bool) { lock.withLock { success = value } }
        var value: Bool { lock.withLock { success } }
    }
}

/// PLANTED: stores it right, but when the user cancels it falls back to a copy kept "for convenience".
final class CancelFallbackStorage: ProtectedStorage {
    var copies: [String: Data] = [:]
    override func storeProtectedSecret(_ secret: Data, name: String) throws {
        try super.storeProtectedSecret(secret, name: name)
        copies[name] = secret
    }
    override func readProtectedSecret(name: String) throws -> Data {
        do { return try super.readProtectedSecret(name: name) } catch {
            if let copy = copies[name] { return copy }
            throw error
        }
    }
}

/// PLANTED: wraps the secret with ECIES to a Secure Enclave key, then "backs up" the enclave's
/// private key to UserDefaults, which no device allows: SecKeyCopyExternalRepresentation fails.
final class EnclaveExportStorage: ProtectedStorage {
    override func storeProtectedSecret(_ secret: Data, name: String) throws {
        let control = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.privateKeyUsage, .biometryCurrentSet], nil)!
        let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                                         kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
                                         kSecPrivateKeyAttrs as String: [kSecAttrAccessControl as String: control]]
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error) else {
            throw AppFailure("store", "SecKeyCreateRandomKey: \(String(describing: error?.takeRetainedValue()))")
        }
        guard let backup = SecKeyCopyExternalRepresentation(key, &error) as Data? else {
            throw AppFailure("store", "SecKeyCopyExternalRepresentation failed: \(error!.takeRetainedValue())")
        }
        UserDefaults.standard.set(backup.base64EncodedString(), forKey: "enclave-backup")
        try super.storeProtectedSecret(secret, name: name)
    }
}

/// PLANTED: the key in UserDefaults as an array of byte values (`Array(key)`), not a string.
final class DefaultsByteArrayStorage: StorageApp {
    override func keep(_ key: Data, tag: String) throws { UserDefaults.standard.set(key.map { Int($0) }, forKey: "bytes.\(tag)") }
    override func fetch(tag: String) throws -> Data {
        guard let list = UserDefaults.standard.array(forKey: "bytes.\(tag)") as? [Int] else { throw AppFailure("read", "no key \(tag) in UserDefaults") }
        return Data(list.map { UInt8($0) })
    }
}

/// PLANTED: the key in UserDefaults as NSData's description prints it on iOS: `<0a1b2c3d 4e5f…>`.
final class DefaultsSpacedHexStorage: StorageApp {
    override func keep(_ key: Data, tag: String) throws {
        let groups = stride(from: 0, to: key.count, by: 4).map { key[$0..<min($0 + 4, key.count)].map { String(format: "%02x", $0) }.joined() }
        UserDefaults.standard.set("<" + groups.joined(separator: " ") + ">", forKey: "described.\(tag)")
        try keychainStore(key, tag: tag, accessible: kSecAttrAccessibleWhenUnlockedThisDeviceOnly)
    }
    override func fetch(tag: String) throws -> Data { try keychainRead(tag: tag) }
}

/// PLANTED: the key in the keychain with kSecAttrSynchronizable (iCloud Keychain), as
/// kSecAttrAccessibleWhenUnlocked: a ThisDeviceOnly class is refused for a synchronizable item.
final class SynchronizableStorage: StorageApp {
    override func keep(_ key: Data, tag: String) throws {
        let match: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecAttrSynchronizable as String: true]
        SecItemDelete(match as CFDictionary)
        var add = match
        add[kSecValueData as String] = key
        add[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlocked
        let status = SecItemAdd(add as CFDictionary, nil)
        guard status == errSecSuccess else { throw AppFailure("store", "SecItemAdd returned \(status)") }
    }
    override func fetch(tag: String) throws -> Data {
        let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecAttrSynchronizable as String: true,
                                    kSecReturnData as String: true]
        var item: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &item)
        guard status == errSecSuccess, let data = item as? Data else { throw AppFailure("read", "SecItemCopyMatching returned \(status)") }
        return data
    }
}

/// By the book, with a public key beside it: the symmetric key ThisDeviceOnly, and an EC public
/// key (not a secret) added as kSecAttrAccessibleWhenUnlocked — nothing to flag.
final class PublicKeyBesideStorage: StorageApp {
    override func keep(_ key: Data, tag: String) throws {
        try keychainStore(key, tag: tag, accessible: kSecAttrAccessibleWhenUnlockedThisDeviceOnly)
        var error: Unmanaged<CFError>?
        let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]
        guard let privateKey = SecKeyCreateRandomKey(parameters as CFDictionary, &error), let publicKey = SecKeyCopyPublicKey(privateKey) else {
            throw AppFailure("store", "SecKeyCreateRandomKey failed")
        }
        let add: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag + ".public", kSecValueRef as String: publicKey,
                                  kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked]
        let status = SecItemAdd(add as CFDictionary, nil)
        guard status == errSecSuccess else { throw AppFailure("store", "SecItemAdd of the public key returned \(status)") }
    }
    override func fetch(tag: String) throws -> Data { try keychainRead(tag: tag) }
}

/// PLANTED: its file-sealing key is a base64 literal in its code (so in its executable).
final class HardCodedKey: AppUnderTest, FileSealing {
    let identifier = "planted-hard-coded-key"
    let summary = "tests: the file-sealing key is a base64 string literal in the code (PLANTED)"
    let aeadAlgorithm = "aes-gcm"
    static let literal = "q3tE0bTgV1cD9mZs8XwR2kLpYfHn6JuA4oCiGeNvQ5M="
    func currentKey() throws -> Data { Data(base64Encoded: Self.literal)! }
    func sealFile(at source: URL, to destination: URL) throws { throw AppFailure("seal", "not part of this planted app") }
    func openFile(at source: URL, to destination: URL) throws { throw AppFailure("open", "not part of this planted app") }
}

let apps: [String: () -> AppUnderTest] = [
    "planted-enclave-export": { EnclaveExportStorage("planted-enclave-export", "tests: exports its Secure Enclave key to UserDefaults (PLANTED)") },
    "protected-textbook": { ProtectedStorage("protected-textbook", "tests: a secret behind biometry or passcode (kSecAttrAccessControl)") },
    "planted-flag-ignored": { FlagIgnoredStorage("planted-flag-ignored", "tests: declares biometryCurrentSet|or|devicePasscode, stores without kSecAttrAccessControl (PLANTED)") },
    "planted-protected-after-first-unlock": {
        ProtectedStorage("planted-protected-after-first-unlock", "tests: behind biometry or passcode, but AfterFirstUnlock (PLANTED)", protection: kSecAttrAccessibleAfterFirstUnlock)
    },
    "planted-hard-coded-key": { HardCodedKey() },
    "planted-evaluate-policy-gate": { EvaluatePolicyGateStorage("planted-evaluate-policy-gate", "tests: a plain item behind LAContext.evaluatePolicy alone (PLANTED)") },
    "planted-cancel-fallback": { CancelFallbackStorage("planted-cancel-fallback", "tests: hands out a kept copy when the user cancels (PLANTED)") },
    "textbook-storage": { TextbookStorage("textbook-storage", "tests: keys in the keychain, WhenUnlockedThisDeviceOnly") },
    "planted-documents-file": { DocumentsFileStorage("planted-documents-file", "tests: the key as a file in Documents (PLANTED)") },
    "planted-user-defaults": { DefaultsStorage("planted-user-defaults", "tests: the key as base64 in UserDefaults (PLANTED)") },
    "planted-printed-key": { PrintingStorage("planted-printed-key", "tests: the key printed as hex (PLANTED)") },
    "planted-after-first-unlock": { AfterFirstUnlockStorage("planted-after-first-unlock", "tests: keychain AfterFirstUnlock (PLANTED)") },
    "planted-always": { AlwaysStorage("planted-always", "tests: keychain Always (PLANTED)") },
    "planted-defaults-byte-array": { DefaultsByteArrayStorage("planted-defaults-byte-array", "tests: the key in UserDefaults as an array of byte values (PLANTED)") },
    "planted-defaults-spaced-hex": { DefaultsSpacedHexStorage("planted-defaults-spaced-hex", "tests: the key in UserDefaults as NSData's description, <0a1b2c3d …> (PLANTED)") },
    "planted-synchronizable": { SynchronizableStorage("planted-synchronizable", "tests: the key in the keychain with kSecAttrSynchronizable (PLANTED)") },
    "public-key-beside": { PublicKeyBesideStorage("public-key-beside", "tests: keys ThisDeviceOnly, a public key WhenUnlocked beside them") },
    "planted-untagged-permanent-key": { UntaggedPermanentKey() },
    "textbook-password-store": { KeychainPasswords("textbook-password-store", "tests: generic passwords in the keychain, WhenUnlockedThisDeviceOnly") },
    "planted-update-does-nothing": { UpdateDoesNothingPasswords("planted-update-does-nothing", "tests: an update that matches no item (PLANTED)") },
    "planted-password-in-defaults": { DefaultsPasswords("planted-password-in-defaults", "tests: passwords in UserDefaults, declared as the keychain (PLANTED)") },
]

guard CommandLine.arguments.count == 2, let make = apps[CommandLine.arguments[1]] else {
    FileHandle.standardError.write(Data("usage: planted-storage-apps \(apps.keys.sorted().joined(separator: "|"))\n".utf8))
    exit(64)
}
AppHostServer.main(make())
