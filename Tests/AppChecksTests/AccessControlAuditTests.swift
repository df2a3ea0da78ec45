import Foundation
import XCTest
import AppChecks
import AppHost
import AppUnderTest
import Conformance

/// The access-control audit against the apps of Tests/PlantedStorageApps in processes of their
/// own: the app by the book passes both testcases; the app that ignores the flags it declares and
/// the app that hands out a copy when the user cancels each fail the testcase that catches them.
/// The simulated user reaches the app's process through its environment (`--app-user`).
final class AccessControlAuditTests: XCTestCase {
    private func hosted(_ name: String, environment extra: [String: String] = [:]) throws -> HostedApp {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-access-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let container = try AppContainer.fresh(in: folder.appendingPathComponent(name))
        let environment = container.environment().merging(extra) { $1 }
        let app = try HostedApp(launch: {
            try HostChannel.launch(executable: KeyStorageAuditTests.planted, arguments: [name], log: container.console, environment: environment)
        }, container: container)
        addTeardownBlock { app.stop() }
        return app
    }

    private func audit(_ name: String) throws -> [String: CheckResult] {
        let app = try hosted(name)
        let checks = AccessControlAudit.checks(try suiteContext(), apps: [AppSubject(app)])
        XCTAssertEqual(checks.map(\.name), ["\(name).access-control.declared-flags", "\(name).access-control.user-refusal"])
        XCTAssertEqual(Set(checks.map(\.suite)), ["audit.\(name)"])
        var byRelation: [String: CheckResult] = [:]
        for result in Runner().run(checks) { byRelation[String(result.check.name.dropFirst("\(name).access-control.".count))] = result }
        return byRelation
    }

    func testAppByTheBook_passesBoth() throws {
        let results = try audit("protected-textbook")
        XCTAssertEqual(results.mapValues(\.verdict), ["declared-flags": "passed", "user-refusal": "passed"], "\(results.mapValues(\.message))")
    }

    func testFlagIgnored_isCaughtByBoth() throws {
        let results = try audit("planted-flag-ignored")
        XCTAssertEqual(results.mapValues(\.verdict), ["declared-flags": "failed", "user-refusal": "failed"], "\(results.mapValues(\.message))")
        XCTAssertEqual(results["declared-flags"]?.message,
                       "the app declares biometryCurrentSet|or|devicePasscode but stored the secret without kSecAttrAccessControl (as kSecAttrAccessibleWhenUnlockedThisDeviceOnly)")
        XCTAssertEqual(results["user-refusal"]?.message,
                       "the app declares biometryCurrentSet|or|devicePasscode but handed out its secret when the user canceled the prompt (errSecUserCanceled)")
    }

    /// A plain item behind LAContext.evaluatePolicy: the refusal itself works (evaluatePolicy fails
    /// for cancel and absent), but evaluatePolicy is the only gate (MASTG-TEST-0266…0271).
    func testEvaluatePolicyAsTheOnlyGate_isRecordedAndFlagged() throws {
        let results = try audit("planted-evaluate-policy-gate")
        XCTAssertEqual(results.mapValues(\.verdict), ["declared-flags": "failed", "user-refusal": "failed"], "\(results.mapValues(\.message))")
        let message = results["user-refusal"]?.message ?? ""
        XCTAssertTrue(message.hasPrefix("the app declares biometryCurrentSet|or|devicePasscode but the only gate is LAContext.evaluatePolicy (called 3 times)"), message)
        XCTAssertTrue(message.contains("MASTG-TEST-0266"), message)
    }

    func testCancelFallback_isCaughtByTheRefusal() throws {
        let results = try audit("planted-cancel-fallback")
        XCTAssertEqual(results.mapValues(\.verdict), ["declared-flags": "passed", "user-refusal": "failed"], "\(results.mapValues(\.message))")
        XCTAssertEqual(results["user-refusal"]?.message,
                       "the app declares biometryCurrentSet|or|devicePasscode but handed out its secret when the user canceled the prompt (errSecUserCanceled)")
    }

    /// The app that exports its Secure Enclave key: the export fails as on a device (errSecUnimplemented),
    /// and the audit fails naming the call.
    func testEnclaveKeyExport_failsAsOnADevice_andIsCaught() throws {
        let results = try audit("planted-enclave-export")
        XCTAssertEqual(results.mapValues(\.verdict), ["declared-flags": "failed", "user-refusal": "failed"], "\(results.mapValues(\.message))")
        let message = results["declared-flags"]?.message ?? ""
        XCTAssertTrue(message.hasPrefix("the app could not keep the secret it was given: "), message)
        XCTAssertTrue(message.contains("SecKeyCopyExternalRepresentation failed"), message)
        XCTAssertTrue(message.contains("Secure Enclave"), message)
        XCTAssertTrue(message.contains("-4"), message)
    }

    /// The key-storage audit names an item's access control with its flags: here the protection
    /// under the flags is one that goes into backups.
    func testKeyStorageAudit_reportsTheItemWithItsAccessControl() throws {
        let app = try hosted("planted-protected-after-first-unlock")
        let subject = AppSubject(app)
        let context = try suiteContext()
        let results = Runner().run(AccessControlAudit.checks(context, apps: [subject]) + KeyStorageAudit.checks(context, apps: [subject]))
        let verdicts = Dictionary(uniqueKeysWithValues: results.map { ($0.check.name.components(separatedBy: ".").suffix(2).joined(separator: "."), $0.verdict) })
        XCTAssertEqual(verdicts["access-control.declared-flags"], "passed")
        XCTAssertEqual(verdicts["access-control.user-refusal"], "passed")
        XCTAssertEqual(verdicts["key-storage.keychain-accessibility"], "skipped")
        let finding = results.first { $0.check.name.hasSuffix("keychain-accessibility") }?.message ?? ""
        XCTAssertTrue(finding.contains("the kSecClassGenericPassword item service \"planted\", account \"crosscheck.audit.access-control\" "
                                       + "(kSecAttrAccessControl kSecAttrAccessibleAfterFirstUnlock, biometryCurrentSet|devicePasscode|or): stored as kSecAttrAccessibleAfterFirstUnlock"), finding)
    }

    /// `--app-user cancel` as crosscheck run passes it: the app's own reads (no per-read choice)
    /// get errSecUserCanceled, and the host reports who answers; absent gives errSecAuthFailed.
    func testAppUserFromTheEnvironment_answersTheAppsOwnReads() throws {
        for (user, status) in [("cancel", "-128"), ("absent", "-25293")] {
            let app = try hosted("protected-textbook", environment: AppUser.environment([:], user: user))
            try app.storeProtectedSecret(Data("secret".utf8), name: "env")
            XCTAssertThrowsError(try app.readProtectedSecret(name: "env")) { error in
                XCTAssertTrue("\(error)".contains("SecItemCopyMatching returned \(status)"), "\(user): \(error)")
            }
            XCTAssertEqual(try app.readProtectedSecret(name: "env", answeredBy: "present"), Data("secret".utf8))
            XCTAssertEqual(try app.storageFacts().simulatedUser, user)
        }
        let present = try hosted("protected-textbook")
        try present.storeProtectedSecret(Data("secret".utf8), name: "env")
        XCTAssertEqual(try present.readProtectedSecret(name: "env"), Data("secret".utf8), "present is the default")
    }
}
