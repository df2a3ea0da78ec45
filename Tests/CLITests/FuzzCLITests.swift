import Foundation
import XCTest

/// `crosscheck fuzz` and `crosscheck replay`, end to end: the built binary, its exit codes, reports
/// and reproducers, and the remote mode against a PythonRef server this test starts on 127.0.0.1.
final class FuzzCLITests: XCTestCase {
    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-fuzz-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func testHelpAndUsageErrors() throws {
        for command in ["fuzz", "replay"] {
            let help = try CrosscheckBinary.run([command, "--help"])
            XCTAssertEqual(help.status, 0)
            XCTAssertTrue(help.stdout.hasPrefix("USAGE: crosscheck \(command)"), help.stdout)
        }
        for arguments in [["fuzz", "--frames", "0"], ["fuzz", "--family", "nope"], ["fuzz", "--plant", "nope"], ["fuzz", "--deadline", "-1"],
                          ["fuzz", "extra"], ["replay"]] {
            let outcome = try CrosscheckBinary.run(arguments)
            XCTAssertEqual(outcome.status, 64, "\(arguments): \(outcome.stderr)")
            XCTAssertFalse(outcome.stderr.isEmpty, "\(arguments)")
        }
    }

    func testSmallRun_isCleanAndWritesOneTestcasePerFamilyWithCounts() throws {
        let directory = try temporaryDirectory()
        let report = directory.appendingPathComponent("fuzz.xml")
        let outcome = try CrosscheckBinary.run(["fuzz", "--frames", "420", "--seed", "4", "--quiet", "--junit", report.path,
                                                "--save-failures", directory.appendingPathComponent("failures").path])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("420 frames in"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("0 disagreements, 0 spec violations, 0 crashes, 0 hangs"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("peak memory"), outcome.stdout)
        XCTAssertEqual(try CrosscheckBinary.validate(report), 0)
        let xml = try String(contentsOf: report, encoding: .utf8)
        XCTAssertEqual(xml.components(separatedBy: "<testcase ").count - 1, 14, xml)
        XCTAssertTrue(xml.contains("name=\"rsa-socket.encrypted\""), xml)
        XCTAssertTrue(xml.contains("\n  frames = 30\n"), xml)  // per-testcase counts, in the suite's system-out
        XCTAssertTrue(xml.contains("<property name=\"crosscheck.seed\" value=\"4\""), xml)
    }

    /// The acceptance test of the issue, through the command line: a Swift side that accepts 15-byte
    /// IVs is found by the default budget, saved, and `crosscheck replay` reproduces it (exit 1) —
    /// and agrees once the flaw is gone (exit 0).
    func testPlantedFlaw_isFoundByTheDefaultBudget_andReplayReproducesIt() throws {
        let directory = try temporaryDirectory()
        let failures = directory.appendingPathComponent("failures")
        let report = directory.appendingPathComponent("fuzz.xml")
        let outcome = try CrosscheckBinary.run(["fuzz", "--plant", "accepts-15-byte-iv", "--seed", "1", "--quiet",
                                                "--save-failures", failures.path, "--junit", report.path])
        XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("10000 frames in"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("PLANTED FLAW accepts-15-byte-iv"), outcome.stdout)
        XCTAssertEqual(try CrosscheckBinary.validate(report), 0)
        let xml = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(xml.contains("<failure"), xml)
        XCTAssertTrue(xml.contains(".swift-accepted-plaintext-vs-python-rejected-badlength"), xml)
        XCTAssertTrue(xml.contains("name=\"aes-https.cbc.disagreement.iv-"), "findings are grouped by mutator: \(xml)")

        let files = try FileManager.default.contentsOfDirectory(at: failures, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }.sorted { $0.path < $1.path }
        let file = try XCTUnwrap(files.first, "a reproducer was saved")
        let replay = try CrosscheckBinary.run(["replay", file.path])
        XCTAssertEqual(replay.status, 1, replay.stdout + replay.stderr)
        XCTAssertTrue(replay.stdout.contains("result: still a disagreement"), replay.stdout)
        let fixed = try CrosscheckBinary.run(["replay", "--without-plant", file.path])
        XCTAssertEqual(fixed.status, 0, fixed.stdout + fixed.stderr)
        XCTAssertTrue(fixed.stdout.contains("result: agreement (fixed)"), fixed.stdout)
    }

    /// Issue 37: a flaw both sides share is no disagreement, so only the specification's answer
    /// can catch it. Both sides planted to accept e = 1 keys: the run fails with spec violations
    /// naming the mutator and the clause, and says both sides answered against it; without the
    /// plant the same frames are clean, and each mutator's counts are in the report.
    func testFlawOnBothSides_isCaughtByTheSpecificationNotByAgreement() throws {
        let directory = try temporaryDirectory()
        let report = directory.appendingPathComponent("fuzz.xml")
        let planted = try CrosscheckBinary.run(["fuzz", "--plant", "accepts-exponent-1-on-both-sides", "--family", "keys.public", "--frames", "3000",
                                                "--seed", "5", "--quiet", "--junit", report.path,
                                                "--save-failures", directory.appendingPathComponent("failures").path])
        XCTAssertEqual(planted.status, 1, planted.stdout + planted.stderr)
        XCTAssertTrue(planted.stdout.contains(" 0 disagreements, "), "the two sides agree: \(planted.stdout)")
        XCTAssertTrue(planted.stdout.contains("keys.public spec ×"), planted.stdout)
        XCTAssertTrue(planted.stdout.contains("mutator exponent-1"), planted.stdout)
        XCTAssertTrue(planted.stdout.contains("specification: invalid (RFC 8017 §3.1"), planted.stdout)
        XCTAssertTrue(planted.stdout.contains("answered against it: swift and python — both sides agree, and both are wrong"), planted.stdout)
        XCTAssertEqual(try CrosscheckBinary.validate(report), 0)
        XCTAssertTrue(try String(contentsOf: report, encoding: .utf8).contains("name=\"keys.public.spec.exponent-1."), "grouped by mutator")

        let clean = try CrosscheckBinary.run(["fuzz", "--family", "keys.public", "--frames", "3000", "--seed", "5", "--quiet", "--junit", report.path,
                                              "--save-failures", directory.appendingPathComponent("failures").path])
        XCTAssertEqual(clean.status, 0, clean.stdout + clean.stderr)
        XCTAssertTrue(clean.stdout.contains("0 disagreements, 0 spec violations, 0 crashes, 0 hangs"), clean.stdout)
        let xml = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(xml.contains("mutator.exponent-1 = frames "), xml)
        XCTAssertTrue(xml.contains(", both accept 0, ") && xml.contains("(spec: invalid)"), xml)
    }

    /// `--jobs N` splits the run's frames over N worker processes: the merged result must be what
    /// one process finds, frame for frame. With a planted flaw (so that there are failures), one
    /// process and three (unequal shares) must print the same per-family counts and the same
    /// distinct failures with the same first frames, and write byte-identical reproducers.
    func testJobs_workersFindExactlyWhatOneProcessFinds() throws {
        let directory = try temporaryDirectory()
        func run(jobs: Int) throws -> (summary: String, reproducers: [String: Data], xml: String) {
            let failures = directory.appendingPathComponent("jobs\(jobs)")
            let report = directory.appendingPathComponent("jobs\(jobs).xml")
            // --deadline 60: a frame over its deadline is a hang, judged by the wall clock, which a
            // loaded machine (make test's lanes) can stretch past 5 s in one run and not the other;
            // what is compared here is the frames' verdicts, not their time.
            let outcome = try CrosscheckBinary.run(["fuzz", "--frames", "2803", "--seed", "11", "--plant", "accepts-15-byte-iv", "--jobs", String(jobs),
                                                    "--deadline", "60", "--quiet", "--save-failures", failures.path, "--junit", report.path])
            XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr)
            XCTAssertEqual(try CrosscheckBinary.validate(report), 0)
            // Timing differs between runs: the slowest-frame column, the rate, the wall time.
            let summary = outcome.stdout.split(separator: "\n").map { line -> String in
                var text = String(line).replacingOccurrences(of: failures.path, with: "FOLDER")
                if let range = text.range(of: #" +[0-9]+ ms$"#, options: .regularExpression) { text.removeSubrange(range) }
                if let range = text.range(of: #" in [0-9.]+ s: .*?;"#, options: .regularExpression) { text.removeSubrange(range) }
                if let range = text.range(of: #"peak memory .*?;"#, options: .regularExpression) { text.removeSubrange(range) }
                return text
            }.filter { !$0.hasPrefix("wall time") && !$0.hasPrefix("JUnit report") }.joined(separator: "\n")
            var reproducers: [String: Data] = [:]
            for file in try FileManager.default.contentsOfDirectory(at: failures, includingPropertiesForKeys: nil) {
                reproducers[file.lastPathComponent] = try Data(contentsOf: file)
            }
            return (summary, reproducers, try String(contentsOf: report, encoding: .utf8))
        }
        let one = try run(jobs: 1), three = try run(jobs: 3)
        XCTAssertTrue(one.summary.contains("2803 frames"), one.summary)
        XCTAssertTrue(one.summary.contains("distinct failures"), one.summary)
        XCTAssertEqual(one.summary, three.summary)
        XCTAssertFalse(one.reproducers.isEmpty)
        XCTAssertEqual(Set(one.reproducers.keys), Set(three.reproducers.keys))
        for (name, bytes) in one.reproducers { XCTAssertEqual(three.reproducers[name], bytes, name) }
        XCTAssertTrue(three.xml.contains("<property name=\"crosscheck.processes\" value=\"3\""), three.xml)
        XCTAssertTrue(one.xml.contains("<property name=\"crosscheck.processes\" value=\"1\""), one.xml)
    }

    /// SIGINT to the parent of a --jobs run: it interrupts its workers, merges what they did, and
    /// writes a valid report marked partial (exit 130), with no worker left behind.
    func testJobs_interruptedRunMergesWhatTheWorkersDid() throws {
        let directory = try temporaryDirectory()
        let report = directory.appendingPathComponent("partial.xml")
        let status = try CrosscheckBinary.interruptAfter("2 worker processes", ["fuzz", "--frames", "5000000", "--seed", "3", "--jobs", "2",
                                                                                "--junit", report.path, "--save-failures", directory.path])
        XCTAssertEqual(status, 130)
        XCTAssertEqual(try CrosscheckBinary.validate(report), 0)
        let xml = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(xml.contains("crosscheck.partial"), xml)
        XCTAssertFalse(xml.contains("lost-worker"), xml)
    }

    /// A Swift side that traps: the process dies on the signal, but the frame it died on is saved
    /// first (by seed, family and ordinal), and replay regenerates it.
    func testCrash_leavesAReproducerThatReplayRegenerates() throws {
        let directory = try temporaryDirectory()
        let outcome = try CrosscheckBinary.run(["fuzz", "--plant", "crashes-on-15-byte-iv", "--seed", "1", "--family", "aes-https.envelope",
                                                "--frames", "3000", "--quiet", "--save-failures", directory.path])
        XCTAssertNotEqual(outcome.status, 0)
        XCTAssertTrue(outcome.stderr.contains("died on a signal; the frame's reproducer is"), outcome.stderr)
        let file = try XCTUnwrap(try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .first { $0.lastPathComponent.hasPrefix("crash.seed1.") })
        let text = try String(contentsOf: file, encoding: .utf8)
        XCTAssertTrue(text.contains("\"kind\":\"crash\"") && text.contains("\"family\":\"aes-https.envelope\""), text)
        let fixed = try CrosscheckBinary.run(["replay", "--without-plant", file.path])
        XCTAssertEqual(fixed.status, 0, fixed.stdout + fixed.stderr)
        XCTAssertTrue(fixed.stdout.contains("IV is 15 bytes"), fixed.stdout)
        let again = try CrosscheckBinary.run(["replay", file.path])
        XCTAssertNotEqual(again.status, 0, "with the flaw planted the replay dies again")
        XCTAssertTrue(again.stderr.contains("planted crash"), again.stderr)
    }

    // MARK: remote

    /// `python3 -m pythonref serve rsa-socket` on 127.0.0.1 with the seed corpus's key, stopped at teardown.
    func startPythonRefServer(_ arguments: [String], python: String = "/usr/bin/python3") throws -> UInt16 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        let root = CrosscheckBinary.root
        process.arguments = ["-m", "pythonref", "serve", "rsa-socket", "--host", "127.0.0.1", "--port", "0", "--quiet",
                             "--key", root.appendingPathComponent("Vectors/frames/keys/fuzz-rsa1024.pem").path] + arguments
        process.currentDirectoryURL = root.appendingPathComponent("PythonRef")
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = root.appendingPathComponent("PythonRef").path
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        addTeardownBlock {
            process.terminate()
            process.waitUntilExit()
        }
        // The server prints one readiness line once bound; reading it needs no sleeping.
        var text = ""
        while !text.contains("\n") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let line = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("listening on ") }, "server did not start: \(text)")
        return try XCTUnwrap(UInt16(line.split(separator: ":").last ?? ""))
    }

    func testServerAddress_pythonRefServerAnswersEveryMalformedFrameAsItsMachineDoesAndStaysAlive() throws {
        let port = try startPythonRefServer(["--padding", "oaep-sha256", "--digest"])
        let directory = try temporaryDirectory()
        let report = directory.appendingPathComponent("remote.xml")
        let outcome = try CrosscheckBinary.run(["fuzz", "--target", "127.0.0.1:\(port)", "--remote-padding", "oaep-sha256", "--remote-digest",
                                                "--remote-key", "Vectors/frames/keys/fuzz-rsa1024.pem", "--frames", "160", "--seed", "2",
                                                "--quiet", "--junit", report.path, "--save-failures", directory.path])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("target 127.0.0.1:\(port)"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("160 frames in"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("0 disagreements, 0 spec violations, 0 crashes, 0 hangs"), outcome.stdout)
        XCTAssertEqual(try CrosscheckBinary.validate(report), 0)
        let xml = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(xml.contains("fuzz.python_vs_remote"), xml)
        // Four families (conversation, client key, encrypted; framed only for a framed server).
        XCTAssertEqual(xml.components(separatedBy: "<testcase ").count - 1, 3, xml)
    }

    /// The remote check can fail: told the wrong padding, the expected answers (and the good
    /// conversation after each family) no longer match what the server does.
    func testServerAddress_aServerThatAnswersOtherwiseFails() throws {
        let port = try startPythonRefServer(["--padding", "oaep-sha256"])
        let directory = try temporaryDirectory()
        let outcome = try CrosscheckBinary.run(["fuzz", "--target", "127.0.0.1:\(port)", "--remote-padding", "pkcs1",
                                                "--remote-key", "Vectors/frames/keys/fuzz-rsa1024.pem", "--frames", "60", "--seed", "2",
                                                "--quiet", "--save-failures", directory.path])
        XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("liveness"), outcome.stdout)
    }

    /// A Pi on a current image: PythonRef run by a current cryptography (OpenSSL ≥ 3.2, from `make
    /// venv-current`), its library rejecting bad PKCS#1 v1.5 paddings implicitly. With
    /// `--remote-rejection implicit` the in-process PythonRef (Debian's OpenSSL 3.0, its own model of
    /// the algorithm) must answer every frame as the live server does — synthetic digests byte for
    /// byte; told `explicit`, the bad paddings disagree.
    func testServerAddress_implicitRejectionOnACurrentOpenSSL_agreesOnlyWhenSaidSo() throws {
        let venv = CrosscheckBinary.root.appendingPathComponent(".venv-current/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: venv) else {
            throw XCTSkip("no .venv-current (make venv-current): a cryptography on OpenSSL >= 3.2 is needed to stand for a current Pi")
        }
        let port = try startPythonRefServer(["--padding", "pkcs1", "--digest", "--rsa-rejection", "implicit"], python: venv)
        let directory = try temporaryDirectory()
        let common = ["fuzz", "--target", "127.0.0.1:\(port)", "--remote-padding", "pkcs1", "--remote-digest",
                      "--remote-key", "Vectors/frames/keys/fuzz-rsa1024.pem", "--family", "rsa-socket.encrypted", "--frames", "120", "--seed", "3",
                      "--quiet", "--save-failures", directory.path]
        let implicit = try CrosscheckBinary.run(common + ["--remote-rejection", "implicit"])
        XCTAssertEqual(implicit.status, 0, implicit.stdout + implicit.stderr)
        XCTAssertTrue(implicit.stdout.contains("0 disagreements, 0 spec violations, 0 crashes, 0 hangs"), implicit.stdout)
        let explicit = try CrosscheckBinary.run(common + ["--remote-rejection", "explicit"])
        XCTAssertEqual(explicit.status, 1, explicit.stdout + explicit.stderr)
        XCTAssertFalse(explicit.stdout.contains(" 0 disagreements"), explicit.stdout)
    }
}
