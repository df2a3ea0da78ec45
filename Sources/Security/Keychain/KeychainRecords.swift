import Foundation
public import StorageRecords

// What a key-storage audit reads from the in-memory keychain: every item with the attributes the
// app stored it with (by Apple's names, before defaults were filled in), and the private keys the
// app exported. On iOS the keychain belongs to the app's process; here an app's own process (the
// host crosscheck runs it in) may hold several InMemoryKeychains (a seed adapter keeps its own),
// so the audit reads all of them. Each item is a `KeychainItemRecord` (module StorageRecords, below
// Security and AppUnderTest: the same value AppHost carries out of the app's process and the audit reads).

extension InMemoryKeychain {
    /// This keychain's items, in the order they were added.
    public var storedItems: [KeychainItemRecord] {
        lock.lock(); defer { lock.unlock() }
        return items.map(Self.stored)
    }

    /// The items of every keychain this process made (the app's, in an app's own process).
    public static var everyStoredItem: [KeychainItemRecord] {
        registryLock.lock()
        registry.removeAll { $0.keychain == nil }
        let keychains = registry.compactMap(\.keychain)
        registryLock.unlock()
        return keychains.flatMap(\.storedItems)
    }

    /// The private keys this process exported with SecKeyCopyExternalRepresentation (the last 64).
    public static var exportedPrivateKeys: [Data] {
        registryLock.lock(); defer { registryLock.unlock() }
        return exported
    }

    static func recordExport(_ data: Data) {
        registryLock.lock(); defer { registryLock.unlock() }
        if !exported.contains(data) { exported.append(data) }
        if exported.count > 64 { exported.removeFirst(exported.count - 64) }
    }

    static func register(_ keychain: InMemoryKeychain) {
        registryLock.lock(); defer { registryLock.unlock() }
        registry.removeAll { $0.keychain == nil }
        registry.append(WeakKeychain(keychain))
    }

    private final class WeakKeychain {
        weak var keychain: InMemoryKeychain?
        init(_ keychain: InMemoryKeychain) { self.keychain = keychain }
    }

    private static let registryLock = NSLock()
    nonisolated(unsafe) private static var registry: [WeakKeychain] = []
    nonisolated(unsafe) private static var exported: [Data] = []

    static func stored(_ item: Item) -> KeychainItemRecord {
        var requested: [String: String] = [:]
        for (code, value) in item.attributes where item.requested.contains(code) {
            requested[AttributeName.byCode[code] ?? code] = AttributeName.text(code, value)
        }
        let accessible = item.attributes[kSecAttrAccessible as String].map { AttributeName.text(kSecAttrAccessible as String, $0) }
        return KeychainItemRecord(itemClass: AttributeName.classes[item.itemClass] ?? item.itemClass, requested: requested,
                          accessible: accessible ?? "kSecAttrAccessibleWhenUnlocked", value: item.data,
                          generatedPermanentKey: item.generatedPermanent,
                          isPrivateKey: item.attributes[kSecAttrKeyClass as String] == .string(kSecAttrKeyClassPrivate as String),
                          keyClass: item.attributes[kSecAttrKeyClass as String].map { AttributeName.text(kSecAttrKeyClass as String, $0) })
    }
}

/// Apple's constant names for the attribute codes and values an audit shows.
enum AttributeName {
    static let byCode: [String: String] = {
        let names: [(CFString, String)] = [
            (kSecAttrAccessible, "kSecAttrAccessible"), (kSecAttrAccessGroup, "kSecAttrAccessGroup"),
            (kSecAttrSynchronizable, "kSecAttrSynchronizable"), (kSecAttrDescription, "kSecAttrDescription"),
            (kSecAttrComment, "kSecAttrComment"), (kSecAttrCreator, "kSecAttrCreator"), (kSecAttrType, "kSecAttrKeyType"),
            (kSecAttrLabel, "kSecAttrLabel"), (kSecAttrAccount, "kSecAttrAccount"), (kSecAttrService, "kSecAttrService"),
            (kSecAttrGeneric, "kSecAttrGeneric"), (kSecAttrServer, "kSecAttrServer"), (kSecAttrKeyClass, "kSecAttrKeyClass"),
            (kSecAttrApplicationLabel, "kSecAttrApplicationLabel"), (kSecAttrApplicationTag, "kSecAttrApplicationTag"),
            (kSecAttrKeySizeInBits, "kSecAttrKeySizeInBits"), (kSecAttrIsExtractable, "kSecAttrIsExtractable"),
            (kSecAttrIsSensitive, "kSecAttrIsSensitive"), (kSecAttrTokenID, "kSecAttrTokenID"),
            (kSecAttrAccessControl, "kSecAttrAccessControl"),
        ]
        return Dictionary(names.map { ($0.0 as String, $0.1) }) { first, _ in first }
    }()

    static let classes: [String: String] = [
        kSecClassGenericPassword as String: "kSecClassGenericPassword", kSecClassInternetPassword as String: "kSecClassInternetPassword",
        kSecClassCertificate as String: "kSecClassCertificate", kSecClassKey as String: "kSecClassKey", kSecClassIdentity as String: "kSecClassIdentity",
    ]

    static let keyClasses: [String: String] = [
        kSecAttrKeyClassPublic as String: "kSecAttrKeyClassPublic", kSecAttrKeyClassPrivate as String: "kSecAttrKeyClassPrivate",
        kSecAttrKeyClassSymmetric as String: "kSecAttrKeyClassSymmetric",
    ]

    static func text(_ code: String, _ value: InMemoryKeychain.Value) -> String {
        switch value {
        case let .string(text):
            if code == kSecAttrAccessible as String { return AccessibilityName.byValue[text] ?? text }
            if code == kSecAttrKeyClass as String { return keyClasses[text] ?? text }
            if code == kSecAttrType as String, text == kSecAttrKeyTypeRSA as String { return "kSecAttrKeyTypeRSA" }
            return text
        case let .data(data):
            if let text = String(data: data, encoding: .utf8), text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) { return text }
            return data.map { String(format: "%02x", $0) }.joined()
        case let .number(number): return String(number)
        case let .bool(flag): return flag ? "true" : "false"
        case let .date(date): return ISO8601DateFormatter().string(from: date)
        case let .accessControl(control): return control.auditText
        }
    }
}
