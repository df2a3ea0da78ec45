// StorageRecords — what an app's process records about where it keeps things, as plain values both
// sides of the app boundary share: Security's in-memory keychain writes a `KeychainItemRecord` for
// each item an app stores (`InMemoryKeychain.storedItems`), AppHost carries it out of the app's
// process, and AppUnderTest's `StorageFacts` hands it to the key-storage audit (AppChecks). One type,
// below both Security (layer 2) and AppUnderTest (layer 4), so neither depends on the other.
// May import: Foundation only.
import Foundation

/// One keychain item as the app stored it, as its process reports it.
public struct KeychainItemRecord: Equatable, Sendable {
    /// Apple's name of the class ("kSecClassKey").
    public let itemClass: String
    /// The attributes the app passed, by Apple's names, values as Apple's names where they are
    /// constants ("kSecAttrAccessible": "kSecAttrAccessibleAfterFirstUnlock"), blobs as UTF-8 text or
    /// hex (before the keychain filled in defaults).
    public let requested: [String: String]
    /// The item's accessibility: the app's, or the keychain's default (kSecAttrAccessibleWhenUnlocked).
    public let accessible: String
    /// The bytes it holds: kSecValueData, or the key's external representation.
    public let value: Data?
    /// Made by SecKeyCreateRandomKey because the app asked for kSecAttrIsPermanent.
    public let generatedPermanentKey: Bool
    /// kSecAttrKeyClassPrivate, for keys.
    public let isPrivateKey: Bool
    /// The key's class by Apple's name ("kSecAttrKeyClassPublic"), given or derived from the key;
    /// nil for items that are not keys or whose class is unknown (raw key bytes).
    public let keyClass: String?

    public init(itemClass: String, requested: [String: String], accessible: String, value: Data?, generatedPermanentKey: Bool, isPrivateKey: Bool,
                keyClass: String? = nil) {
        self.itemClass = itemClass; self.requested = requested; self.accessible = accessible; self.value = value
        self.generatedPermanentKey = generatedPermanentKey; self.isPrivateKey = isPrivateKey
        self.keyClass = keyClass ?? (isPrivateKey ? "kSecAttrKeyClassPrivate" : nil)
    }
}
