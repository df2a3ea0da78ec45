import Foundation
import XCTest

/// `crosscheck wycheproof`, end to end: the vendored files, files it has never seen, files it
/// must refuse, and its usage errors.
final class WycheproofCLITests: XCTestCase {
    static let vendored = ["aes_cbc_pkcs5_test.json", "aes_gcm_test.json", "chacha20_poly1305_test.json",
                           "rsa_oaep_2048_sha1_mgf1sha1_test.json", "rsa_oaep_2048_sha256_mgf1sha256_test.json", "rsa_pkcs1_2048_test.json"]
        .map { "Vectors/wycheproof/\($0)" }

    func testVendoredFiles_bothImplementations_exitZeroWithZeroFailuresAndAValidReport() throws {
        let report = try makeTemporaryDirectory().appendingPathComponent("wycheproof.xml")
        let outcome = try CrosscheckBinary.run(["wycheproof", "--impl", "both", "--quiet", "--junit", report.path] + Self.vendored)
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("1896 passed, 0 failed, 0 errors, 107 skipped"), outcome.stdout)
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "wycheproof.rsa_pkcs1_2048_test.python"), [68, 68, 0, 0, 0])
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "wycheproof.aes_gcm_test.swift"), [316, 273, 0, 0, 43])
        // pyca takes AES-GCM nonces of at most 128 bytes: the three 257-byte ones are Unsupported there.
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "wycheproof.aes_gcm_test.python"), [316, 270, 0, 0, 46])
        XCTAssertTrue(outcome.stdout.contains("43 × on each of 2 suites: aes_gcm_test.json: IV under 96 bits"), outcome.stdout)
        XCTAssertEqual(try CrosscheckBinary.validate(report), 0)
        let xml = try String(contentsOf: report, encoding: .utf8)
        XCTAssertEqual(xml.components(separatedBy: "<testcase ").count - 1, 2003)
        // Named by file and tcId, with the vector's result, flags and comment next to the tcId.
        let tc9 = "rsa_pkcs1_2048_test.tc9 (invalid; InvalidPkcs1Padding): The padding string is all 0."
        XCTAssertTrue(xml.contains(#"<testcase name="\#(tc9)" classname="crosscheck.rsa-socket.wycheproof_to_swift""#))
        // The Ant schema has no testcase properties: the rest goes to the suite's system-out, not to suite properties.
        XCTAssertTrue(xml.contains("\ntestcase 8 \(tc9)\n  weakness = PKCS#1 v1.5 encryption (Bleichenbacher/ROBOT padding oracles)\n"
            + "  outcome = error DecryptFailed (RSA decryption failed)\n"), "outcome recorded per testcase")
        XCTAssertFalse(xml.contains("<property name=\"testcase["))
    }

    /// Files written by scripts/wycheproof_unseen.py with fresh keys: RSA-3072 OAEP (SHA-384/MGF1-SHA-512
    /// with labels, SHA-512/224/MGF1-SHA-512/256, a SHA3-256 group), RSA-4096 PKCS#1 with constructed
    /// bad paddings, AES-GCM with 96-, 128-, 480- and 64-bit IVs and 96-bit tags. Every vector that can be
    /// expressed must run and pass; every other one must be skipped.
    func testNeverSeenFiles_everyExpressibleVectorRunsAndPassesAndTheRestAreSkipped() throws {
        let directory = try makeTemporaryDirectory()
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        script.arguments = [CrosscheckBinary.root.appendingPathComponent("scripts/wycheproof_unseen.py").path, directory.path]
        let out = Pipe()
        script.standardOutput = out
        try script.run()
        let printed = out.fileHandleForReading.readDataToEndOfFile()
        script.waitUntilExit()
        try? out.fileHandleForReading.close()
        XCTAssertEqual(script.terminationStatus, 0)

        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        XCTAssertEqual(files, ["aes_gcm_unseen_test.json", "rsa_oaep_3072_unseen_test.json", "rsa_pkcs1_4096_unseen_test.json"])
        let outcome = try CrosscheckBinary.run(["wycheproof", "--impl", "both", "--quiet"] + files.map { directory.appendingPathComponent($0).path })
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)

        let claims = String(decoding: printed, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(claims.count, 3)
        for name in files {
            // Counted here from the file itself, by the rule the tool is meant to follow.
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent(name))) as? [String: Any])
            let groups = try XCTUnwrap(json["testGroups"] as? [[String: Any]])
            let offered: Set<String> = ["SHA-1", "SHA-224", "SHA-256", "SHA-384", "SHA-512", "SHA-512/224", "SHA-512/256"]
            var total = 0, expressible = 0, oracle = 0
            for group in groups {
                let tests = try XCTUnwrap(group["tests"] as? [[String: Any]])
                total += tests.count
                let runs: Bool
                switch group["type"] as? String {
                case "AeadTest": runs = (group["ivSize"] as? Int ?? 0) >= 96 && group["tagSize"] as? Int == 128
                case "RsaesOaepDecrypt": runs = offered.contains(group["sha"] as? String ?? "") && offered.contains(group["mgfSha"] as? String ?? "")
                default: runs = true
                }
                if runs { expressible += tests.count }
                if runs, tests.contains(where: { ($0["flags"] as? [String] ?? []).contains { $0 == "InvalidPkcs1Padding" || $0 == "InvalidOaepPadding" } }) {
                    oracle = 1
                }
            }
            XCTAssertGreaterThan(expressible, 10, name)
            let claim = try XCTUnwrap(claims.first { $0["file"] as? String == name })
            XCTAssertEqual(claim["expressible"] as? Int, expressible, name)
            let stem = String(name.dropLast(5))
            for implementation in ["swift", "python"] {
                XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "wycheproof.\(stem).\(implementation)"),
                               [total + oracle, expressible + oracle, 0, 0, total - expressible], "\(name) on \(implementation)")
            }
            if oracle == 1 {
                XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "wycheproof.\(stem).swift_vs_python"), [1, 1, 0, 0, 0])
            }
        }
        XCTAssertTrue(outcome.stdout.contains("rsa_oaep_3072_unseen_test.json: OAEP hash not offered"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("aes_gcm_unseen_test.json: tag not 128 bits"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("rsa_pkcs1_4096_unseen_test.tc6: real plaintext"), "the acceptable vector's outcome is reported")
    }

    func testSwiftOnly_needsNoPython() throws {
        let outcome = try CrosscheckBinary.run(["wycheproof", "--impl", "swift", "--quiet", "--pythonref", "/nonexistent/PythonRef",
                                                "Vectors/wycheproof/rsa_oaep_2048_sha1_mgf1sha1_test.json"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "wycheproof.rsa_oaep_2048_sha1_mgf1sha1_test.swift"), [37, 37, 0, 0, 0])
        XCTAssertFalse(outcome.stdout.contains(".python"))
    }

    func testFileTheLoaderRefuses_exits1AndSaysWhereAndWhy() throws {
        let directory = try makeTemporaryDirectory()
        let source = try String(contentsOf: CrosscheckBinary.root.appendingPathComponent("Vectors/wycheproof/rsa_oaep_2048_sha1_mgf1sha1_test.json"), encoding: .utf8)
        let edited = directory.appendingPathComponent("edited_test.json")
        try source.replacingOccurrences(of: "\"result\" : \"invalid\"", with: "\"result\" : \"maybe\"")
            .replacingOccurrences(of: "\"result\": \"invalid\"", with: "\"result\": \"maybe\"").write(to: edited, atomically: true, encoding: .utf8)
        let outcome = try CrosscheckBinary.run(["wycheproof", "--impl", "swift", "--quiet", edited.path,
                                                "Vectors/wycheproof/rsa_oaep_2048_sha256_mgf1sha256_test.json"])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertTrue(outcome.stdout.contains("  ERROR crosscheck.wycheproof.load.edited_test: cannot run edited_test.json: edited_test.json: testGroups[0].tests["),
                      outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("unknown result 'maybe'"), outcome.stdout)
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "wycheproof.rsa_oaep_2048_sha256_mgf1sha256_test.swift"), [38, 38, 0, 0, 0],
                       "the other file still runs")
    }

    func testUsageErrors_exit64() throws {
        for arguments in [["wycheproof"], ["wycheproof", "--impl", "java", "x.json"], ["wycheproof", "--bogus", "x.json"], ["wycheproof", "--junit"]] {
            let outcome = try CrosscheckBinary.run(arguments)
            XCTAssertEqual(outcome.status, 64, "\(arguments): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains("crosscheck wycheproof --help"), outcome.stderr)
        }
        let help = try CrosscheckBinary.run(["wycheproof", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.hasPrefix("USAGE: crosscheck wycheproof"), help.stdout)
    }
}
