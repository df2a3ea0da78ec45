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

/// What an app's Security calls did that its own return values hide: today, a PKCS#1 v1.5
/// `SecKeyCreateDecryptedData` whose padding did not check and which, as iOS does from 17.4, answered
/// a synthetic message (implicit rejection) the app cannot tell from a real one. Security counts
/// each in this process and, in an app's own process, appends a line to the file the container
/// names (`environmentVariable`), where a check reads it after the app ran (AppChecks).
public enum SecurityEventLog {
    /// Set by AppContainer's environment for the app's process: the file the events go to.
    public static let environmentVariable = "CROSSCHECK_SECURITY_EVENTS"
    public static let implicitRejectionLine = "implicit-rejection"

    private static let lock = NSLock()
    nonisolated(unsafe) private static var implicitRejections = 0

    /// How many implicit rejections this process has answered so far.
    public static var implicitRejectionCount: Int { lock.lock(); defer { lock.unlock() }; return implicitRejections }

    /// Records one (Security calls it).
    public static func recordImplicitRejection(environment: [String: String] = ProcessInfo.processInfo.environment) {
        lock.lock(); defer { lock.unlock() }
        implicitRejections += 1
        guard let path = environment[environmentVariable], let handle = FileHandle(forWritingAtPath: path) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data((implicitRejectionLine + "\n").utf8))
    }

    /// The implicit rejections written to `file` after its first `offset` bytes.
    public static func implicitRejections(in file: URL, after offset: UInt64) -> Int {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return 0 }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.readToEnd() else { return 0 }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").filter { $0 == implicitRejectionLine }.count
    }
}
