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
    }

    public static func checks(_ context: SuiteContext, apps: [AppSubject]) -> [Check] {
        apps.filter { $0.has((any KeyStorageInspection).self) }.flatMap { app in
            let evidence = Evidence(app, context)
            return Place.allCases.map { place in
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
                    for hit in Self.leaves(of: value).flatMap(keys.hits) {
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
            for place in [Place.userDefaults, .files, .console] where findings[place] != nil { findings[place]!.append(seed003) }
            checkKeychain(facts, keys)
        }

        private mutating func add(_ place: Place, _ finding: String, _ hit: KeyFinder.Hit) {
            if !(findings[place] ?? []).contains(finding) { findings[place, default: []].append(finding) }
            if hit.key.what.contains("private key") {
                let written = "a private key left the keychain and was written down: \(finding)"
                if !(findings[.permanentKeys] ?? []).contains(written) { findings[.permanentKeys, default: []].append(written) }
            }
        }

        private mutating func checkKeychain(_ facts: StorageFacts, _ keys: KeyFinder) {
            for item in facts.keychainItems {
                let holdsKey = item.itemClass == "kSecClassKey" || item.value.map { value in keys.keys.contains { $0.bytes == value } } == true
                guard holdsKey else { continue }
                let name = Self.describe(item)
                if let problem = Self.accessibilityProblem(item) {
                    let finding = "\(name): \(problem)"
                    if !(findings[.keychainAccessibility] ?? []).contains(finding) { findings[.keychainAccessibility, default: []].append(finding) }
                }
                if item.generatedPermanentKey, item.isPrivateKey, item.requested["kSecAttrApplicationTag"] == nil {
                    let finding = "\(name): a private key made permanent (kSecAttrIsPermanent) without kSecAttrApplicationTag: the app cannot find it again by its tag, so each run leaves another key in the keychain"
                    if !(findings[.permanentKeys] ?? []).contains(finding) { findings[.permanentKeys, default: []].append(finding) }
                }
            }
        }

        /// Why the item's accessibility is wrong for a key, or nil when it is a ThisDeviceOnly class.
        /// A key SecKeyCreateRandomKey made permanent without kSecAttrAccessible is not flagged for
        /// that alone: Apple's own key-generation guide stores keys so.
        static func accessibilityProblem(_ item: KeychainItemRecord) -> String? {
            // An access control carries the protection class too (kSecAttrAccessible is set from it).
            let given = item.requested["kSecAttrAccessible"] ?? item.requested["kSecAttrAccessControl"]
            if given == nil, item.generatedPermanentKey { return nil }
            let meaning: String
            switch item.accessible {
            case "kSecAttrAccessibleWhenUnlockedThisDeviceOnly", "kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly",
                 "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly":
                return nil
            case "kSecAttrAccessibleAlwaysThisDeviceOnly":
                meaning = "readable even while the device is locked (deprecated since iOS 12)"
            case "kSecAttrAccessibleAlways":
                meaning = "readable even while the device is locked, and it goes into backups and onto a new device (deprecated since iOS 12)"
            case "kSecAttrAccessibleAfterFirstUnlock":
                meaning = "readable from the first unlock until restart, locked or not, and it goes into backups and onto a new device"
            case "kSecAttrAccessibleWhenUnlocked":
                meaning = "it goes into backups and onto a new device"
            default:
                meaning = "not an accessibility class Apple declares"
            }
            let what = given == nil ? "stored without kSecAttrAccessible, so as the default \(item.accessible)" : "stored as \(item.accessible)"
            return "\(what): \(meaning); use kSecAttrAccessibleWhenUnlockedThisDeviceOnly"
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
            case let list as [Any]: return list.flatMap(leaves)
            case let dictionary as [String: Any]: return dictionary.values.flatMap(leaves)
            default: return []
            }
        }
    }
}

/// Finds keys in bytes: raw, base64 (standard or URL-safe, padded or not, line breaks ignored)
/// and hex (either case).
struct KeyFinder {
    struct Hit { let key: KeyMaterial; let form: String }

    /// Keys shorter than this would match by chance; crosscheck's are 16 bytes and more.
    static let minimumLength = 12
    let keys: [KeyMaterial]

    init(_ keys: [KeyMaterial]) { self.keys = keys.filter { $0.bytes.count >= Self.minimumLength } }

    func hits(_ data: Data) -> [Hit] {
        let compact = Data(data.filter { ![0x0A, 0x0D, 0x20, 0x09].contains($0) })
        let lowered = Data(data.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 })
        return keys.compactMap { key in
            if data.range(of: key.bytes) != nil { return Hit(key: key, form: "raw bytes") }
            let base64 = key.bytes.base64EncodedString()
            let unpadded = base64.replacingOccurrences(of: "=", with: "")
            let urlSafe = unpadded.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            if [unpadded, urlSafe].contains(where: { compact.range(of: Data($0.utf8)) != nil }) { return Hit(key: key, form: "base64") }
            let hex = key.bytes.map { String(format: "%02x", $0) }.joined()
            if lowered.range(of: Data(hex.utf8)) != nil { return Hit(key: key, form: "hex") }
            return nil
        }
    }
}
