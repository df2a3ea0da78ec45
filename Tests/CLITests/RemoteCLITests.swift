import Foundation
import XCTest

/// `crosscheck remote` end to end against PythonRef servers on 127.0.0.1, directly and through a
/// fault-injecting proxy.
final class RemoteCLITests: XCTestCase {
    let servers = TestServers()

    override func tearDown() { servers.stopAll() }

    /// Starts `python3 -m pythonref serve …` on a free port; returns its port.
    func startPythonServer(_ arguments: [String]) throws -> UInt16 { try servers.startPythonRef(arguments) }

    func remote(_ port: UInt16, _ extra: [String]) throws -> (CrosscheckBinary.Outcome, String, TimeInterval) {
        let report = try makeTemporaryDirectory().appendingPathComponent("remote.xml")
        let start = Date()
        // These tests judge the reference client's checks; the seed-app client has tests of its own.
        let client = extra.contains("--client") ? [] : ["--client", "reference"]
        // The fixture certificate (30 years) is one iOS's ATS refuses; `crosscheck ats` has tests of its own (ATSCLITests).
        let ats = extra.contains("aes-https") ? ["--skip-ats"] : []
        let outcome = try CrosscheckBinary.run(["remote", "--host", "127.0.0.1", "--port", String(port), "--junit", report.path, "--quiet"]
                                               + client + ats + extra)
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(try CrosscheckBinary.validate(report), 0, "the report validates")
        return (outcome, (try? String(contentsOf: report, encoding: .utf8)) ?? "", elapsed)
    }

    func testConformingServer_passesAndListsFindingsInTheAudit() throws {
        let port = try startPythonServer(["rsa-socket", "--padding", "oaep-sha256", "--digest", "--framing", "framed"])
        let (outcome, xml, _) = try remote(port, ["--profile", "rsa-socket", "--framing", "framed"])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(xml.contains("<testsuite name=\"remote.127.0.0.1:\(port)\""))
        XCTAssertTrue(xml.contains("<testsuite name=\"audit.127.0.0.1:\(port)\""))
        XCTAssertTrue(xml.contains("name=\"digest.phone-to-pi\""))
        XCTAssertFalse(xml.contains("passed-unverified"), "the digest proves every plaintext")
        XCTAssertFalse(xml.contains("weakness:"), "OAEP, RSA-2048 and framed: nothing weak")
    }

    func testPKCS1And1024BitServer_namesBothWeaknesses_exit0_butExit1WithStrict() throws {
        let port = try startPythonServer(["rsa-socket", "--padding", "pkcs1", "--key-bits", "1024"])
        let (outcome, xml, _) = try remote(port, ["--profile", "rsa-socket", "--direction", "phone-to-pi"])
        XCTAssertEqual(outcome.status, 0, outcome.stdout)
        XCTAssertTrue(xml.contains("weakness: the server&apos;s RSA key is 1024 bits") || xml.contains("weakness: the server's RSA key is 1024 bits"), xml)
        XCTAssertTrue(xml.contains("uses PKCS#1 v1.5 encryption"), xml)
        let (strict, strictXML, _) = try remote(port, ["--profile", "rsa-socket", "--direction", "phone-to-pi", "--strict"])
        XCTAssertEqual(strict.status, 1)
        XCTAssertTrue(strictXML.contains("weakness (--strict)"))
    }

    func testTutorialServerThatStripsCRLF_failsAndIsNamed() throws {
        let port = try startPythonServer(["rsa-socket", "--padding", "oaep-sha256", "--quirk", "tutorial-strip-crlf"])
        let (outcome, xml, _) = try remote(port, ["--profile", "rsa-socket", "--direction", "phone-to-pi"])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertTrue(xml.contains("name=\"binary-safety.ciphertexts-with-crlf\""))
        XCTAssertTrue(xml.contains("corrupted a ciphertext containing \\r\\n bytes"), xml)
    }

    func testNothingListening_isAnErrorTestcaseThatSaysWhatToCheck() throws {
        let listener = try FaultProxy(fault: .stall, upstreamPort: 1)
        let unused = listener.port
        listener.stop()
        let (outcome, xml, _) = try remote(unused, ["--profile", "rsa-socket", "--timeout", "2"])
        XCTAssertEqual(outcome.status, 1)
        // The event: a refusal (not a timeout) is what produces this advice.
        XCTAssertTrue(xml.contains("nothing listens at 127.0.0.1:\(unused)"), xml)
    }

    func testEveryFault_endsWithAnErrorAndSurvivableOnesStillPass() throws {
        let port = try startPythonServer(["rsa-socket", "--padding", "oaep-sha256", "--digest"])
        let timeout = 2.0
        for fault in FaultProxy.Fault.allCases {
            let proxy = try FaultProxy(fault: fault, upstreamPort: port)
            defer { proxy.stop() }
            let (outcome, xml, elapsed) = try remote(proxy.port, ["--profile", "rsa-socket", "--direction", "phone-to-pi", "--padding", "oaep-sha256",
                                                                 "--timeout", String(timeout)])
            if fault.survivable {
                XCTAssertEqual(outcome.status, 0, "\(fault): a conforming server behind \(fault) still passes\n\(outcome.stdout)")
            } else {
                XCTAssertEqual(outcome.status, 1, "\(fault)")
                // A hang detector only (every operation has a deadline; a loaded CI machine may be slow).
                XCTAssertLessThan(elapsed, 30 * timeout, "\(fault): the run ends")
                XCTAssertTrue(xml.contains("<error") || xml.contains("<failure"), "\(fault)")
            }
        }
    }

    func testTargetsFileShardsAndMerge_oneSuitePerTarget() throws {
        let first = try startPythonServer(["rsa-socket", "--padding", "oaep-sha1", "--framing", "framed"])
        let second = try startPythonServer(["rsa-socket", "--padding", "oaep-sha1", "--framing", "framed"])
        let directory = try makeTemporaryDirectory()
        let targets = directory.appendingPathComponent("targets.txt")
        try "# two test hosts\n127.0.0.1:\(first)\n127.0.0.1:\(second)\n".write(to: targets, atomically: true, encoding: .utf8)
        var reports: [String] = []
        for shard in ["1/2", "2/2"] {
            let report = directory.appendingPathComponent("shard-\(shard.first!).xml").path
            let outcome = try CrosscheckBinary.run(["remote", "--targets", targets.path, "--shard", shard, "-j", "2", "--profile", "rsa-socket",
                                              "--framing", "framed", "--direction", "pi-to-phone", "--junit", report, "--quiet"])
            XCTAssertEqual(outcome.status, 0, outcome.stdout)
            reports.append(report)
        }
        XCTAssertTrue(try String(contentsOfFile: reports[0], encoding: .utf8).contains("remote.127.0.0.1:\(first)"))
        XCTAssertFalse(try String(contentsOfFile: reports[0], encoding: .utf8).contains("remote.127.0.0.1:\(second)"))
        let merged = directory.appendingPathComponent("merged.xml")
        let merge = try CrosscheckBinary.run(["report", "--merge", merged.path] + reports)
        XCTAssertEqual(merge.status, 0, merge.stderr)
        XCTAssertEqual(try CrosscheckBinary.validate(merged), 0)
        let xml = try String(contentsOf: merged, encoding: .utf8)
        XCTAssertTrue(xml.contains("remote.127.0.0.1:\(first)") && xml.contains("remote.127.0.0.1:\(second)"))
    }

    func testAESHTTPS_pinnedServerConformsAndAnotherPinIsRefused() throws {
        let tls = CrosscheckBinary.root.appendingPathComponent("Vectors/tls").path
        let port = try startPythonServer(["aes-https", "--cert", tls + "/pinned.crt.pem", "--key", tls + "/pinned.key.pem",
                                          "--user", "alice:wonderland"])
        let (outcome, xml, _) = try remote(port, ["--profile", "aes-https", "--pin", tls + "/pinned.crt.pem", "--user", "alice:wonderland"])
        XCTAssertEqual(outcome.status, 0, outcome.stdout)
        XCTAssertTrue(xml.contains("name=\"tls.pinning-refuses-another-certificate\""))
        XCTAssertTrue(xml.contains("AES-CBC envelopes carry no MAC"))
        // The CBC oracle audit passes with its verdict; IVs are fresh; PythonRef hands every login
        // its one configured key, which the reuse audit names (a weakness, not a failure).
        XCTAssertTrue(xml.contains("<testcase name=\"oracle.cbc-padding\" classname=\"crosscheck.remote.aes-https\" time=\""), xml)
        XCTAssertTrue(xml.contains("testcase properties (crosscheck)") && xml.contains("  oracle-verdict = not vulnerable (no oracle)"), xml)
        XCTAssertTrue(xml.contains("<testcase name=\"reuse.response-ivs\" classname=\"crosscheck.remote.aes-https\""), xml)
        XCTAssertTrue(xml.contains("weakness: encryptionKey reused: 5 logins got the same key"), xml)
        let (wrongPin, wrongXML, _) = try remote(port, ["--profile", "aes-https", "--pin", tls + "/impostor.crt.pem", "--user", "alice:wonderland"])
        XCTAssertEqual(wrongPin.status, 1)
        XCTAssertTrue(wrongXML.contains("not the pinned certificate"), wrongXML)
    }

    func testInterruptedRemoteRun_writesAValidPartialReport() throws {
        let port = try startPythonServer(["rsa-socket", "--padding", "oaep-sha256"])
        let proxy = try FaultProxy(fault: .delay, upstreamPort: port)  // slow enough to be caught mid-run
        defer { proxy.stop() }
        let report = try makeTemporaryDirectory().appendingPathComponent("partial.xml")
        let status = try CrosscheckBinary.interruptAfter("target(s)", ["remote", "--host", "127.0.0.1", "--port", String(proxy.port),
                                                                       "--profile", "rsa-socket", "--junit", report.path])
        XCTAssertEqual(status, 130)
        XCTAssertEqual(try CrosscheckBinary.validate(report), 0)
        XCTAssertTrue(try String(contentsOf: report, encoding: .utf8).contains("crosscheck.partial"))
    }

    func testUsageErrors_exit64() throws {
        for arguments in [["remote"], ["remote", "--profile", "rsa-socket"], ["remote", "--host", "x", "--profile", "ftp"],
                          ["remote", "--host", "127.0.0.1", "--profile", "aes-https"], ["remote", "--host", "h", "--profile", "rsa-socket", "--shard", "3/2"]] {
            XCTAssertEqual(try CrosscheckBinary.run(arguments).status, 64, "\(arguments)")
        }
    }
}

/// `crosscheck remote --client seed-app|both`: does a live server accept the app as it ships?
extension RemoteCLITests {
    func testSeedAppClient_againstPythonRef_passesWhereTheAppCanAndFailsNamingTheQuirkWhereItCannot() throws {
        let pkcs1 = try startPythonServer(["rsa-socket", "--padding", "pkcs1"])
        let (served, servedXML, _) = try remote(pkcs1, ["--profile", "rsa-socket", "--client", "both"])
        XCTAssertEqual(served.status, 0, served.stdout)
        XCTAssertTrue(servedXML.contains("<testcase name=\"seed-app.pi-to-phone.rsa1024\""), servedXML)
        XCTAssertTrue(servedXML.contains("name=\"padding.phone-to-pi\""), "both clients ran: \(servedXML.prefix(400))")

        let oaep = try startPythonServer(["rsa-socket", "--padding", "oaep-sha256"])
        let (refused, refusedXML, _) = try remote(oaep, ["--profile", "rsa-socket", "--client", "seed-app"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refusedXML.contains("seed app quirk pkcs1-only"), refusedXML)
        XCTAssertTrue(refusedXML.contains("SecPadding.PKCS1"), refusedXML)
        XCTAssertFalse(refusedXML.contains("name=\"padding.phone-to-pi\""), "--client seed-app runs only the app's conversation")

        let tls = CrosscheckBinary.root.appendingPathComponent("Vectors/tls").path
        for (mode, status) in [("utf8-zeropad16", Int32(0)), ("base64-raw", 1)] {
            let port = try startPythonServer(["aes-https", "--cert", tls + "/pinned.crt.pem", "--key", tls + "/pinned.key.pem",
                                                          "--key-mode", mode, "--user", "alice:wonderland"])
            let (outcome, xml, _) = try remote(port, ["--profile", "aes-https", "--pin", tls + "/pinned.crt.pem",
                                                                  "--user", "alice:wonderland", "--client", "seed-app"])
            XCTAssertEqual(outcome.status, status, "\(mode): \(outcome.stdout)")
            if status == 1 { XCTAssertTrue(xml.contains("getcstring-16-byte-key"), xml) }
        }
    }
}
