import Foundation
import XCTest
#if canImport(FoundationXML)
import FoundationXML
#endif

/// `crosscheck remote`'s padding-oracle audit, probes and timing statistics against servers it
/// did not come from: the zoo's (Tests/Zoo, written from docs/PROTOCOL.md) and small variants of
/// the zoo's base server defined here, each planting one behaviour the audit must name.
final class RemoteOracleCLITests: XCTestCase {
    let servers = TestServers()

    override func tearDown() { servers.stopAll() }

    /// Starts `/usr/bin/python3 -u ARGUMENTS --host 127.0.0.1 --port 0` in the checkout and returns
    /// the port from its `LISTENING <port>` line.
    func startServer(_ arguments: [String]) throws -> UInt16 {
        try servers.start("/usr/bin/python3", ["-u"] + arguments + ["--host", "127.0.0.1", "--port", "0"], in: CrosscheckBinary.root)
    }

    /// A variant of the zoo's base server: `body` is a `Conversation` subclass named `Variant`.
    func startVariant(_ body: String, _ options: [String]) throws -> UInt16 {
        let script = """
        import sys
        sys.path.insert(0, "Tests/Zoo/rsa_socket")
        import base_server
        from base_server import Refusal
        \(body)
        base_server.main(Variant, "a test variant of the zoo's base server\\n")
        """
        return try startServer(["-c", script] + options)
    }

    /// A remote run's report: per testcase its outcome, message and details; the suites' properties.
    struct Report {
        struct Case { var outcome = "passed"; var message = ""; var details = "" }
        var cases: [String: Case] = [:]
        var order: [String] = []
        var properties: [String: String] = [:]

        /// A testcase property (the report writes them in the suite's `<system-out>` block of testcase
        /// properties: `testcase <i> <name>` then `  <key> = <value>` lines).
        func property(_ testcase: String, _ key: String) -> String? {
            properties.first { $0.key.hasSuffix(":\(testcase)].\(key)") }?.value
        }
    }

    func remote(_ port: UInt16, _ extra: [String], profile: String = "rsa-socket") throws -> (status: Int32, report: Report, elapsed: TimeInterval) {
        let path = try makeTemporaryDirectory().appendingPathComponent("remote.xml")
        let start = Date()
        // The audits belong to the reference client; the seed-app client has tests of its own.
        let outcome = try CrosscheckBinary.run(["remote", "--host", "127.0.0.1", "--port", String(port), "--profile", profile, "--client", "reference",
                                                "--timeout", "3", "--junit", path.path, "--quiet"]
                                               + (profile == "aes-https" ? ["--skip-ats"] : []) + extra)  // ATS: ATSCLITests
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(try CrosscheckBinary.validate(path), 0, "the report validates")
        let document = try XMLDocument(contentsOf: path, options: [])
        var report = Report()
        for suite in try document.nodes(forXPath: "//testsuite") {
            guard let suite = suite as? XMLElement else { continue }
            for property in try suite.nodes(forXPath: "properties/property") {
                guard let property = property as? XMLElement, let name = property.attribute(forName: "name")?.stringValue else { continue }
                report.properties[name] = property.attribute(forName: "value")?.stringValue ?? ""
            }
            if let output = try suite.nodes(forXPath: "system-out").first?.stringValue,
               let block = output.components(separatedBy: "--- testcase properties (crosscheck) ---\n").last,
               output.contains("--- testcase properties (crosscheck) ---") {
                var current = ""
                for line in block.split(separator: "\n").map(String.init) where !line.hasPrefix("--- end") {
                    if line.hasPrefix("testcase "), let space = line.dropFirst(9).firstIndex(of: " ") {
                        current = "testcase[\(line.dropFirst(9)[..<space]):\(line[line.index(after: space)...])]"
                    } else if line.hasPrefix("  "), let equals = line.range(of: " = ") {
                        report.properties["\(current).\(line.dropFirst(2)[..<equals.lowerBound])"] = String(line[equals.upperBound...])
                    }
                }
            }
            let audit = suite.attribute(forName: "name")?.stringValue?.hasPrefix("audit.") ?? false
            for testcase in try suite.nodes(forXPath: "testcase") {
                guard let testcase = testcase as? XMLElement, let name = testcase.attribute(forName: "name")?.stringValue else { continue }
                var result = Report.Case()
                for child in testcase.children ?? [] {
                    guard let element = child as? XMLElement, let tag = element.name, ["failure", "error", "skipped"].contains(tag) else { continue }
                    result = Report.Case(outcome: tag, message: element.attribute(forName: "message")?.stringValue ?? "", details: element.stringValue ?? "")
                }
                let key = (audit ? "audit:" : "") + name
                report.cases[key] = result
                report.order.append(key)
            }
        }
        return (outcome.status, report, elapsed)
    }

    // MARK: the verdicts

    func testErrorTextOracle_isAStrongOracleNamedWithBothClassesAndTheEvidence() throws {
        let port = try startServer(["Tests/Zoo/rsa_socket/oracle_error_text.py"])
        let (status, report, _) = try remote(port, ["--direction", "phone-to-pi"])
        XCTAssertEqual(status, 1)
        let oracle = try XCTUnwrap(report.cases["oracle.rsa-padding"])
        XCTAssertEqual(oracle.outcome, "failure")
        XCTAssertEqual(oracle.message, "padding oracle (vulnerable: strong oracle): class wrong-first-byte answered \"Server: ERROR padding\" (closed); "
                       + "class no-zero-separator answered \"Server: ERROR length\" (closed)")
        XCTAssertTrue(oracle.details.contains("verdict (ROBOT terms): vulnerable: strong oracle"), oracle.details)
        // Every class with its answers, 3 rounds and a confirmation round: 4 lines each.
        for name in ["well-formed", "wrong-block-type-01", "wrong-block-type-00", "separator-within-8-bytes", "oaep-encoding"] {
            XCTAssertTrue(oracle.details.contains("\n\(name) ("), "\(name) in the evidence")
        }
        XCTAssertEqual(oracle.details.components(separatedBy: "\"Server: ERROR padding\" (closed)").count - 1, 4 * 4,
                       "4 wrong-prefix classes × 4 answers")
        XCTAssertEqual(report.property("oracle.rsa-padding", "oracle-verdict"), "vulnerable: strong oracle")
        XCTAssertEqual(report.cases["liveness.after-padding-oracle-audit"]?.outcome, "passed")
    }

    /// Only a zero within the first 8 padding bytes gets a silent close: an answer (`Server:
    /// ERROR`) is shared by classes with the right and the wrong prefix, so the oracle is weak.
    func testOneSidedOracle_isAWeakOracle() throws {
        let port = try startVariant("""
        class Variant(base_server.Conversation):
            def decrypt(self, ciphertext):
                block = self.raw_rsa(ciphertext)
                if block[:2] != b"\\x00\\x02":
                    raise Refusal("not 00 02")
                separator = block.find(b"\\x00", 2)
                if separator < 0:
                    raise Refusal("no separator")
                if separator < 10:
                    raise Refusal("padding under 8 bytes", answer=None)
                return block[separator + 1:]
        """, ["--padding", "pkcs1"])
        let (status, report, _) = try remote(port, ["--direction", "phone-to-pi"])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(report.cases["oracle.rsa-padding"]?.message,
                       "padding oracle (vulnerable: weak oracle): class separator-within-8-bytes answered nothing (closed); class wrong-first-byte answered \"Server: ERROR\" (closed)")
    }

    /// A PKCS#1 server without the digest extension decodes an OAEP block as PKCS#1 about once in
    /// 256 tries and acknowledges it. Planted: it acknowledges the first two OAEP-SHA256 ciphertexts
    /// it is sent (the lucky decode, made certain: the first is the initial liveness conversation's,
    /// the second padding discovery's first try). Discovery must not take one `Server: OK` for
    /// OAEP: it confirms with more conversations and finds PKCS#1.
    func testOneLuckyAcknowledgement_doesNotFoolPaddingDiscovery() throws {
        let port = try startVariant("""
        import itertools
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding as rsa_padding
        LUCKY = itertools.count()
        OAEP = rsa_padding.OAEP(mgf=rsa_padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
        class Variant(base_server.Conversation):
            def decrypt(self, ciphertext):
                try:
                    return super().decrypt(ciphertext)
                except Refusal:
                    try:
                        plaintext = self.private_key.decrypt(ciphertext, OAEP)
                    except ValueError:
                        raise Refusal("decryption failed")
                    if next(LUCKY) < 2:
                        return plaintext
                    raise Refusal("decryption failed")
        """, ["--padding", "pkcs1"])
        let (status, report, _) = try remote(port, ["--direction", "phone-to-pi"])
        XCTAssertEqual(report.cases["padding.phone-to-pi"]?.outcome, "passed")
        XCTAssertTrue(report.cases["audit:padding.phone-to-pi"]?.message.contains("PKCS#1 v1.5") ?? false,
                      "\(report.cases["audit:padding.phone-to-pi"] ?? .init())")
        _ = status
    }

    /// A server whose refusals alternate with every connection: repeats of a class disagree, and
    /// that is reported as such — never as a pass, and not as an oracle.
    func testAlternatingRefusals_areInconsistentResultsNotAPassNorAnOracle() throws {
        let port = try startVariant("""
        import itertools
        CONNECTIONS = itertools.count()
        class Variant(base_server.Conversation):
            def __init__(self, sock, server):
                super().__init__(sock, server)
                self.number = next(CONNECTIONS)
            def decrypt(self, ciphertext):
                try:
                    return self.private_key.decrypt(ciphertext, self.padding)
                except ValueError:
                    raise Refusal("decryption failed", answer=base_server.ERROR if self.number % 2 else None)
        """, ["--padding", "pkcs1"])
        let (status, report, _) = try remote(port, ["--direction", "phone-to-pi"])
        XCTAssertEqual(status, 1)
        let oracle = try XCTUnwrap(report.cases["oracle.rsa-padding"])
        XCTAssertEqual(oracle.outcome, "failure")
        XCTAssertTrue(oracle.message.hasPrefix("inconsistent results: class "), oracle.message)
        XCTAssertFalse(oracle.message.contains("padding oracle"), oracle.message)
        XCTAssertEqual(report.property("oracle.rsa-padding", "oracle-verdict"), "inconsistent results")
    }

    // MARK: probes that follow the conversation

    /// The tutorial server reads one recv(1024) per message: it passes only when every probe waits
    /// for its key. Two runs give the same testcases, outcomes and messages.
    func testTutorialServer_passesAndTheVerdictsRepeatRunAfterRun() throws {
        let port = try startServer(["Tests/Zoo/rsa_socket/tutorial_recv1024.py", "--bits", "1024"])
        let first = try remote(port, [])
        let second = try remote(port, [])
        XCTAssertEqual(first.status, 0, "\(first.report.cases.filter { $0.value.outcome == "failure" || $0.value.outcome == "error" })")
        XCTAssertEqual(second.status, 0)
        XCTAssertEqual(first.report.order, second.report.order)
        for name in first.report.order {
            XCTAssertEqual(first.report.cases[name]?.outcome, second.report.cases[name]?.outcome, name)
            XCTAssertEqual(first.report.cases[name]?.message, second.report.cases[name]?.message, name)
        }
        XCTAssertEqual(first.report.property("oracle.rsa-padding", "oracle-verdict"), "not vulnerable (no oracle)")
        for name in ["refuses.short-ciphertext", "refuses.half-a-message", "refuses.message-over-the-limit", "binary-safety.ciphertexts-ending-in-whitespace"] {
            XCTAssertNotNil(first.report.cases[name], name)
        }
    }

    /// A legacy reader without a size bound is waiting at our deadline: an audit weakness, and
    /// its half-closed probes are answered `Server: ERROR` (it learns no more bytes are coming).
    func testBufferingReader_passesWithTheWithoutBoundWeakness() throws {
        let port = try startServer(["Tests/Zoo/rsa_socket/buffering_reader.py"])
        let (status, report, _) = try remote(port, ["--direction", "phone-to-pi"])
        XCTAssertEqual(status, 0, "\(report.cases.filter { $0.value.outcome == "failure" })")
        XCTAssertEqual(report.cases["refuses.half-a-message"]?.outcome, "passed")
        XCTAssertEqual(report.cases["refuses.short-ciphertext"]?.outcome, "passed")
        let finding = try XCTUnwrap(report.cases["audit:legacy-message-size"])
        XCTAssertEqual(finding.outcome, "skipped")
        XCTAssertTrue(finding.message.contains("buffers a legacy message without bound"), finding.message)
    }

    // MARK: aes-https: headers

    /// A variant of the zoo's threaded aes-https server: `body` defines `Variant(SecureAPI)`.
    func startHTTPSVariant(_ body: String) throws -> UInt16 {
        let script = """
        import sys
        sys.path.insert(0, "Tests/Zoo/aes_https")
        import threaded_httpserver
        \(body)
        threaded_httpserver.main(Variant, "a test variant of the zoo's threaded aes-https server\\n")
        """
        return try startServer(["-c", script])
    }

    var pin: [String] { ["--pin", "Vectors/tls/pinned.crt.pem"] }

    /// A header that changes with every response (a request id) is noise, not an oracle.
    func testCBCAudit_aHeaderThatVariesPerResponseIsNotAnOracle() throws {
        let port = try startHTTPSVariant("""
        import uuid
        class Variant(threaded_httpserver.SecureAPI):
            def end_headers(self):
                self.send_header("X-Request-Id", str(uuid.uuid4()))
                super().end_headers()
        """)
        let (status, report, _) = try remote(port, pin, profile: "aes-https")
        XCTAssertEqual(status, 0, "\(report.cases.filter { $0.value.outcome == "failure" })")
        XCTAssertEqual(report.cases["oracle.cbc-padding"]?.outcome, "passed")
        XCTAssertEqual(report.property("oracle.cbc-padding", "oracle-verdict"), "not vulnerable (no oracle)")
    }

    /// The same 400 body for every bad envelope, but a header only on a bad padding: an oracle.
    func testCBCAudit_aHeaderOnlyABadPaddingGetsIsAPaddingOracle() throws {
        let port = try startHTTPSVariant("""
        class Variant(threaded_httpserver.SecureAPI):
            bad_padding = False
            def refuse_envelope(self, why):
                self.bad_padding = why == "padding"
                super().refuse_envelope(why)
            def end_headers(self):
                if self.bad_padding:
                    self.send_header("X-Padding", "invalid")
                super().end_headers()
        """)
        let (status, report, _) = try remote(port, pin, profile: "aes-https")
        XCTAssertEqual(status, 1)
        let oracle = try XCTUnwrap(report.cases["oracle.cbc-padding"])
        XCTAssertTrue(oracle.message.hasPrefix("padding oracle (vulnerable: strong oracle): class bad-padding-00 answered 400 "), oracle.message)
        XCTAssertTrue(oracle.message.contains("x-padding: invalid"), oracle.message)
        XCTAssertEqual(report.cases["secure-data.one-answer-for-every-bad-envelope"]?.outcome, "passed", "shape errors all get the same answer")
    }

    /// Repeats of one class that disagree in a word (not an id: no digit) are not masked: the audit
    /// reaches no verdict and says so, a skip — neither a pass nor a failure (issue 36).
    func testCBCAudit_repeatsThatDisagreeAreNoVerdict() throws {
        let port = try startHTTPSVariant("""
        import itertools
        flip = itertools.count()
        class Variant(threaded_httpserver.SecureAPI):
            def refuse_envelope(self, why):
                if why == "padding" and next(flip) % 2:
                    return self.reply(400, {"error": "bad request", "hint": "padding"})
                self.reply(400, {"error": "bad request", "hint": "unknown"})
        """)
        let (status, report, _) = try remote(port, pin, profile: "aes-https")
        XCTAssertEqual(status, 0, "\(report.cases.filter { $0.value.outcome == "failure" })")
        let oracle = try XCTUnwrap(report.cases["oracle.cbc-padding"])
        XCTAssertEqual(oracle.outcome, "skipped")
        XCTAssertTrue(oracle.message.hasPrefix("no verdict: inconsistent results: class "), oracle.message)
        XCTAssertEqual(report.property("oracle.cbc-padding", "oracle-kind"), "no verdict")
    }

    // MARK: timing, opt-in and never gating

    /// OAEP, framed, RSA-2048: nothing weak, so `--strict` fails only on a gating finding. The
    /// server answers every class alike but 50 ms late for a non-zero first byte.
    func testTiming_namesTheTestPValueAndEffectSize_andNeverGates() throws {
        let port = try startVariant("""
        import time
        class Variant(base_server.Conversation):
            def decrypt(self, ciphertext):
                if self.raw_rsa(ciphertext)[0] != 0:
                    time.sleep(0.05)
                    raise Refusal("first byte")
                return super().decrypt(ciphertext)
        """, ["--framing", "framed", "--digest"])
        let plain = try remote(port, ["--framing", "framed", "--direction", "phone-to-pi", "--strict"])
        XCTAssertEqual(plain.status, 0, "the answers are alike: no oracle in the verdict")
        XCTAssertNil(plain.report.cases["audit:timing.rsa-padding"], "no timing without --timing")

        let timed = try remote(port, ["--framing", "framed", "--direction", "phone-to-pi", "--strict", "--timing", "15"])
        XCTAssertEqual(timed.status, 0, "timing never fails a run, not even with --strict")
        let timing = try XCTUnwrap(timed.report.cases["audit:timing.rsa-padding"])
        XCTAssertEqual(timing.outcome, "skipped")
        let text = try XCTUnwrap(timed.report.property("timing.rsa-padding", "finding"))
        XCTAssertTrue(text.hasPrefix("timing differs between padding classes: smallest p = "), text)
        XCTAssertTrue(text.contains("nonzero-first-byte"), text)
        XCTAssertTrue(text.contains("effect size r = "), text)
        XCTAssertTrue(text.contains("Wilcoxon signed-rank test"), text)
        XCTAssertTrue(text.contains("15 samples per class"), text)
    }

    func testTimingOutOfRange_isAUsageError() throws {
        for value in ["0", "9", "10001", "x"] {
            let outcome = try CrosscheckBinary.run(["remote", "--host", "127.0.0.1", "--profile", "rsa-socket", "--timing", value])
            XCTAssertEqual(outcome.status, 64, value)
            XCTAssertTrue(outcome.stderr.contains("--timing"), outcome.stderr)
        }
    }

    // MARK: implicit rejection (OpenSSL ≥ 3.2)

    /// A stand-in for OpenSSL ≥ 3.2's implicit rejection, written here from its description (not
    /// OpenSSL's algorithm, which PythonRef models): a bad PKCS#1 v1.5 padding decrypts to a
    /// synthetic message, deterministic per ciphertext and unrelated to the block's bytes; a
    /// ciphertext out of range is still refused. `onBadPadding` may replace the synthetic message.
    func startImplicitRejection(_ options: [String], onBadPadding: String = "synthetic", keyPerConnection: Bool = false,
                                utf8Only: Bool = false) throws -> UInt16 {
        try startVariant("""
        import hashlib, hmac, os
        from cryptography.hazmat.primitives.asymmetric import rsa
        SENTINEL = os.urandom(16)
        class Variant(base_server.Conversation):
            def __init__(self, sock, server):
                super().__init__(sock, server)
                if \(keyPerConnection ? "True" : "False"):  # a new key for every connection
                    self.private_key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
                    self.k = 128
            def decrypt(self, ciphertext):
                block = self.raw_rsa(ciphertext)  # refuses a wrong length or c >= n, as OpenSSL does
                separator = block.find(b"\\x00", 2)
                if block[:2] == b"\\x00\\x02" and separator >= 10:
                    plaintext = block[separator + 1:]
                else:
                    secret = hashlib.sha256(self.private_key.private_numbers().d.to_bytes(self.k, "big")).digest()
                    mac = hmac.new(secret, ciphertext, hashlib.sha256).digest()
                    synthetic = (mac * (self.k // 32 + 1))[: mac[0] % (self.k - 10)]
                    if \(utf8Only ? "True" : "False") and mac[1] % 2 == 0:
                        synthetic = mac.hex()[: mac[2] % 40].encode()  # a synthetic message that happens to be text
                    plaintext = {"synthetic": synthetic, "lenient": block[2:], "random": os.urandom(24),
                                 "sentinel-empty": b"", "sentinel-fixed": SENTINEL}["\(onBadPadding)"]
                if \(utf8Only ? "True" : "False"):
                    try:
                        plaintext.decode("utf-8")
                    except UnicodeDecodeError:
                        raise Refusal("not UTF-8")
                return plaintext
        """, ["--padding", "pkcs1"] + options)
    }

    func testImplicitRejectionWithDigest_passesAndTheAuditSaysWhatTheAnswersShow() throws {
        let port = try startImplicitRejection(["--digest"])
        let (status, report, _) = try remote(port, [])
        XCTAssertEqual(status, 0, "\(report.cases.filter { $0.value.outcome == "failure" || $0.value.outcome == "error" })")
        XCTAssertEqual(report.cases["oracle.rsa-padding"]?.outcome, "passed")
        XCTAssertEqual(report.cases["refuses.undecryptable-ciphertext"]?.outcome, "passed")
        XCTAssertEqual(report.cases["refuses.ciphertext-over-the-modulus"]?.outcome, "passed", "still refused outright")
        let finding = try XCTUnwrap(report.property("implicit-rejection", "finding"))
        XCTAssertTrue(finding.hasPrefix("implicit rejection (OpenSSL ≥ 3.2: a bad PKCS#1 v1.5 padding decrypts to a synthetic plaintext)"), finding)
        // 6 malformed classes × (3 rounds + the confirmation round): every one acknowledged, each with its own
        // digest — or, rarely, two short synthetic plaintexts alike by chance (a fresh key each server start),
        // which the audit must then have cleared with fresh ciphertexts of those classes, not passed unseen.
        XCTAssertTrue(finding.contains("consistent with implicit rejection, as far as answers show: 24 malformed ciphertexts acknowledged with "), finding)
        let distinct = report.property("oracle.rsa-padding", "implicit-rejection-digests")
        if distinct != "24 acknowledged, 24 distinct" {
            XCTAssertEqual(distinct, "24 acknowledged, 23 distinct", finding)
            XCTAssertTrue(finding.contains("that looked so were chance: fresh ciphertexts of their classes were not"), finding)
        }
        XCTAssertTrue(finding.contains("deterministic: the same ciphertext sent again under the same key got the same digest (6 classes)"), finding)
        XCTAssertTrue(finding.contains("timing not measured"), finding)
        XCTAssertFalse(finding.contains("proven"), finding)
        XCTAssertFalse(finding.contains("no padding oracle"), finding)
        XCTAssertEqual(report.cases["audit:implicit-rejection"]?.outcome, "skipped", "reported as a finding")
        let strict = try remote(port, ["--strict", "--direction", "phone-to-pi"])
        XCTAssertEqual(strict.report.cases["audit:implicit-rejection"]?.outcome, "skipped", "never a failure, even with --strict")
        XCTAssertTrue(try XCTUnwrap(report.property("padding.phone-to-pi", "finding")).contains("PKCS#1 v1.5"))
    }

    /// Without the digest every padding is acknowledged: discovery takes the server's own
    /// pi-to-phone padding, and the audit says implicit rejection is consistent, not shown.
    func testImplicitRejectionWithoutDigest_passesAsConsistentNotShown() throws {
        let port = try startImplicitRejection([])
        let (status, report, _) = try remote(port, [])
        XCTAssertEqual(status, 0, "\(report.cases.filter { $0.value.outcome == "failure" || $0.value.outcome == "error" })")
        XCTAssertEqual(report.cases["oracle.rsa-padding"]?.outcome, "passed")
        let finding = try XCTUnwrap(report.property("implicit-rejection", "finding"))
        XCTAssertTrue(finding.contains("consistent with implicit rejection, not shown"), finding)
        XCTAssertTrue(finding.contains("a decoder that returns a fixed sentinel for a bad padding cannot be told from it"), finding)
        let padding = try XCTUnwrap(report.cases["audit:padding.phone-to-pi"])
        XCTAssertTrue(padding.message.contains("uses PKCS#1 v1.5 encryption (it also acknowledged oaep-sha256 and oaep-sha1 ciphertexts"), padding.message)
    }

    /// A decoder that skips the padding checks acknowledges the block's own bytes: the digest shows it.
    func testLenientDecoder_failsAsLenientNotImplicitRejection() throws {
        let port = try startImplicitRejection(["--digest"], onBadPadding: "lenient")
        let (status, report, _) = try remote(port, ["--direction", "phone-to-pi"])
        XCTAssertEqual(status, 1)
        let oracle = try XCTUnwrap(report.cases["oracle.rsa-padding"])
        XCTAssertEqual(oracle.outcome, "failure")
        XCTAssertTrue(oracle.message.hasPrefix("a lenient PKCS#1 v1.5 decoder: class wrong-first-byte"), oracle.message)
        XCTAssertTrue(try XCTUnwrap(report.cases["refuses.undecryptable-ciphertext"]).message.contains("a lenient PKCS#1 v1.5 decoder"))
    }

    /// Implicit rejection is deterministic; a server answering random bytes is not it.
    func testRandomPlaintextOnBadPadding_failsAsNotDeterministic() throws {
        let port = try startImplicitRejection(["--digest"], onBadPadding: "random")
        let (status, report, _) = try remote(port, ["--direction", "phone-to-pi"])
        XCTAssertEqual(status, 1)
        let oracle = try XCTUnwrap(report.cases["oracle.rsa-padding"])
        XCTAssertTrue(oracle.message.contains("sent twice under the same key, was acknowledged with different digests"), oracle.message)
    }

    /// PyCryptodome's sentinel style: every bad padding decrypts to b"" and its digest is acknowledged.
    func testEmptySentinelOnBadPadding_failsAsAPaddingOracle() throws {
        let port = try startImplicitRejection(["--digest"], onBadPadding: "sentinel-empty")
        let (status, report, _) = try remote(port, ["--direction", "phone-to-pi"])
        XCTAssertEqual(status, 1)
        let oracle = try XCTUnwrap(report.cases["oracle.rsa-padding"])
        XCTAssertEqual(oracle.outcome, "failure")
        XCTAssertTrue(oracle.message.hasPrefix("padding oracle (vulnerable: the digest tells a bad padding from a good one): malformed ciphertexts were acknowledged with an empty sentinel's digest"), oracle.message)
        XCTAssertTrue(oracle.details.contains("sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"), oracle.details)
        let refusal = try XCTUnwrap(report.cases["refuses.undecryptable-ciphertext"])
        XCTAssertEqual(refusal.outcome, "failure")
        XCTAssertTrue(refusal.message.hasPrefix("padding oracle"), refusal.message)
    }

    /// The same with 16 fixed random bytes: one digest for every bad padding, unknown in advance.
    func testFixedSentinelOnBadPadding_failsAsAPaddingOracle() throws {
        let port = try startImplicitRejection(["--digest"], onBadPadding: "sentinel-fixed")
        let (status, report, _) = try remote(port, ["--direction", "phone-to-pi"])
        XCTAssertEqual(status, 1)
        let oracle = try XCTUnwrap(report.cases["oracle.rsa-padding"])
        XCTAssertEqual(oracle.outcome, "failure")
        XCTAssertTrue(oracle.message.hasPrefix("padding oracle (vulnerable: the digest tells a bad padding from a good one): malformed ciphertexts were acknowledged with a constant sentinel's digest"), oracle.message)
        XCTAssertTrue(oracle.message.contains("got the same digest as another malformed ciphertext"), oracle.message)
        // The refusal check's one undecryptable ciphertext gets a second one: the same digest again.
        let refusal = try XCTUnwrap(report.cases["refuses.undecryptable-ciphertext"])
        XCTAssertEqual(refusal.outcome, "failure")
        XCTAssertTrue(refusal.message.hasPrefix("padding oracle"), refusal.message)
        XCTAssertNil(report.property("implicit-rejection", "finding"), "no finding calls a sentinel consistent with implicit rejection")
    }

    /// A new key on every connection: the same ciphertext cannot be sent again under the same key,
    /// so determinism is not provable — said, not failed.
    func testKeyPerConnection_passesWithDeterminismNotProvable() throws {
        let port = try startImplicitRejection(["--digest"], keyPerConnection: true)
        let (status, report, _) = try remote(port, ["--direction", "phone-to-pi"])
        XCTAssertEqual(status, 0, "\(report.cases.filter { $0.value.outcome == "failure" || $0.value.outcome == "error" })")
        XCTAssertEqual(report.cases["oracle.rsa-padding"]?.outcome, "passed")
        XCTAssertEqual(report.cases["refuses.undecryptable-ciphertext"]?.outcome, "passed")
        let finding = try XCTUnwrap(report.property("implicit-rejection", "finding"))
        XCTAssertTrue(finding.contains("determinism not provable: the server sent a different key on each re-probe's connection (6 tried)"), finding)
    }

    /// An application that refuses plaintexts that are not UTF-8, over implicit rejection: some
    /// synthetic plaintexts are acknowledged, others refused, so repeats of a class differ. The
    /// audit names the plaintext rule instead of calling the results inconsistent.
    func testImplicitRejectionWithAUTF8Rule_passesWithThePlaintextRuleNamed() throws {
        let port = try startImplicitRejection(["--digest"], utf8Only: true)
        let (status, report, _) = try remote(port, ["--direction", "phone-to-pi"])
        XCTAssertEqual(status, 0, "\(report.cases.filter { $0.value.outcome == "failure" || $0.value.outcome == "error" })")
        XCTAssertEqual(report.cases["oracle.rsa-padding"]?.outcome, "passed")
        XCTAssertEqual(report.property("oracle.rsa-padding", "plaintext-rule"), "refuses plaintexts that are not UTF-8")
        XCTAssertTrue(try XCTUnwrap(report.property("plaintext-rule", "finding")).hasPrefix("plaintext rule: the server refuses plaintexts that are not UTF-8"))
        XCTAssertEqual(report.cases["audit:plaintext-rule"]?.outcome, "skipped")
        let finding = try XCTUnwrap(report.property("implicit-rejection", "finding"))
        XCTAssertTrue(finding.contains("(the rest refused by the plaintext rule: the server refuses plaintexts that are not UTF-8)"), finding)
    }

    /// `--timing` under implicit rejection times every class (all acknowledged): the malformed
    /// ones against the well-formed ones, and the finding says timing was measured.
    func testTimingUnderImplicitRejection_comparesAcknowledgedClasses() throws {
        let port = try startImplicitRejection(["--digest"])
        let (_, report, _) = try remote(port, ["--direction", "phone-to-pi", "--timing", "10"])
        let timing = try XCTUnwrap(report.property("timing.rsa-padding", "finding"))
        // 5 well-formed and 6 malformed classes, all acknowledged: every pair compared.
        XCTAssertTrue(timing.contains("10 samples per class, 55 pairs of classes"), timing)
        XCTAssertTrue(try XCTUnwrap(report.property("implicit-rejection", "finding")).contains("timing measured"))
    }

    /// An OAEP server that acknowledges what it cannot decrypt is not implicit rejection (OAEP has
    /// none): its own pi-to-phone ciphertexts give its padding away, and the audit fails it.
    func testOAEPServerThatAcknowledgesGarbage_stillFails() throws {
        let port = try startServer(["Tests/Zoo/rsa_socket/ok_on_garbage.py"])
        let (status, report, _) = try remote(port, [])
        XCTAssertEqual(status, 1)
        XCTAssertTrue(try XCTUnwrap(report.property("padding.phone-to-pi", "finding")).hasPrefix("phone-to-pi uses oaep-sha256"))
        XCTAssertTrue(try XCTUnwrap(report.cases["oracle.rsa-padding"]).message.hasPrefix("the server acknowledged undecryptable ciphertexts"))
        XCTAssertEqual(report.cases["refuses.undecryptable-ciphertext"]?.outcome, "failure")
    }
}
