import Foundation
import XCTest

/// `crosscheck ats` end to end (issue 21): the servers as the README deploys them pass, the repo's
/// 30-year fixture certificate is refused for the 825-day rule, and its errors say what to do.
/// (The zoo's TLS configurations and the comparison with testssl.sh: Tests/Zoo/test_ats_anchor.py.)
final class ATSCLITests: XCTestCase {
    let servers = TestServers()
    override func tearDown() { servers.stopAll() }

    var tls: String { CrosscheckBinary.root.appendingPathComponent("Vectors/tls").path }

    /// `python3 -m pythonref server-cert --host localhost`, as the README deploys the Pi: (certificate, key).
    func serverCertificate() throws -> (String, String) {
        let out = try makeTemporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-m", "pythonref", "server-cert", "--host", "localhost", "--host", "127.0.0.1", "--out", out.path]
        process.currentDirectoryURL = CrosscheckBinary.root.appendingPathComponent("PythonRef")
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "server-cert")
        return (out.appendingPathComponent("server.crt.pem").path, out.appendingPathComponent("server.key.pem").path)
    }

    func ats(_ port: UInt16, _ extra: [String]) throws -> (CrosscheckBinary.Outcome, String) {
        let report = try makeTemporaryDirectory().appendingPathComponent("ats.xml")
        let outcome = try CrosscheckBinary.run(["ats", "--host", "127.0.0.1", "--port", String(port), "--junit", report.path, "--quiet"] + extra)
        XCTAssertEqual(try CrosscheckBinary.validate(report), 0, "the report validates")
        return (outcome, (try? String(contentsOf: report, encoding: .utf8)) ?? "")
    }

    func testServersAsTheREADMEDeploysThem_passATS() throws {
        let (certificate, key) = try serverCertificate()
        let python = try servers.startPythonRef(["aes-https", "--cert", certificate, "--key", key, "--user", "user:password"])
        let swift = try servers.start(CrosscheckBinary.url.path, ["serve", "aes-https", "--cert", certificate, "--key", key,
                                                                  "--host", "127.0.0.1", "--port", "0"], in: CrosscheckBinary.root)
        for port in [python, swift] {
            let (outcome, xml) = try ats(port, ["--pin", certificate, "--server-name", "localhost"])
            XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
            XCTAssertTrue(xml.contains("<testsuite name=\"ats.127.0.0.1:\(port)\""))
            for name in ["protocol.tls1.2", "cipher-suites.default-policy", "certificate.validity-period", "certificate.trust", "verdict.default-policy"] {
                XCTAssertTrue(xml.contains("name=\"\(name)\""), name)
            }
            XCTAssertFalse(xml.contains("<failure"), xml)
            XCTAssertTrue(xml.contains("key = RSA 2048"), "the key size is reported")
            XCTAssertTrue(xml.contains("accepted = no"), "TLS 1.0/1.1 refused (both servers want 1.2 or later)")
        }
        // `crosscheck remote --profile aes-https` runs the same checks as a testsuite of its own.
        let report = try makeTemporaryDirectory().appendingPathComponent("remote.xml")
        let remote = try CrosscheckBinary.run(["remote", "--host", "127.0.0.1", "--port", String(python), "--profile", "aes-https",
                                               "--client", "reference", "--pin", certificate, "--server-name", "localhost",
                                               "--junit", report.path, "--quiet"])
        let xml = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(xml.contains("<testsuite name=\"ats.127.0.0.1:\(python)\""), xml)
        XCTAssertTrue(xml.contains("<testsuite name=\"remote.127.0.0.1:\(python)\""))
        XCTAssertEqual(remote.status, 0, remote.stdout + remote.stderr)
    }

    func testThirtyYearCertificate_isRefusedForThe825DayRule_exit1() throws {
        let port = try servers.startPythonRef(["aes-https", "--cert", tls + "/pinned.crt.pem", "--key", tls + "/pinned.key.pem"])
        let (outcome, xml) = try ats(port, ["--pin", tls + "/pinned.crt.pem", "--server-name", "localhost"])
        XCTAssertEqual(outcome.status, 1, outcome.stdout)
        XCTAssertTrue(xml.contains("iOS allows at most 825"), xml)
        // A certificate rule is the app's trust evaluation's: no Info.plist key relaxes it, the fix is a new certificate.
        XCTAssertTrue(xml.contains("the app&apos;s trust evaluation refuses (SecTrust, SSL policy)") || xml.contains("the app's trust evaluation refuses (SecTrust, SSL policy)"), xml)
        XCTAssertTrue(xml.contains("no Info.plist key relaxes this: reissue the certificate"), xml)
        XCTAssertTrue(xml.contains("python3 -m pythonref server-cert --host localhost"), xml)
        XCTAssertFalse(xml.contains("NSExceptionAllowsInsecureHTTPLoads"), "no Info.plist key is offered for a certificate rule")
        XCTAssertEqual(xml.components(separatedBy: "<failure").count - 1, 2, "the validity rule and the verdict, nothing else")
        // Without the pin, the self-signed certificate is not trusted either, and the advice says --pin.
        let (_, unpinned) = try ats(port, ["--server-name", "localhost"])
        XCTAssertTrue(unpinned.contains("run with --pin CERT"), unpinned)
        // Under another name, the subjectAltName rule fails too.
        let (_, renamed) = try ats(port, ["--pin", tls + "/pinned.crt.pem", "--server-name", "raspberrypi.local"])
        XCTAssertTrue(renamed.contains("not &apos;raspberrypi.local&apos;") || renamed.contains("not 'raspberrypi.local'"), renamed)
    }

    /// Starts one of the zoo's TLS configurations (Tests/Zoo/tls/ats_server.py, written from Apple's
    /// published rules, its certificate for localhost, raspberrypi.local, pi.example.com and 127.0.0.1).
    func startZooTLS(_ config: String) throws -> UInt16 {
        try servers.start("/usr/bin/python3", ["-u", "Tests/Zoo/tls/ats_server.py", "--config", config, "--host", "127.0.0.1", "--port", "0"],
                          in: CrosscheckBinary.root)
    }

    /// The shipped ATS suite group has ECDHE-RSA-CHACHA20-POLY1305 at TLS 1.2 (SecProtocolInternal.h
    /// CiphersuitesPFS): a server whose only suite it is passes.
    func testChaCha20OnlyTLS12_isInAppleShippedATSGroup_passes() throws {
        let port = try startZooTLS("tls12-chacha20-only")
        let (outcome, xml) = try ats(port, ["--pin", tls + "/ios-ca.crt.pem", "--server-name", "pi.example.com"])
        XCTAssertEqual(outcome.status, 0, xml)
        XCTAssertTrue(xml.contains("ios-would-use = TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"), xml)
        XCTAssertFalse(xml.contains("<failure"), xml)
    }

    /// ATS governs a public DNS name, not a .local one: the same server without forward secrecy is
    /// refused under the one (naming NSExceptionRequiresForwardSecrecy) and passes under the other
    /// with a note saying why.
    func testNonForwardSecretServer_refusedUnderAPublicName_passesUnderALocalName() throws {
        let port = try startZooTLS("rsa-key-exchange-only")
        let (refused, publicXML) = try ats(port, ["--pin", tls + "/ios-ca.crt.pem", "--server-name", "pi.example.com"])
        XCTAssertEqual(refused.status, 1, publicXML)
        XCTAssertTrue(publicXML.contains("NSExceptionDomains › pi.example.com: NSExceptionRequiresForwardSecrecy = NO"), publicXML)
        XCTAssertTrue(publicXML.contains("ats-governs = yes"), publicXML)
        let (local, localXML) = try ats(port, ["--pin", tls + "/ios-ca.crt.pem", "--server-name", "raspberrypi.local"])
        XCTAssertEqual(local.status, 0, localXML)
        XCTAssertTrue(localXML.contains("note: ATS does not govern raspberrypi.local on iOS 26"), localXML)
        XCTAssertTrue(localXML.contains("not governed: ATS would refuse this (accepts no cipher suite with forward secrecy"), localXML)
        XCTAssertTrue(localXML.contains("ats = not governed"), localXML)
        XCTAssertFalse(localXML.contains("<failure"), localXML)
    }

    /// IP literals: ATS governs them from iOS 17, not on iOS 10–16 (NSAllowsLocalNetworking); a
    /// TLS 1.0/1.1 server is refused on 17 with the deprecated exception said so, passes on 16.
    func testIPAddress_governedFromIOS17_andTLS11ExceptionIsDeprecated() throws {
        let port = try startZooTLS("tls10-11-only")
        let (refused, newXML) = try ats(port, ["--pin", tls + "/ios-ca.crt.pem", "--server-name", "127.0.0.1", "--ios", "17"])
        XCTAssertEqual(refused.status, 1, newXML)
        XCTAssertTrue(newXML.contains("NSExceptionMinimumTLSVersion = TLSv1.1 (deprecated: Apple deprecated TLS 1.1 in iOS 15"), newXML)
        XCTAssertTrue(newXML.contains("an IP address: from iOS 17 ATS governs IP addresses"), newXML)
        let (older, oldXML) = try ats(port, ["--pin", tls + "/ios-ca.crt.pem", "--server-name", "127.0.0.1", "--ios", "16.4"])
        XCTAssertEqual(older.status, 0, oldXML)
        XCTAssertTrue(oldXML.contains("note: ATS does not govern 127.0.0.1 on iOS 16"), oldXML)
        let (_, localhostXML) = try ats(port, ["--pin", tls + "/ios-ca.crt.pem", "--server-name", "localhost"])
        XCTAssertTrue(localhostXML.contains("an unqualified name: ATS does not govern unqualified names such as localhost"), localhostXML)
        let usage = try CrosscheckBinary.run(["ats", "--host", "127.0.0.1", "--ios", "seventeen"])
        XCTAssertEqual(usage.status, 64)
        XCTAssertTrue(usage.stderr.contains("--ios takes an iOS version such as 16 or 17.4"), usage.stderr)
    }

    func testErrors_sayWhatToDo() throws {
        let usage = try CrosscheckBinary.run(["ats"])
        XCTAssertEqual(usage.status, 64)
        XCTAssertTrue(usage.stderr.contains("--host"), usage.stderr)
        let missingPin = try CrosscheckBinary.run(["ats", "--host", "127.0.0.1", "--pin", "/nonexistent/pin.pem"])
        XCTAssertEqual(missingPin.status, 66)
        XCTAssertTrue(missingPin.stderr.contains("/nonexistent/pin.pem"), missingPin.stderr)
        // Nothing listens on port 9 (discard) here: an error testcase, exit 1, advice in the message.
        let (closed, xml) = try ats(9, ["--timeout", "2"])
        XCTAssertEqual(closed.status, 1)
        XCTAssertTrue(xml.contains("no TLS probe reached 127.0.0.1:9"), xml)
        XCTAssertTrue(xml.contains("<error"), xml)
    }

    // MARK: crosscheck remote --app (the app under test as a client of a live server)

    func remoteApp(_ port: UInt16, _ extra: [String]) throws -> (CrosscheckBinary.Outcome, String) {
        let report = try makeTemporaryDirectory().appendingPathComponent("remote.xml")
        let outcome = try CrosscheckBinary.run(["remote", "--host", "127.0.0.1", "--port", String(port), "--client", "reference",
                                                "--junit", report.path, "--quiet"] + extra)
        XCTAssertEqual(try CrosscheckBinary.validate(report), 0, "the report validates")
        return (outcome, (try? String(contentsOf: report, encoding: .utf8)) ?? "")
    }

    func testRemoteApp_seed000SessionOverItsOwnSocket_passesWithTheSeedsServer_andFailsWithItsOutputOtherwise() throws {
        // The seed's own kind of server: PKCS#1 v1.5, legacy framing. The app's socket session completes.
        let seedServer = try servers.startPythonRef(["rsa-socket", "--padding", "pkcs1", "--key-bits", "1024"])
        let (good, goodXML) = try remoteApp(seedServer, ["--profile", "rsa-socket", "--app", "seed-000"])
        XCTAssertEqual(good.status, 0, good.stdout + good.stderr)
        XCTAssertTrue(goodXML.contains(#"<testcase name="app.seed-000.session-over-its-own-socket" classname="crosscheck.remote.rsa-socket""#), goodXML)
        XCTAssertTrue(goodXML.contains("<testsuite name=\"remote.127.0.0.1:\(seedServer)\""))
        // A hardened server (OAEP-SHA256): the app's PKCS#1 SecKeyDecrypt fails, and the failure shows what it printed.
        let oaepServer = try servers.startPythonRef(["rsa-socket", "--padding", "oaep-sha256"])
        let (bad, badXML) = try remoteApp(oaepServer, ["--profile", "rsa-socket", "--app", "seed-000"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(badXML.contains("seed-000 failed to run its session over its own socket") || badXML.contains("seed-000's PKCS#1 v1.5 decryption of what"), badXML)
        XCTAssertTrue(badXML.contains("the app printed:"), badXML)
        // iOS before 17.4 refuses the OAEP ciphertext (the seed prints "Decryption Error!"); from 17.4
        // (the default, iOS 26) SecKeyDecrypt answers a synthetic message (implicit rejection,
        // SecKeyAdaptors.m). Mostly it is not UTF-8 and the seed force-unwraps it; when it is (about
        // one run in a hundred: a short one), the app completes, and the implicit rejection fails it.
        XCTAssertTrue(badXML.contains("the plaintext is not UTF-8: the app force-unwraps") || badXML.contains("answered a synthetic message that the app took as the server's"), badXML)
    }

    func testRemoteApp_seeds001And002OverLiveHTTPS_passWithAnATSCertificate_seed002RefusesThe30YearOne() throws {
        let (certificate, key) = try serverCertificate()
        let port = try servers.startPythonRef(["aes-https", "--cert", certificate, "--key", key, "--user", "user:password",
                                               "--key-mode", "utf8-zeropad16"])
        for (app, testcase) in [("seed-001", "app.seed-001.login-and-echo"), ("seed-002", "app.seed-002.pinning-accepts-the-live-chain")] {
            let (outcome, xml) = try remoteApp(port, ["--profile", "aes-https", "--pin", certificate, "--server-name", "localhost", "--app", app])
            XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
            XCTAssertTrue(xml.contains(#"<testcase name="\#(testcase)""#), xml)
        }
        // The repo's 30-year certificate: seed 002's delegate (SecTrust with Apple's rules) refuses it, as an iPhone would.
        let old = try servers.startPythonRef(["aes-https", "--cert", tls + "/pinned.crt.pem", "--key", tls + "/pinned.key.pem",
                                              "--user", "user:password", "--key-mode", "utf8-zeropad16"])
        let (refused, xml) = try remoteApp(old, ["--profile", "aes-https", "--pin", tls + "/pinned.crt.pem", "--server-name", "localhost",
                                                 "--app", "seed-002", "--skip-ats"])
        XCTAssertEqual(refused.status, 1, refused.stdout)
        XCTAssertTrue(xml.contains("seed-002&apos;s pinning delegate refuses the chain") || xml.contains("seed-002's pinning delegate refuses the chain"), xml)
    }

    /// `remote --protocol` over https runs the same ATS testsuite as `--profile aes-https` (an iOS
    /// app reaches the server through URLSession, which ATS governs): the README's certificate
    /// passes, the 30-year one fails only in ats.<host:port> (the protocol itself conforms), and
    /// --skip-ats leaves the suite out; a raw-socket description refuses --skip-ats.
    func testRemoteProtocolOverHTTPS_runsTheATSSuite_asTheProfileDoes() throws {
        let (certificate, key) = try serverCertificate()
        let pythonRef = CrosscheckBinary.root.appendingPathComponent("PythonRef")
        for (cert, keyFile, expected) in [(certificate, key, Int32(0)), (tls + "/pinned.crt.pem", tls + "/pinned.key.pem", 1)] {
            let port = try servers.start("/usr/bin/python3", ["-m", "pythonref", "described-server", "--protocol", "../protocols/aes-https.toml",
                                                              "--cert", cert, "--key", keyFile, "--port", "0", "--quiet"], in: pythonRef)
            for skip in [false, true] {
                let report = try makeTemporaryDirectory().appendingPathComponent("remote.xml")
                let outcome = try CrosscheckBinary.run(["remote", "--protocol", "protocols/aes-https.toml", "--host", "127.0.0.1", "--port", String(port),
                                                        "--pin", cert, "--server-name", "localhost", "--junit", report.path, "--quiet"] + (skip ? ["--skip-ats"] : []))
                XCTAssertEqual(outcome.status, skip ? 0 : expected, "\(cert) skip=\(skip): \(outcome.stdout)\(outcome.stderr)")
                XCTAssertEqual(try CrosscheckBinary.validate(report), 0)
                let xml = try String(contentsOf: report, encoding: .utf8)
                XCTAssertTrue(xml.contains("<testsuite name=\"remote.127.0.0.1:\(port)\""), xml)
                XCTAssertEqual(xml.contains("<testsuite name=\"ats.127.0.0.1:\(port)\""), !skip, xml)
                if !skip {
                    XCTAssertTrue(xml.contains("<testcase name=\"verdict.default-policy\" classname=\"crosscheck.described.aes-https.ats\""), xml)
                    XCTAssertEqual(xml.contains("iOS allows at most 825"), expected == 1, xml)
                }
            }
        }
        let socket = try CrosscheckBinary.run(["remote", "--protocol", "protocols/rsa-socket.toml", "--host", "127.0.0.1", "--port", "9", "--skip-ats"])
        XCTAssertEqual(socket.status, 64)
        XCTAssertTrue(socket.stderr.contains("--skip-ats") && socket.stderr.contains("transport is tcp"), socket.stderr)
    }
}
