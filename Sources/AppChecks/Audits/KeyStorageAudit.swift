// The key-storage audit: after an app's checks, where did its keys end up? Seed 003 is a mobile
// security scanner's finding ("use of file-based key storage", severity low): an encryption key
// must not be kept where anyone with the device's files can read it, but in the Keychain with
// kSecAttrAccessibleWhenUnlockedThisDeviceOnly. For an app in a container of its own
// (`KeyStorageInspection`: every app `crosscheck run` checks), the audit first exercises the app's
// key-handling capabilities once, then reads the app's UserDefaults, files and console for every
// key that crossed between crosscheck and the app (raw, base64, hex), and its keychain items for
// how each key was stored. One testcase per place, `<app>.key-storage.<where>` in `audit.<app>`,
// like `remote`'s audit: skipped "weakness: …" when something is found, passed when clean, failed
// with `crosscheck run --strict` (`KeyStorageAudit.strict`).
import Foundation
import AppUnderTest
import Conformance
import StrictFormats

public enum KeyStorageAudit {
    public static let suiteName = "audit"
    public static let classname = "crosscheck.audit.key-storage"
    static let weakness = "weakness: "

    /// Seed 003's finding, as each key-material finding names it.
    static let seed003 = "seed 003's finding \"use of file-based key storage\" (Использование файлового хранилища ключей, severity low): keep the key in the Keychain with kSecAttrAccessibleWhenUnlockedThisDeviceOnly"

    /// The places, in the order their testcases run.
    enum Place: String, CaseIterable {
        case userDefaults = "user-defaults"
        case files
        case console
        case keychainAccessibility = "keychain-accessibility"
        case permanentKeys = "permanent-keys"
        /// Hard-coded keys in what the app ships (only when its container knows its bundle).
        case bundle
    }

    public static func checks(_ context: SuiteContext, apps: [AppSubject]) -> [Check] {
        apps.filter { $0.has((any KeyStorageInspection).self) }.flatMap { app in
            let evidence = Evidence(app, context)
            let bundle = (try? app.with((any KeyStorageInspection).self) { $0.container.bundle }) ?? []
            return Place.allCases.filter { $0 != .bundle || !bundle.isEmpty }.map { place in
                Check(suite: "\(suiteName).\(app.identifier)", classname: classname, name: "\(app.identifier).key-storage.\(place.rawValue)") {
                    let findings = try evidence.findings(place)
                    return findings.isEmpty ? .passed : .skipped(reason: weakness + findings.joined(separator: "; "))
                }
            }
        }
    }

    /// `--strict`: an audit finding fails the run instead of being reported as a skip.
    public static func strict(_ result: CheckResult) -> CheckResult {
        guard result.check.classname == classname, case let .skipped(reason) = result.outcome, reason.hasPrefix(weakness) else { return result }
        return CheckResult(check: result.check, outcome: .failed(message: "weakness (--strict): " + reason.dropFirst(weakness.count), details: ""),
                           duration: result.duration)
    }

    /// What the app's container, console and keychain hold, gathered once per app by the first
    /// of its audit testcases to run.
    final class Evidence: @unchecked Sendable {
        let app: AppSubject
        let context: SuiteContext
        private let lock = NSLock()
        private var gathered: Result<Gathered, Error>?

        init(_ app: AppSubject, _ context: SuiteContext) { self.app = app; self.context = context }

        func findings(_ place: Place) throws -> [String] {
            let result: Result<Gathered, Error> = lock.withLock {
                if let gathered { return gathered }
                let fresh = Result { try gather() }
                gathered = fresh
                return fresh
            }
            return try result.get().findings[place] ?? []
        }

        private func gather() throws -> Gathered {
            try exercise()
            let (container, crossed, facts) = try app.with((any KeyStorageInspection).self) { inspection in
                (inspection.container, inspection.keyMaterial, try inspection.storageFacts())
            }
            var keys = crossed
            for exported in facts.exportedPrivateKeys where !keys.contains(where: { $0.bytes == exported }) {
                keys.append(KeyMaterial(exported, "a private key the app exported (SecKeyCopyExternalRepresentation)"))
            }
            return Gathered(container: container, keys: KeyFinder(keys), facts: facts)
        }

        /// Each key-handling capability once, so the audit has keys to look for even when it runs alone.
        /// The app's refusals are left to the other suites; an app that cannot be asked is an error.
        private func exercise() throws {
            let id = app.identifier
            func attempt(_ step: () throws -> Void) throws {
                do { try step() } catch let unreachable as AppUnreachable { throw unreachable } catch {}
            }
            if app.has(SymmetricKeyStorage.self) {
                let key = context.bytes(32, for: "\(id).audit.keychain")
                try attempt { _ = try app.with(SymmetricKeyStorage.self) { try $0.storeKey(key, tag: "crosscheck.audit.key-storage"); return try $0.readKey(tag: "crosscheck.audit.key-storage") } }
            }
            if app.has(FileSealing.self) { try attempt { _ = try app.with(FileSealing.self) { try $0.currentKey() } } }
            if app.has(RSAOwnKeyEncryption.self) {
                try attempt { _ = try app.with(RSAOwnKeyEncryption.self) { try $0.encryptWithNewKey(Data("crosscheck key-storage audit".utf8)) } }
            }
            if app.has(PasswordStore.self) {
                let password = "crosscheck-audit-" + context.bytes(12, for: "\(id).audit.password").hexString
                try attempt { try app.with(PasswordStore.self) { try $0.savePassword(password, account: "crosscheck.audit@example.com") } }
            }
            if let fixed = app.read(AEADSealing.self, \.fixedPlaintext) {
                let key = context.bytes(32, for: "\(id).audit.aead")
                try attempt { _ = try app.with(AEADSealing.self) { try $0.seal(fixed ?? Data("crosscheck key-storage audit".utf8), key: key) } }
            }
        }
    }

    struct Gathered {
        var findings: [Place: [String]] = [:]

        init(container: AppContainer, keys: KeyFinder, facts: StorageFacts) {
            var readAsDefaults = Set<String>()
            // UserDefaults: the plists in Library/Preferences, key by key.
            for file in Self.files(under: container.preferences) where file.pathExtension == "plist" {
                guard let data = FileManager.default.contents(atPath: file.path),
                      let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else { continue }
                readAsDefaults.insert(file.path)
                for (name, value) in plist.sorted(by: { $0.key < $1.key }) {
                    for hit in Self.leaves(of: value).flatMap({ keys.hits($0) }) {
                        add(.userDefaults, "UserDefaults key \"\(name)\" (\(container.relativePath(file))) holds \(hit.key.what) as \(hit.form)", hit)
                    }
                }
            }
            // Every other file of the container.
            for file in Self.files(under: container.home) where !readAsDefaults.contains(file.path) {
                guard let data = FileManager.default.contents(atPath: file.path) else { continue }
                for hit in keys.hits(data) {
                    add(.files, "the file \(container.relativePath(file)) holds \(hit.key.what) as \(hit.form)", hit)
                }
            }
            // What the app printed.
            if let printed = FileManager.default.contents(atPath: container.console.path) {
                let lines = printed.split(separator: 0x0A, omittingEmptySubsequences: false)
                for (index, line) in lines.enumerated() {
                    for hit in keys.hits(Data(line)) {
                        add(.console, "the app printed \(hit.key.what) as \(hit.form) (\(container.console.path) line \(index + 1))", hit)
                    }
                }
            }
            for place in [Place.userDefaults, .files] where findings[place] != nil { findings[place]!.append(seed003) }
            // A printed key is fixed by not printing it, not by where it is kept (MASVS-STORAGE-2,
            // MASTG "Testing Logs for Sensitive Data": logs are readable by whoever gets the device's logs).
            if findings[.console] != nil { findings[.console]!.append(Self.dontLog) }
            checkKeychain(facts, keys)
            // What the app ships: a key that crossed and is also in the bundle was hard-coded.
            for root in container.bundle {
                let files = (try? root.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true ? Self.files(under: root) : [root]
                for file in files {
                    let name = file.path.hasPrefix(root.path + "/") ? String(file.path.dropFirst(root.path.count + 1)) : file.lastPathComponent
                    // Hidden folders inside the bundle (.git, .build) are not what the app ships.
                    if name.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
                    guard let data = FileManager.default.contents(atPath: file.path) else { continue }
                    for hit in keys.hits(data, large: data.count > 1 << 22) {
                        let finding = "the app's \(file == root ? "executable" : "bundle file") \(name) holds \(hit.key.what) as \(hit.form): a hard-coded key (MASTG-TEST-0213/0214) is anyone's who has the app"
                        if !(findings[.bundle] ?? []).contains(finding) { findings[.bundle, default: []].append(finding) }
                    }
                }
            }
            if findings[.bundle] != nil {
                findings[.bundle]!.append("generate the key on the device (SecKeyCreateRandomKey, SymmetricKey) and keep it in the Keychain, or get it from the server at run time")
            }
        }

        private mutating func add(_ place: Place, _ finding: String, _ hit: KeyFinder.Hit) {
            if !(findings[place] ?? []).contains(finding) { findings[place, default: []].append(finding) }
            if hit.key.what.contains("private key") {
                let written = "a private key left the keychain and was written down: \(finding)"
                if !(findings[.permanentKeys] ?? []).contains(written) { findings[.permanentKeys, default: []].append(written) }
            }
        }

        static let dontLog = "don't log key material: remove the print/NSLog/os_log of it (MASVS-STORAGE-2; MASTG \"Testing Logs for Sensitive Data\"); the device's logs are readable by whoever gets them"

        /// What the accessibility rules judge (MASVS-STORAGE-1: sensitive data): private and
        /// symmetric keys, raw key bytes, passwords and any value that is a key that crossed —
        /// never a public key, which is not a secret.
        static func holdsSecret(_ item: KeychainItemRecord, _ keys: KeyFinder) -> Bool {
            if item.keyClass == "kSecAttrKeyClassPublic" { return false }
            if item.value.map({ value in keys.keys.contains { $0.bytes == value } }) == true { return true }
            return ["kSecClassKey", "kSecClassGenericPassword", "kSecClassInternetPassword"].contains(item.itemClass)
        }

        private mutating func checkKeychain(_ facts: StorageFacts, _ keys: KeyFinder) {
            for item in facts.keychainItems {
                guard Self.holdsSecret(item, keys) else { continue }
                let name = Self.describe(item)
                for problem in [Self.accessibilityProblem(item), Self.synchronizableProblem(item)].compactMap({ $0 }) {
                    let finding = "\(name): \(problem)"
                    if !(findings[.keychainAccessibility] ?? []).contains(finding) { findings[.keychainAccessibility, default: []].append(finding) }
                }
                if item.generatedPermanentKey, item.isPrivateKey, item.requested["kSecAttrApplicationTag"] == nil {
                    let finding = "\(name): a private key made permanent (kSecAttrIsPermanent) without kSecAttrApplicationTag: the app cannot find it again by its tag, so each run leaves another key in the keychain"
                    if !(findings[.permanentKeys] ?? []).contains(finding) { findings[.permanentKeys, default: []].append(finding) }
                }
            }
        }

        /// A Secure Enclave key (kSecAttrTokenIDSecureEnclave): its private part never leaves the
        /// enclave, so it is in no backup and moves to no other device whatever its class.
        static func inSecureEnclave(_ item: KeychainItemRecord) -> Bool {
            item.requested["kSecAttrTokenID"].map { $0.contains("SecureEnclave") } ?? false
        }

        /// Why the item's accessibility is wrong for a secret, or nil when it is a ThisDeviceOnly
        /// class (or a Secure Enclave key). One rule however the item was added: a key
        /// SecKeyCreateRandomKey made permanent gets the same default as SecItemAdd gives
        /// (kSecAttrAccessibleWhenUnlocked), and that default migrates. Apple's documentation of
        /// each class: the others "migrate to a new device when using encrypted backups"; the
        /// ThisDeviceOnly ones "do not migrate to a new device. Thus, after restoring from a backup
        /// of a different device, these items will not be present" (backed up, restored only to
        /// the same device). MASVS-STORAGE-1.
        static func accessibilityProblem(_ item: KeychainItemRecord) -> String? {
            if inSecureEnclave(item) { return nil }
            // An access control carries the protection class too (kSecAttrAccessible is set from it).
            let given = item.requested["kSecAttrAccessible"] ?? item.requested["kSecAttrAccessControl"]
            let migrates = "it migrates to another device through an encrypted backup or iCloud Keychain"
            let meaning: String
            switch item.accessible {
            case "kSecAttrAccessibleWhenUnlockedThisDeviceOnly", "kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly",
                 "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly":
                return nil
            case "kSecAttrAccessibleAlwaysThisDeviceOnly":
                meaning = "readable even while the device is locked (deprecated since iOS 12)"
            case "kSecAttrAccessibleAlways":
                meaning = "readable even while the device is locked, and \(migrates) (deprecated since iOS 12)"
            case "kSecAttrAccessibleAfterFirstUnlock":
                meaning = "readable from the first unlock until restart, locked or not, and \(migrates)"
            case "kSecAttrAccessibleWhenUnlocked":
                meaning = migrates
            default:
                meaning = "not an accessibility class Apple declares"
            }
            let how = item.generatedPermanentKey ? " (made permanent by SecKeyCreateRandomKey)" : ""
            let what = given == nil ? "stored without kSecAttrAccessible\(how), so as the default \(item.accessible)" : "stored as \(item.accessible)"
            return "\(what): \(meaning); use kSecAttrAccessibleWhenUnlockedThisDeviceOnly"
        }

        /// kSecAttrSynchronizable true: the item syncs through iCloud Keychain to the user's other
        /// devices (Apple: kSecAttrSynchronizable; a synchronizable item cannot be ThisDeviceOnly).
        static func synchronizableProblem(_ item: KeychainItemRecord) -> String? {
            guard let sync = item.requested["kSecAttrSynchronizable"], ["true", "1", "yes"].contains(sync.lowercased()) else { return nil }
            return "kSecAttrSynchronizable is true: the secret syncs through iCloud Keychain to every device of the user's Apple Account; drop kSecAttrSynchronizable and use kSecAttrAccessibleWhenUnlockedThisDeviceOnly"
        }

        /// "the kSecClassKey item tagged \"com.app.key\"".
        static func describe(_ item: KeychainItemRecord) -> String {
            let names = [("kSecAttrApplicationTag", "tagged"), ("kSecAttrService", "service"), ("kSecAttrAccount", "account"), ("kSecAttrLabel", "labelled")]
                .compactMap { name, word in item.requested[name].map { "\(word) \"\($0)\"" } }
            let kind = item.isPrivateKey ? "private key" : "item"
            let control = item.requested["kSecAttrAccessControl"].map { " (kSecAttrAccessControl \($0))" } ?? ""
            return "the \(item.itemClass) \(kind)" + (names.isEmpty ? " with no tag, service, account or label" : " " + names.joined(separator: ", ")) + control
        }

        /// Every regular file under `folder`, in path order.
        static func files(under folder: URL) -> [URL] {
            guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
            return enumerator.compactMap { $0 as? URL }
                .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
                .sorted { $0.path < $1.path }
        }

        /// The strings and data inside a property-list value, as bytes.
        static func leaves(of value: Any) -> [Data] {
            switch value {
            case let text as String: return [Data(text.utf8)]
            case let data as Data: return [data]
            // An array of small integers is bytes (`UserDefaults.set([UInt8](key), …)` writes one).
            case let list as [Any] where !list.isEmpty && list.allSatisfy({ ($0 as? Int).map { (0...255).contains($0) } ?? false }):
                return [Data(list.compactMap { ($0 as? Int).map(UInt8.init) })]
            case let list as [Any]: return list.flatMap(leaves)
            case let dictionary as [String: Any]: return dictionary.values.flatMap(leaves)
            default: return []
            }
        }
    }
}

/// Finds keys in bytes: raw; base64 (standard or URL-safe, padded or not, line breaks ignored)
/// at every alignment, so a key inside a larger base64 blob is found too; hex in either case,
/// plain, spaced or colon-separated (`NSData`'s description `<0a1b2c3d 4e5f…>`, `0a:1b:…`); and
/// byte arrays written as text (`[10, 27, 44, …]`, `0x0a, 0x1b, …`, decimal or hex numbers).
struct KeyFinder {
    struct Hit { let key: KeyMaterial; let form: String }

    /// Keys shorter than this would match by chance; crosscheck's are 16 bytes and more.
    static let minimumLength = 12
    let keys: [KeyMaterial]

    init(_ keys: [KeyMaterial]) { self.keys = keys.filter { $0.bytes.count >= Self.minimumLength } }

    /// `large`: an executable or another big file — raw bytes, base64 and hex as written only
    /// (no copies without separators, no number parsing), so a binary of many megabytes stays quick.
    func hits(_ data: Data, large: Bool = false) -> [Hit] {
        if large {
            return keys.compactMap { key in
                if data.range(of: key.bytes) != nil { return Hit(key: key, form: "raw bytes") }
                if Self.base64Patterns(key.bytes).contains(where: { data.range(of: Data($0.utf8)) != nil }) { return Hit(key: key, form: "base64") }
                let hex = key.bytes.map { String(format: "%02x", $0) }.joined()
                if [hex, hex.uppercased()].contains(where: { data.range(of: Data($0.utf8)) != nil }) { return Hit(key: key, form: "hex") }
                return nil
            }
        }
        let compact = Data(data.filter { ![0x0A, 0x0D, 0x20, 0x09].contains($0) })
        let lowered = Data(data.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 })
        // Hex with its separators gone: spaces, colons, dashes, commas, angle brackets, line ends.
        let hexCompact = Data(lowered.filter { ![0x0A, 0x0D, 0x20, 0x09, 0x3A, 0x2D, 0x2C, 0x3C, 0x3E].contains($0) })
        let numbers = Self.numbers(in: data)
        return keys.compactMap { key in
            if data.range(of: key.bytes) != nil { return Hit(key: key, form: "raw bytes") }
            for pattern in Self.base64Patterns(key.bytes) where compact.range(of: Data(pattern.utf8)) != nil {
                return Hit(key: key, form: "base64")
            }
            let hex = key.bytes.map { String(format: "%02x", $0) }.joined()
            if lowered.range(of: Data(hex.utf8)) != nil { return Hit(key: key, form: "hex") }
            if hexCompact.range(of: Data(hex.utf8)) != nil { return Hit(key: key, form: "hex with separators") }
            if Self.contains(numbers, key.bytes) { return Hit(key: key, form: "a byte array") }
            return nil
        }
    }

    /// The base64 text only the key's bytes decide, for the key starting at each of the three
    /// offsets modulo 3 in a longer encoded blob, standard and URL-safe alphabets.
    static func base64Patterns(_ key: Data) -> [String] {
        var patterns: [String] = []
        for shift in 0..<3 {
            let encoded = Array((Data(repeating: 0, count: shift) + key).base64EncodedString().replacingOccurrences(of: "=", with: ""))
            let first = (shift * 8 + 5) / 6                       // characters that hold bits of the leading zeros
            let last = ((shift + key.count) * 8) / 6              // whole characters inside the key's bits
            guard last - first >= 12 else { continue }
            let middle = String(encoded[first..<last])
            patterns.append(middle)
            patterns.append(middle.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"))
        }
        return patterns
    }

    /// Every number written in `data` (decimal, or hex with 0x), in order; a number above 255 is -1.
    static func numbers(in data: Data) -> [Int] {
        var result: [Int] = []
        let bytes = Array(data)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x30, index + 1 < bytes.count, bytes[index + 1] | 0x20 == 0x78 {  // 0x..
                var end = index + 2, value = 0
                while end < bytes.count, let digit = HexDigit.value(bytes[end]) { value = min(value * 16 + Int(digit), 256); end += 1 }
                if end > index + 2 { result.append(value > 255 ? -1 : value); index = end; continue }
            }
            if (0x30...0x39).contains(byte), index == 0 || !Self.isWordByte(bytes[index - 1]) {
                var end = index, value = 0
                while end < bytes.count, (0x30...0x39).contains(bytes[end]) { value = min(value * 10 + Int(bytes[end] - 0x30), 256); end += 1 }
                if end == bytes.count || !Self.isWordByte(bytes[end]) { result.append(value > 255 ? -1 : value) }
                index = end
                continue
            }
            index += 1
        }
        return result
    }

    static func isWordByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
    }

    static func contains(_ numbers: [Int], _ key: Data) -> Bool {
        let wanted = key.map(Int.init)
        guard numbers.count >= wanted.count else { return false }
        for start in 0...(numbers.count - wanted.count) where numbers[start] == wanted[0] {
            if Array(numbers[start..<start + wanted.count]) == wanted { return true }
        }
        return false
    }
}
