import Foundation
import XCTest
@testable import AppChecks
import AppHost
import AppUnderTest
import Conformance

/// The key-storage audit against apps in containers of their own, each run as a team's app is
/// (its own process, over the host protocol): the planted apps of Tests/PlantedStorageApps, each
/// keeping its key in one wrong place, must be flagged at that place and nowhere else; an app by
/// the book and seed 003's own store pass clean; seed 004's key in UserDefaults is seed 003's finding.
final class KeyStorageAuditTests: XCTestCase {
    /// The executables built beside this test bundle.
    static let products = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent()
    static let planted = products.appendingPathComponent("planted-storage-apps")
    static let crosscheck = products.appendingPathComponent("crosscheck")
    static let places = ["user-defaults", "files", "console", "keychain-accessibility", "permanent-keys"]

    struct Audit {
        let results: [String: CheckResult]
        let facts: StorageFacts
        let container: AppContainer
        func verdicts() -> [String: String] { results.mapValues(\.verdict) }
        func message(_ place: String) -> String { results[place]?.message ?? "" }
    }

    /// Runs the audit's checks for the app `arguments` serves, in a fresh container (whose bundle,
    /// when given, adds the `bundle` testcase).
    func audit(_ executable: URL, _ arguments: [String], bundle: [URL] = []) throws -> Audit {
        let folder = try makeScratchDirectory().appendingPathComponent(arguments.last ?? "app")
        var container = try AppContainer.fresh(in: folder)
        container.bundle = bundle
        let environment = container.environment()
        let app = try HostedApp(launch: {
            try HostChannel.launch(executable: executable, arguments: arguments, log: container.console, environment: environment)
        }, container: container)
        defer { app.stop() }
        let subject = AppSubject(app)
        let checks = KeyStorageAudit.checks(try suiteContext(), apps: [subject])
        XCTAssertEqual(checks.map(\.name), (Self.places + (bundle.isEmpty ? [] : ["bundle"])).map { "\(app.identifier).key-storage.\($0)" })
        XCTAssertEqual(Set(checks.map(\.suite)), ["audit.\(app.identifier)"])
        let results = Runner().run(checks)
        var byPlace: [String: CheckResult] = [:]
        for result in results { byPlace[String(result.check.name.dropFirst("\(app.identifier).key-storage.".count))] = result }
        return Audit(results: byPlace, facts: try app.storageFacts(), container: container)
    }

    func makeScratchDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-audit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// Every place passed but `flagged`, which were skipped as weaknesses.
    func assertFlagged(_ audit: Audit, _ flagged: Set<String>, file: StaticString = #filePath, line: UInt = #line) {
        let expected = Dictionary(uniqueKeysWithValues: Self.places.map { ($0, flagged.contains($0) ? "skipped" : "passed") })
        XCTAssertEqual(audit.verdicts(), expected, "\(audit.results.mapValues(\.message))", file: file, line: line)
        for place in flagged { XCTAssertTrue(audit.message(place).hasPrefix("weakness: "), audit.message(place), file: file, line: line) }
    }

    func testTextbookApp_passesClean() throws {
        let audit = try audit(Self.planted, ["textbook-storage"])
        assertFlagged(audit, [])
        // Not clean by having nothing: the audit's key is in its keychain, as asked.
        let item = try XCTUnwrap(audit.facts.keychainItems.first)
        XCTAssertEqual(audit.facts.keychainItems.count, 1)
        XCTAssertEqual(item.requested["kSecAttrAccessible"], "kSecAttrAccessibleWhenUnlockedThisDeviceOnly")
        XCTAssertEqual(item.requested["kSecAttrApplicationTag"], "crosscheck.audit.key-storage")
        XCTAssertEqual(item.value?.count, 32)
    }

    /// Seed 003's key store is clean; its RSA snippet's permanent key pair, made by
    /// SecKeyCreateRandomKey without kSecAttrAccessible, gets the default WhenUnlocked and is judged
    /// by the rule any SecItemAdd of the key would be (issue 36: one rule however a key was added).
    func testSeed003sOwnStore_isClean_itsPermanentRSAKeyMigrates() throws {
        let audit = try audit(Self.crosscheck, ["app-host", "seed-003"])
        assertFlagged(audit, ["keychain-accessibility"])
        XCTAssertTrue(audit.message("keychain-accessibility").contains(
            #"private key tagged "com.myapp.keys.localStore": stored without kSecAttrAccessible (made permanent by SecKeyCreateRandomKey), so as the default kSecAttrAccessibleWhenUnlocked: it migrates to another device through an encrypted backup or iCloud Keychain"#),
                      audit.message("keychain-accessibility"))
        XCTAssertFalse(audit.message("keychain-accessibility").contains("crosscheck.audit.key-storage"), "the store's own item is ThisDeviceOnly")
        let stored = audit.facts.keychainItems.filter { $0.requested["kSecAttrApplicationTag"] == "crosscheck.audit.key-storage" }
        XCTAssertEqual(stored.map(\.accessible), ["kSecAttrAccessibleWhenUnlockedThisDeviceOnly"])
        // Its RSA snippet: a permanent key pair, tagged; the private key was exported (to crosscheck) but written nowhere.
        XCTAssertTrue(audit.facts.keychainItems.contains { $0.generatedPermanentKey && $0.isPrivateKey && $0.requested["kSecAttrApplicationTag"] == "com.myapp.keys.localStore" })
        XCTAssertEqual(audit.facts.exportedPrivateKeys.count, 1)
    }

    func testSeed004_keyInUserDefaultsIsSeed003sFinding() throws {
        let audit = try audit(Self.crosscheck, ["app-host", "seed-004"])
        assertFlagged(audit, ["user-defaults"])
        XCTAssertTrue(audit.message("user-defaults").contains(
            #"UserDefaults key "encryptionKey" (Library/Preferences/crosscheck.plist) holds the app's file-sealing key (file.current-key) as base64"#),
                      audit.message("user-defaults"))
        XCTAssertTrue(audit.message("user-defaults").contains("seed 003's finding \"use of file-based key storage\""), audit.message("user-defaults"))
        // The defaults are where the audit says: the container's Library/Preferences, readable back.
        let plist = try Data(contentsOf: audit.container.preferences.appendingPathComponent("crosscheck.plist"))
        let defaults = try XCTUnwrap(PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
        XCTAssertEqual((defaults["encryptionKey"] as? String).flatMap { Data(base64Encoded: $0) }?.count, 32)
        // --strict: the finding fails.
        let strict = KeyStorageAudit.strict(try XCTUnwrap(audit.results["user-defaults"]))
        XCTAssertEqual(strict.verdict, "failed")
        XCTAssertTrue(strict.message.hasPrefix("weakness (--strict): UserDefaults key \"encryptionKey\""), strict.message)
        XCTAssertEqual(KeyStorageAudit.strict(try XCTUnwrap(audit.results["files"])).verdict, "passed")
    }

    func testKeyInADocumentsFile_flaggedWithItsPath() throws {
        let audit = try audit(Self.planted, ["planted-documents-file"])
        assertFlagged(audit, ["files"])
        XCTAssertTrue(audit.message("files").contains(
            "the file Documents/crosscheck.audit.key-storage.key holds the key crosscheck gave the app to keep (keychain.store) as raw bytes"), audit.message("files"))
        XCTAssertTrue(audit.message("files").contains("Использование файлового хранилища ключей"), audit.message("files"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: audit.container.documents.appendingPathComponent("crosscheck.audit.key-storage.key").path))
    }

    func testKeyInUserDefaults_flaggedWithItsKey() throws {
        let audit = try audit(Self.planted, ["planted-user-defaults"])
        assertFlagged(audit, ["user-defaults"])
        XCTAssertTrue(audit.message("user-defaults").contains(
            #"UserDefaults key "key.crosscheck.audit.key-storage" (Library/Preferences/planted-storage-apps.plist) holds the key crosscheck gave the app to keep (keychain.store) as base64"#),
                      audit.message("user-defaults"))
    }

    func testKeyPrintedToTheConsole_flaggedWithTheLine() throws {
        let audit = try audit(Self.planted, ["planted-printed-key"])
        assertFlagged(audit, ["console"])
        XCTAssertTrue(audit.message("console").contains("the app printed the key crosscheck gave the app to keep (keychain.store) as hex (\(audit.container.console.path) line "),
                      audit.message("console"))
        // The fix for a printed key is not to print it; where it is kept is already right.
        XCTAssertTrue(audit.message("console").contains("don't log key material"), audit.message("console"))
        XCTAssertFalse(audit.message("console").contains("keep the key in the Keychain"), audit.message("console"))
    }

    func testKeychainAfterFirstUnlock_flaggedWithTheAttribute() throws {
        let audit = try audit(Self.planted, ["planted-after-first-unlock"])
        assertFlagged(audit, ["keychain-accessibility"])
        XCTAssertTrue(audit.message("keychain-accessibility").contains(
            #"the kSecClassKey item tagged "crosscheck.audit.key-storage": stored as kSecAttrAccessibleAfterFirstUnlock: readable from the first unlock until restart, locked or not, and it migrates to another device through an encrypted backup or iCloud Keychain"#),
                      audit.message("keychain-accessibility"))
    }

    func testKeychainAlways_flaggedWithTheAttribute() throws {
        let audit = try audit(Self.planted, ["planted-always"])
        assertFlagged(audit, ["keychain-accessibility"])
        XCTAssertTrue(audit.message("keychain-accessibility").contains(
            #"stored as kSecAttrAccessibleAlways: readable even while the device is locked, and it migrates to another device through an encrypted backup or iCloud Keychain (deprecated since iOS 12)"#),
                      audit.message("keychain-accessibility"))
    }

    func testUntaggedPermanentKeyExportedToCaches_flaggedTwice() throws {
        let audit = try audit(Self.planted, ["planted-untagged-permanent-key"])
        // Also its accessibility: the default WhenUnlocked, as any key added without kSecAttrAccessible.
        assertFlagged(audit, ["files", "permanent-keys", "keychain-accessibility"])
        let written = "the file Library/Caches/rsa-backup.txt holds the private key the app made (rsa-own-key.encrypt) as base64"
        XCTAssertTrue(audit.message("files").contains(written), audit.message("files"))
        XCTAssertTrue(audit.message("permanent-keys").contains("a private key left the keychain and was written down: " + written), audit.message("permanent-keys"))
        XCTAssertTrue(audit.message("permanent-keys").contains(
            "the kSecClassKey private key with no tag, service, account or label: a private key made permanent (kSecAttrIsPermanent) without kSecAttrApplicationTag"),
                      audit.message("permanent-keys"))
    }

    // MARK: issue 36

    func testKeyInUserDefaultsAsAByteArray_flagged() throws {
        let audit = try audit(Self.planted, ["planted-defaults-byte-array"])
        assertFlagged(audit, ["user-defaults"])
        XCTAssertTrue(audit.message("user-defaults").contains(
            #"UserDefaults key "bytes.crosscheck.audit.key-storage" (Library/Preferences/planted-storage-apps.plist) holds the key crosscheck gave the app to keep (keychain.store) as"#),
                      audit.message("user-defaults"))
    }

    func testKeyInUserDefaultsAsNSDataDescription_flaggedAsSpacedHex() throws {
        let audit = try audit(Self.planted, ["planted-defaults-spaced-hex"])
        assertFlagged(audit, ["user-defaults"])
        XCTAssertTrue(audit.message("user-defaults").contains("as hex with separators"), audit.message("user-defaults"))
    }

    func testSynchronizableKeyItem_flaggedNamingICloudKeychain() throws {
        let audit = try audit(Self.planted, ["planted-synchronizable"])
        assertFlagged(audit, ["keychain-accessibility"])
        let message = audit.message("keychain-accessibility")
        XCTAssertTrue(message.contains(#"the kSecClassKey item tagged "crosscheck.audit.key-storage": kSecAttrSynchronizable is true: the secret syncs through iCloud Keychain"#), message)
        XCTAssertTrue(message.contains("stored as kSecAttrAccessibleWhenUnlocked: it migrates to another device through an encrypted backup or iCloud Keychain"), message)
    }

    /// A public key is not a secret: WhenUnlocked is no finding for it.
    func testPublicKeyInAWhenUnlockedItem_notFlagged() throws {
        let audit = try audit(Self.planted, ["public-key-beside"])
        assertFlagged(audit, [])
        XCTAssertTrue(audit.facts.keychainItems.contains { $0.keyClass == "kSecAttrKeyClassPublic" && $0.accessible == "kSecAttrAccessibleWhenUnlocked" },
                      "\(audit.facts.keychainItems)")
    }

    /// MASTG-TEST-0213/0214: a key that crossed and is also in what the app ships was hard-coded.
    func testHardCodedKey_foundInTheExecutable_andAKeyFromRunTimeIsNot() throws {
        let planted = try audit(Self.planted, ["planted-hard-coded-key"], bundle: [Self.planted])
        XCTAssertEqual(planted.results["bundle"]?.verdict, "skipped", "\(planted.results.mapValues(\.message))")
        XCTAssertTrue(planted.message("bundle").contains(
            "the app's executable planted-storage-apps holds the app's file-sealing key (file.current-key) as base64: a hard-coded key (MASTG-TEST-0213/0214)"),
                      planted.message("bundle"))
        // The same executable, an app whose keys come at run time: nothing in its bundle.
        let textbook = try audit(Self.planted, ["textbook-storage"], bundle: [Self.planted])
        XCTAssertEqual(textbook.results["bundle"]?.verdict, "passed", textbook.message("bundle"))
    }

    func testKeyFinder_findsEveryWrittenForm() {
        let key = Data((0..<32).map { (i: Int) -> UInt8 in UInt8((i * 37 + 11) & 0xff) })
        let keyFinder = KeyFinder([KeyMaterial(key, "the key")])
        struct Finder { let finder: KeyFinder; func form(_ data: Data) -> String? { finder.hits(data).first?.form } }
        let finder = Finder(finder: keyFinder)
        let hex = key.map { String(format: "%02x", $0) }
        XCTAssertEqual(finder.form(Data(("[" + key.map { String($0) }.joined(separator: ", ") + "]").utf8)), "a byte array")
        XCTAssertEqual(finder.form(Data(key.map { String(format: "0x%02X", $0) }.joined(separator: ",").utf8)), "a byte array")
        XCTAssertEqual(finder.form(Data(hex.joined(separator: ":").utf8)), "hex with separators")
        XCTAssertEqual(finder.form(Data(hex.joined(separator: " ").utf8)), "hex with separators")
        for prefix in 0..<3 {  // inside a longer base64 blob, at each alignment
            let blob = (Data(repeating: 0x41, count: prefix + 5) + key + Data("tail".utf8)).base64EncodedString()
            XCTAssertEqual(finder.form(Data(blob.utf8)), "base64", "prefix \(prefix)")
        }
        XCTAssertNil(finder.form(Data((0..<32).map { String($0) }.joined(separator: ", ").utf8)), "other numbers are not the key")
    }

    /// An app in crosscheck's own process has no container to read: it gets no audit testcases.
    func testAppWithoutAContainer_hasNoAuditChecks() throws {
        let inProcess = try HostedApp(launch: { HostChannel.inProcess(TextbookApp()) })
        defer { inProcess.stop() }
        XCTAssertNil(inProcess.capability(KeyStorageInspection.self))
        XCTAssertTrue(KeyStorageAudit.checks(try suiteContext(), apps: [AppSubject(inProcess), AppSubject(TextbookApp())]).isEmpty)
    }
}
