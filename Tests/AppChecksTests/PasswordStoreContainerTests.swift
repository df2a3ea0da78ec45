import Foundation
import XCTest
import AppChecks
import AppHost
import AppUnderTest
import Conformance

/// Password stores in containers of their own (Tests/PlantedStorageApps, over the host protocol):
/// the checks read the keychain's own record of the item, not only what the app reads back, and the
/// key-storage audit looks for the passwords as it looks for keys.
final class PasswordStoreContainerTests: XCTestCase {
    func hosted(_ name: String) throws -> (HostedApp, AppContainer) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-passwords-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let container = try AppContainer.fresh(in: folder.appendingPathComponent(name))
        let environment = container.environment()
        let app = try HostedApp(launch: {
            try HostChannel.launch(executable: KeyStorageAuditTests.planted, arguments: [name], log: container.console, environment: environment)
        }, container: container)
        addTeardownBlock { app.stop() }
        return (app, container)
    }

    func audit(_ app: HostedApp) throws -> [String: CheckResult] {
        let results = Runner().run(KeyStorageAudit.checks(try suiteContext(), apps: [AppSubject(app)]))
        return Dictionary(uniqueKeysWithValues: results.map { (String($0.check.name.dropFirst("\(app.identifier).key-storage.".count)), $0) })
    }

    static let checks = ["save-and-read.ascii", "save-and-read.non-ascii", "save-and-read.200-characters", "update-replaces", "delete-removes",
                         "save-over-existing-replaces", "read-of-an-account-never-saved", "delete-of-an-account-never-saved",
                         "accounts-are-kept-apart"].map { "password.generic.\($0)" }

    func testKeychainPasswords_passEveryCheck_andTheAuditFindsThemInTheKeychainOnly() throws {
        let (app, _) = try hosted("textbook-password-store")
        let results = try runAppChecks([app])
        XCTAssertEqual(results.map { String($0.check.name.dropFirst("textbook-password-store.".count)) }, Self.checks)
        XCTAssertEqual(Set(results.map(\.check.classname)), ["crosscheck.keychain.app_to_app"])
        XCTAssertEqual(results.filter { $0.verdict != "passed" }.map { "\($0.check.name): \($0.message)" }, [])
        let audit = try audit(app)
        XCTAssertEqual(audit.mapValues(\.verdict), ["user-defaults": "passed", "files": "passed", "console": "passed",
                                                    "keychain-accessibility": "passed", "permanent-keys": "passed"], "\(audit.mapValues(\.message))")
        // The audit's own password is in a generic-password item, WhenUnlockedThisDeviceOnly.
        let item = try XCTUnwrap(try app.storageFacts().keychainItems.first { $0.requested["kSecAttrAccount"] == "crosscheck.audit@example.com" })
        XCTAssertEqual(item.itemClass, "kSecClassGenericPassword")
        XCTAssertEqual(item.accessible, "kSecAttrAccessibleWhenUnlockedThisDeviceOnly")
        XCTAssertTrue(String(decoding: item.value ?? Data(), as: UTF8.self).hasPrefix("crosscheck-audit-"))
    }

    func testUpdateThatDoesNothing_failsTheUpdateChecks() throws {
        let (app, _) = try hosted("planted-update-does-nothing")
        let results = try runAppChecks([app])
        let failed = Set(results.filter { $0.verdict == "failed" }.map { String($0.check.name.dropFirst("planted-update-does-nothing.".count)) })
        // Its save over an existing account updates on errSecDuplicateItem, through the same broken update.
        XCTAssertEqual(failed, ["password.generic.update-replaces", "password.generic.save-over-existing-replaces"])
        let message = results.first { $0.check.name.hasSuffix("update-replaces") }?.message ?? ""
        XCTAssertTrue(message.contains("read back the old password after updatePassword: its update did nothing"), message)
    }

    func testPasswordsInUserDefaults_failTheKeychainRecord_andTheAuditSaysWhere() throws {
        let (app, _) = try hosted("planted-password-in-defaults")
        let results = try runAppChecks([app])
        let failed = Set(results.filter { $0.verdict == "failed" }.map { String($0.check.name.dropFirst("planted-password-in-defaults.".count)) })
        // It reads every password back (its own word): only the keychain's record shows where they are.
        XCTAssertEqual(failed, ["password.generic.save-and-read.ascii", "password.generic.save-and-read.non-ascii",
                                "password.generic.save-and-read.200-characters", "password.generic.update-replaces"])
        let message = results.first { $0.check.name.hasSuffix("save-and-read.ascii") }?.message ?? ""
        XCTAssertTrue(message.contains("reads the password of crosscheck.planted-password-in-defaults.save-ascii@example.com back, "
                                       + "but no kSecClassGenericPassword item in its keychain holds it: it keeps it elsewhere (the audit suite says where)"), message)
        let audit = try audit(app)
        XCTAssertEqual(audit["user-defaults"]?.verdict, "skipped")
        XCTAssertTrue(audit["user-defaults"]?.message.contains(
            #"UserDefaults key "password.crosscheck.audit@example.com" (Library/Preferences/planted-storage-apps.plist) holds the password crosscheck gave the app to keep (password.save) as raw bytes"#)
                      == true, audit["user-defaults"]?.message ?? "")
    }
}
