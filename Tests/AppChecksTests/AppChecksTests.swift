import Foundation
import XCTest
import AppChecks
import AppHost
import AppUnderTest
import Conformance
import SeedApps

/// The app checks on apps whose verdicts are known: the seed apps (their own code; what fails is
/// what the known-failures list names, for the reason it gives), an app written by the book (all
/// pass) and planted flaws (each fails exactly the checks named for it).
final class AppChecksTests: XCTestCase {
    func testSeedApps_everyCheckPassesButTheListedKnownFailures() throws {
        let apps = SeedApps.identifiers.compactMap(SeedApps.make)
        let results = try runAppChecks(apps, loopback: true)
        let known = try knownFailures()
        let adjusted = known.apply(to: results)
        XCTAssertEqual(adjusted.filter { $0.verdict == "failed" || $0.verdict == "error" }.map { "\($0.check.fullName): \($0.message)" }, [])
        // Each listed failure really fails, for the listed reason's symptom.
        let listed = results.filter { known.entry(for: $0.check.fullName) != nil }
        XCTAssertEqual(listed.count, 16)
        XCTAssertTrue(listed.allSatisfy { $0.verdict == "failed" }, listed.map { "\($0.check.fullName) \($0.verdict)" }.joined(separator: "\n"))
        // The listed reason's two symptoms (Vectors/known-failures.json): SecKeyDecrypt refuses the
        // 28-byte last read, or — iOS 17.4's implicit rejection — returns a random message that fits
        // the app's buffer, which it then shows instead of the 30-byte one.
        let seed000 = listed.filter { $0.check.name.hasPrefix("seed-000.") }
        XCTAssertTrue(seed000.allSatisfy {
            $0.message.contains("last read of 28 bytes")
                || ($0.message.contains("expected [decrypted(30 bytes), server-stopped]") && !$0.message.contains("got [decrypted(30 bytes)"))
        }, seed000.map { "\($0.check.fullName): \($0.message)" }.joined(separator: "\n"))
        // How many checks each suite has with the seed apps (seed 000: rsa-socket client and session; 001: envelopes;
        // 002: pinning; 003: AEAD, keychain, RSA; 004: files).
        var counts: [String: Int] = [:]
        for result in results { counts[result.check.suite, default: 0] += 1 }
        XCTAssertEqual(counts, ["roundtrip.app_to_python": 20, "roundtrip.python_to_app": 50, "vectors.openssl_to_app": 7, "vectors.app_to_openssl": 8,
                                "sessions.app_client.swift_server": 7, "sessions.app_client.python_server": 7, "sessions.app_pinning": 11])
        // seed 000's own networking against a PythonRef server process, and through crosscheck's driver.
        for name in ["crosscheck.rsa-socket.app_client.python_server.seed-000.tcp.pi-to-phone.legacy.pkcs1.app-networking",
                     "crosscheck.rsa-socket.app_client.swift_server.seed-000.tcp.pi-to-phone.legacy.pkcs1"] {
            XCTAssertEqual(results.first { $0.check.fullName == name }?.verdict, "passed", name)
        }
    }

    func testTextbookApp_passesEveryCheck() throws {
        let results = try runAppChecks([TextbookApp()])
        XCTAssertEqual(notPassed(results, app: "textbook"), [])
        XCTAssertEqual(results.filter { $0.verdict == "skipped" }.map(\.check.name), ["textbook.tls.refuses-plain-http"])
        XCTAssertEqual(results.count, 77)  // AEAD 16 + 30, files 4 + 4, keychain 6, RSA 5 + 1 (openssl), pinning 9 + plain HTTP + expiry
    }

    func testFixedNonce_failsTheFreshNonceChecksOnly() throws {
        let results = try runAppChecks([FixedNonceApp()])
        XCTAssertEqual(notPassed(results, app: "planted-fixed-nonce"), [
            "crosscheck.sealed.app_to_python.planted-fixed-nonce.aes-gcm256.fresh-nonce-per-seal",
            "crosscheck.sealed.app_to_python.planted-fixed-nonce.file.fresh-nonce-per-seal",
        ])
        let failure = try XCTUnwrap(results.first { $0.verdict == "failed" })
        XCTAssertTrue(failure.message.contains("with the same nonce 070707070707070707070707"), failure.message)
    }

    func testPKCS1ClaimingOAEP_failsEveryOAEPCheck() throws {
        let results = try runAppChecks([PKCS1ClaimingOAEPApp()])
        let prefix = "crosscheck.rsa-socket.app_to_python.planted-pkcs1-as-oaep.rsa.oaep-sha256.own-key."
        XCTAssertEqual(notPassed(results, app: ""), ["len0", "len1", "len32", "max", "refuses-over-limit"].map { prefix + $0 }
                       + ["crosscheck.openssl-cli.app_to_openssl.planted-pkcs1-as-oaep.rsa.oaep-sha256.own-key.pkeyutl-decrypts"])
        XCTAssertTrue(results.first { $0.check.name.hasSuffix("len32") }?.message.contains("python failed to decrypt") == true)
    }

    func testTrustsAnyServer_failsEveryRefusal() throws {
        let results = try runAppChecks([TrustsAnyServerApp()])
        let prefix = "crosscheck.aes-https.app_pinning.planted-trusts-any-server.tls."
        XCTAssertEqual(notPassed(results, app: ""), ["refuses-impostor-certificate-for-the-same-name", "refuses-impostor-certificate-under-a-pinned-ca",
                                                     "refuses-pinned-certificate-under-another-host-name", "refuses-ca-signed-leaf-under-another-host-name",
                                                     "refuses-expired-certificate"].map { prefix + $0 })
    }

    func testComparesBytesOnly_failsNamesDatesAndCAs() throws {
        let results = try runAppChecks([ComparesBytesOnlyApp()])
        let prefix = "crosscheck.aes-https.app_pinning.planted-compares-bytes-only.tls."
        XCTAssertEqual(notPassed(results, app: ""), ["accepts-leaf-signed-by-pinned-ca", "accepts-leaf-and-ca-chain-with-pinned-ca",
                                                     "refuses-impostor-certificate-under-a-pinned-ca", "refuses-pinned-certificate-under-another-host-name",
                                                     "refuses-ca-signed-leaf-under-another-host-name", "refuses-expired-certificate"].map { prefix + $0 })
        // A refusal for the wrong reason is caught by its control.
        XCTAssertTrue(results.first { $0.check.name.hasSuffix("impostor-certificate-under-a-pinned-ca") }?.message.hasPrefix("control:") == true)
    }

    func testZeroIV_failsTheFreshIVCheck_andBase64RawKeysItCannotUse() throws {
        let results = try runAppChecks([ZeroIVEnvelopeApp()])
        let failed = notPassed(results, app: "")
        XCTAssertTrue(failed.contains("crosscheck.aes-https.app_to_python.planted-zero-iv.envelope.fresh-iv-per-request"), "\(failed)")
        XCTAssertEqual(failed.filter { !$0.contains("base64-raw") }, ["crosscheck.aes-https.app_to_python.planted-zero-iv.envelope.fresh-iv-per-request"])
        XCTAssertEqual(failed.count, 1 + 3 * 4 + 2)  // base64-raw: 3 key sizes × (2 roundtrip + 2 vectors), 2 sessions
    }

    func testPinningExpiryCheck_warnsNinetyDaysAhead_andFailsOnceExpired() throws {
        let context = try suiteContext()
        let leavesEnd = try XCTUnwrap(ISO8601DateFormatter().date(from: "2029-02-03T00:00:00Z"))
        func outcome(at date: Date) -> CheckOutcome { Runner.run(AppSuites.iosCertificateExpiry(context, now: date)).outcome }
        XCTAssertEqual(outcome(at: leavesEnd.addingTimeInterval(-91 * 86_400)), .passed)
        guard case let .skipped(reason) = outcome(at: leavesEnd.addingTimeInterval(-30 * 86_400)) else { return XCTFail("expected a warning") }
        XCTAssertTrue(reason.hasPrefix("WARNING: Vectors/tls/ios-"), reason)
        XCTAssertTrue(reason.contains("expires on 2029-02-03, in 30 days"), reason)
        guard case let .failed(message, _) = outcome(at: leavesEnd.addingTimeInterval(86_400)) else { return XCTFail("expected a failure") }
        XCTAssertTrue(message.contains("expired on 2029-02-03"), message)
    }
}
