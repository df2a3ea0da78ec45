import Foundation
import XCTest

/// Issue 35, end to end: `crosscheck run --app` on an Xcode project (examples/xcode-app: an app
/// target holding UIKit files, an RSA helper that encrypts to the Pi's PEM key, a CCHmac request
/// signer and a bundled `.pem`; the adapter beside the project). The UIKit files are left out with
/// a note, the crypto files are built and checked, the bundled key is in `Bundle(for:)`; with
/// PKCS#1 planted where OAEP-SHA256 is declared, the failure names the padding and the function.
final class XcodeAppCLITests: XCTestCase {
    static let example = CrosscheckBinary.root.appendingPathComponent("examples/xcode-app")

    /// A copy of the example under a fixed temporary path (so its package builds incrementally), with `edit` applied to one file.
    func copy(_ name: String, editing file: String? = nil, _ edit: (String) -> String = { $0 }) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-cli-apps/\(name)")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.example, to: folder)
        if let file {
            let url = folder.appendingPathComponent(file)
            let text = try String(contentsOf: url, encoding: .utf8)
            let edited = edit(text)
            XCTAssertNotEqual(edited, text, "the edit changed nothing in \(file)")
            try Data(edited.utf8).write(to: url)
        }
        return folder
    }

    func testXcodeProject_buildsTheCryptoFiles_leavesOutUIKit_andChecksThem() throws {
        let folder = try copy("xcode-app")
        let outcome = try CrosscheckBinary.run(["run", "--app", folder.appendingPathComponent("PiRemote.xcodeproj").path, "--suite", "roundtrip,vectors",
                                                "--filter", "pi-remote", "--seed", "35"])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("left out PiRemote/AppDelegate.swift: line 1: imports UIKit (the app's UI)"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("left out PiRemote/UnlockViewController.swift: line 1: imports UIKit"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("(3 Swift files)"), outcome.stderr)  // the two crypto files and the adapter
        XCTAssertTrue(outcome.stderr.contains("1 resource file(s) beside the host, in Bundle.main: pi_public.pem"), outcome.stderr)
        // The adapter names itself pi-remote only when Bundle(for:) and Bundle.main find the bundled key.
        XCTAssertTrue(outcome.stderr.contains("the app under test is pi-remote (PeerKeyEncryption, RequestSigning)"), outcome.stderr)
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "roundtrip.app_to_python"), [10, 10, 0, 0, 0], outcome.stdout)
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "vectors.app_to_openssl"), [1, 1, 0, 0, 0], outcome.stdout)
    }

    func testXcodeProject_PKCS1WhereOAEPIsDeclared_failsNamingThePaddingAndTheFunction() throws {
        let folder = try copy("xcode-app-pkcs1", editing: "PiRemote/Crypto/ServerKeyEncryptor.swift") {
            $0.replacingOccurrences(of: ".rsaEncryptionOAEPSHA256", with: ".rsaEncryptionPKCS1")
        }
        let report = try makeTemporaryDirectory().appendingPathComponent("pkcs1.xml")
        let outcome = try CrosscheckBinary.run(["run", "--app", folder.path, "--suite", "roundtrip", "--filter", "pi-remote.peer-key", "--seed", "35",
                                                "--quiet", "--junit", report.path])
        XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr)
        // The three decryptions fail; the app's import still refuses e = 1, a truncated key and an EC key.
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "roundtrip.app_to_python"), [6, 3, 3, 0, 0], outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("FAIL  crosscheck.peer-key.app_to_python.pi-remote.peer-key.oaep-sha256.pem-spki.len32.python-decrypts: pi-remote "
                                              + "(in ServerKeyEncryptor.encrypt(_:publicKeyPEM:) in PiRemote/Crypto/ServerKeyEncryptor.swift) encrypted with PKCS#1 v1.5, "
                                              + "declared OAEP-SHA256"), outcome.stdout)
        let xml = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(xml.contains("Fix: pass .rsaEncryptionOAEPSHA256 to SecKeyCreateEncryptedData"), xml)
    }

    /// Issue 35's first finding: a signer that compiled and got zero checks, and nothing said so.
    func testAdapterWithoutRequestSigning_theSignerIsNamedAsNeverExercised() throws {
        let folder = try copy("xcode-app-no-signing", editing: "CrosscheckAdapter.swift") { text in
            guard let start = text.range(of: "    let requestSigningScheme"), let end = text.range(of: "func makeAppUnderTest") else { return text }
            return String(text[..<start.lowerBound]).replacingOccurrences(of: ", PeerKeyEncryption, RequestSigning {", with: ", PeerKeyEncryption {")
                + "}\n\n" + String(text[end.lowerBound...])
        }
        let outcome = try CrosscheckBinary.run(["run", "--app", folder.path, "--suite", "roundtrip", "--filter", "pi-remote", "--quiet"])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("crosscheck run: no check exercises PiRemote/Crypto/RequestSigner.swift: nothing the adapter calls uses what it declares "
                                              + "(RequestSigner, dataFromHex, sign); adopt the capability"), outcome.stderr)
        XCTAssertFalse(outcome.stderr.contains("ServerKeyEncryptor.swift: nothing"), outcome.stderr)
    }

    /// Issue 35 E: --app-coverage, the lines the checks ran per app file; with only the peer-key
    /// checks, the request signer is at 0 % and said to be run by no check.
    func testAppCoverage_perFile_theSignerUnrunWhenOnlyPeerKeyChecksRun() throws {
        let folder = try copy("xcode-app-coverage")
        let outcome = try CrosscheckBinary.run(["run", "--app", folder.path, "--app-coverage", "--suite", "roundtrip", "--filter", "pi-remote.peer-key", "--quiet"])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        let lines = outcome.stderr.split(separator: "\n").map(String.init)
        let signer = try XCTUnwrap(lines.first { $0.hasSuffix("PiRemote/Crypto/RequestSigner.swift   <- no check ran any of it") }, outcome.stderr)
        XCTAssertTrue(signer.hasPrefix("     0.0%      0 of "), signer)
        let encryptor = try XCTUnwrap(lines.first { $0.hasSuffix("  PiRemote/Crypto/ServerKeyEncryptor.swift") }, outcome.stderr)
        let percent = try XCTUnwrap(Double(encryptor.trimmingCharacters(in: .whitespaces).prefix { $0 != "%" }))
        XCTAssertGreaterThan(percent, 80, encryptor)
    }

    func testXcodeProject_excludeAndUnknownTarget() throws {
        let folder = try copy("xcode-app-exclude")
        let excluded = try CrosscheckBinary.run(["run", "--app", folder.path, "--app-exclude", "RequestSigner.swift", "--suite", "roundtrip", "--quiet"])
        // The adapter calls RequestSigner, which is left out: the build fails naming it.
        XCTAssertEqual(excluded.status, 69, excluded.stderr)
        XCTAssertTrue(excluded.stderr.contains("cannot find 'RequestSigner' in scope"), excluded.stderr)
        // The control for Bundle.main: without the bundled key (excluded), the app does not find it.
        let unbundled = try CrosscheckBinary.run(["run", "--app", folder.path, "--app-exclude", "*.pem", "--suite", "roundtrip", "--filter", "peer-key.oaep-sha256.pem-spki.len0"])
        XCTAssertEqual(unbundled.status, 0, unbundled.stdout + unbundled.stderr)
        XCTAssertTrue(unbundled.stderr.contains("the app under test is pi-remote-without-its-bundle (PeerKeyEncryption, RequestSigning)"), unbundled.stderr)
        XCTAssertFalse(unbundled.stderr.contains("beside the host, in Bundle.main"), unbundled.stderr)
        for option in [["--app-target", "X"], ["--app-exclude", "*.swift"], ["--app-coverage"]] {
            let refused = try CrosscheckBinary.run(["run", "--app", "seed-003"] + option + ["--suite", "roundtrip", "--quiet"])
            XCTAssertEqual(refused.status, 64, refused.stderr)
            XCTAssertTrue(refused.stderr.contains("\(option[0]) goes with --app DIR"), refused.stderr)
        }
        let unknown = try CrosscheckBinary.run(["run", "--app", folder.path, "--app-target", "Widget", "--suite", "roundtrip", "--quiet"])
        XCTAssertEqual(unknown.status, 66, unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("PiRemote.xcodeproj has no target 'Widget'; its targets: PiRemote, PiRemoteTests"), unknown.stderr)
    }
}
