import Foundation
import XCTest

/// Issue 33: crosscheck as a team uses it in its own repository — `--version`, `crosscheck init`
/// and crosscheck.toml, the reference client by default, known failures in `remote` and `run
/// --server`, options that do not apply refused, "did you mean".
final class TeamRepositoryCLITests: XCTestCase {
    let servers = TestServers()
    override func tearDown() { servers.stopAll() }

    static let socketExample = CrosscheckBinary.root.appendingPathComponent("examples/pi-server-socket/server.py").path

    /// A folder outside the checkout, as a team's repository.
    func repository() throws -> URL { try makeTemporaryDirectory() }

    func crosscheck(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws -> CrosscheckBinary.Outcome {
        try CrosscheckBinary.run(arguments, directory: directory, environment: environment)
    }

    func testVersion_namesTheReleaseAndWhereItsDataIs() throws {
        for argument in ["--version", "-V"] {
            let outcome = try crosscheck([argument], in: try repository())
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            let lines = outcome.stdout.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.first?.hasPrefix("crosscheck 1."), true, outcome.stdout)
            XCTAssertEqual(lines.dropFirst().first, "PythonRef: " + CrosscheckBinary.root.appendingPathComponent("PythonRef").path)
        }
    }

    func testUnknownCommandAndOption_sayDidYouMean() throws {
        let command = try crosscheck(["remtoe"], in: try repository())
        XCTAssertEqual(command.status, 64)
        XCTAssertTrue(command.stderr.hasPrefix("crosscheck: unknown command 'remtoe' (did you mean 'remote'?)"), command.stderr)
        let option = try crosscheck(["remote", "--clinet", "seed-app"], in: try repository())
        XCTAssertEqual(option.status, 64)
        XCTAssertTrue(option.stderr.contains("unknown option '--clinet' (did you mean '--client'?)"), option.stderr)
        let version = try crosscheck(["--verison"], in: try repository())
        XCTAssertTrue(version.stderr.contains("(did you mean '--version'?)"), version.stderr)
    }

    /// The README's own Pi (`pythonref serve rsa-socket --padding oaep-sha256 --digest`) passes the
    /// default `crosscheck remote`: the reference client judges the team's server; the seed apps only when asked.
    func testREADMEPi_passesTheDefaultRemote_theSeedAppsOnlyWhenAsked() throws {
        let port = try servers.startPythonRef(["rsa-socket", "--padding", "oaep-sha256", "--digest"])
        let folder = try repository()
        let report = folder.appendingPathComponent("remote.xml")
        let outcome = try crosscheck(["remote", "--host", "127.0.0.1", "--port", String(port), "--profile", "rsa-socket", "--junit", report.path, "--quiet"],
                                     in: folder)
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        let xml = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(xml.contains("name=\"digest.phone-to-pi\""), xml)
        XCTAssertFalse(xml.contains("seed-app."), "the seed apps are not clients unless asked")
        let asked = try crosscheck(["remote", "--host", "127.0.0.1", "--port", String(port), "--profile", "rsa-socket", "--client", "seed-app",
                                    "--junit", report.path, "--quiet"], in: folder)
        XCTAssertEqual(asked.status, 1, "the seed app is PKCS#1-only: it cannot use this OAEP server")
        let askedReport = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(askedReport.contains("seed app quirk pkcs1-only"), askedReport)  // the report, so a failure says what the app ran into
    }

    /// `crosscheck init --host … --profile …` in an empty folder, then `crosscheck remote` with no options at all.
    func testInit_thenRemoteWithNoOptions_takesThemFromCrosscheckToml() throws {
        let port = try servers.startPythonRef(["rsa-socket", "--padding", "oaep-sha256", "--digest"])
        let folder = try repository()
        let initOutcome = try crosscheck(["init", "--profile", "rsa-socket", "--host", "127.0.0.1:\(port)"], in: folder)
        XCTAssertEqual(initOutcome.status, 0, initOutcome.stderr)
        let written = try String(contentsOf: folder.appendingPathComponent("crosscheck.toml"), encoding: .utf8)
        XCTAssertTrue(written.contains("profile = \"rsa-socket\"\n"), written)
        XCTAssertTrue(written.contains("hosts = [\"127.0.0.1:\(port)\"]\n"), written)
        XCTAssertTrue(written.contains("# known_failures = "), written)
        XCTAssertEqual(try crosscheck(["init"], in: folder).status, 64, "an existing file is not overwritten without --force")

        let sub = folder.appendingPathComponent("Sources/deeper")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        let outcome = try crosscheck(["remote", "--junit", folder.appendingPathComponent("r.xml").path], in: sub)
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("crosscheck remote: from \(folder.resolvingSymlinksInPath().path)/crosscheck.toml: --profile rsa-socket --host 127.0.0.1:\(port)")
                      || outcome.stderr.contains("crosscheck remote: from \(folder.path)/crosscheck.toml: --profile rsa-socket --host 127.0.0.1:\(port)"), outcome.stderr)
        // The command line wins: another profile given there is the one used.
        let overridden = try crosscheck(["remote", "--profile", "aes-https", "--quiet"], in: folder)
        XCTAssertEqual(overridden.status, 64)
        XCTAssertTrue(overridden.stderr.contains("--pin"), "aes-https from the command line, so --pin is asked for: \(overridden.stderr)")
        // CROSSCHECK_CONFIG=none: no file.
        let none = try crosscheck(["remote", "--quiet"], in: folder, environment: ["CROSSCHECK_CONFIG": "none"])
        XCTAssertEqual(none.status, 64)
        XCTAssertTrue(none.stderr.contains("--profile rsa-socket or --profile aes-https is required"), none.stderr)
    }

    /// Issue 31 from a team's repository: `protocol` in crosscheck.toml names its own description,
    /// and `remote` with no options checks the Pi in it (the seed profile's options stay out).
    func testInitProtocol_thenRemoteWithNoOptions_speaksTheTeamsDescription() throws {
        let root = CrosscheckBinary.root
        let port = try servers.start("/usr/bin/python3", ["Tests/Zoo/rsa_socket/base_server.py", "--padding", "pkcs1", "--host", "127.0.0.1", "--port", "0"], in: root)
        let folder = try repository()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("protocols"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: root.appendingPathComponent("protocols/rsa-socket.toml"), to: folder.appendingPathComponent("protocols/our-pi.toml"))
        XCTAssertEqual(try crosscheck(["init", "--profile", "rsa-socket", "--protocol", "protocols/our-pi.toml"], in: folder).status, 64, "a profile or a protocol, not both")
        let initOutcome = try crosscheck(["init", "--protocol", "protocols/our-pi.toml", "--host", "127.0.0.1:\(port)"], in: folder)
        XCTAssertEqual(initOutcome.status, 0, initOutcome.stderr)
        let written = try String(contentsOf: folder.appendingPathComponent("crosscheck.toml"), encoding: .utf8)
        XCTAssertTrue(written.contains("protocol = \"protocols/our-pi.toml\"\n") && written.contains("# profile = "), written)
        // A known-failures file in the file too, with a pattern on the description's checks: passed on,
        // and a listed check that passes is reported fixed (exit 1), as with --known-failures.
        try (written.replacingOccurrences(of: "# known_failures = \"known-failures.json\"", with: "known_failures = \"known-failures.json\"")).write(
            to: folder.appendingPathComponent("crosscheck.toml"), atomically: true, encoding: .utf8)
        try #"{"known_failures": [{"pattern": "crosscheck.described.rsa-socket.remote.phone-to-pi.conversation", "reason": "claimed", "seed": "ticket 1"}]}"#
            .write(to: folder.appendingPathComponent("known-failures.json"), atomically: true, encoding: .utf8)
        let fixed = try crosscheck(["remote", "--quiet", "--junit", folder.appendingPathComponent("k.xml").path], in: folder)
        XCTAssertEqual(fixed.status, 1, fixed.stdout)
        XCTAssertTrue(fixed.stdout.contains("known failure fixed"), fixed.stdout)
        try #"{"known_failures": [{"pattern": "crosscheck.described.rsa-socket.audit.description.*", "reason": "PKCS#1 v1.5 until the app moves to OAEP", "seed": "ticket 2"}]}"#
            .write(to: folder.appendingPathComponent("known-failures.json"), atomically: true, encoding: .utf8)
        let junit = folder.appendingPathComponent("r.xml")
        let outcome = try crosscheck(["remote", "--junit", junit.path], in: folder)
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("crosscheck.toml: --protocol \(folder.resolvingSymlinksInPath().path)/protocols/our-pi.toml --host 127.0.0.1:\(port)")
                      || outcome.stderr.contains("crosscheck.toml: --protocol \(folder.path)/protocols/our-pi.toml --host 127.0.0.1:\(port)"), outcome.stderr)
        let report = try String(contentsOf: junit, encoding: .utf8)
        XCTAssertTrue(report.contains("crosscheck.described.rsa-socket.remote"), "the described checks ran")
        // The command line wins: a seed profile given there is used instead of the file's protocol.
        let overridden = try crosscheck(["remote", "--profile", "rsa-socket", "--quiet", "--junit", folder.appendingPathComponent("p.xml").path], in: folder)
        XCTAssertNotEqual(overridden.stderr.contains("--protocol"), true, overridden.stderr)
    }

    func testBrokenCrosscheckToml_exit64NamingLineAndKey() throws {
        let folder = try repository()
        try Data("[checks]\nstrict = true\nclinet = \"reference\"\n".utf8).write(to: folder.appendingPathComponent("crosscheck.toml"))
        let outcome = try crosscheck(["remote", "--host", "x", "--profile", "rsa-socket"], in: folder)
        XCTAssertEqual(outcome.status, 64)
        XCTAssertTrue(outcome.stderr.contains("crosscheck.toml:3: unknown key clinet in [checks] (did you mean client?)"), outcome.stderr)
    }

    func testRunServer_fromCrosscheckToml_withKnownFailures_andRefusedOptions() throws {
        let folder = try repository()
        // A known failure the socket example does not have: the entry matches no check, so it is stale (an error).
        let known = folder.appendingPathComponent("known.json")
        try Data("""
            {"known_failures": [{"pattern": "crosscheck.rsa-socket.server.*.no-such-check", "reason": "claimed", "seed": "issue 33"}]}
            """.utf8).write(to: known)
        try Data("""
            [checks]
            known_failures = "known.json"
            [server]
            file = "\(Self.socketExample):Handler"
            log = "server.log"
            """.utf8).write(to: folder.appendingPathComponent("crosscheck.toml"))
        let outcome = try crosscheck(["run", "--quiet", "--junit", folder.appendingPathComponent("r.xml").path, "--seed", "1"], in: folder)
        XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("stale known-failures entry: 'crosscheck.rsa-socket.server.*.no-such-check'"), outcome.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("server.log").path), "log = … was used")

        for (extra, status, words) in [(["--transport", "loopback"], Int32(64), "--transport chooses how the suites' sessions run"),
                                       (["--filter", "digest"], 64, "--filter picks among the suites' checks"),
                                       (["--known-failures", folder.appendingPathComponent("missing.json").path], 66, "missing.json")] {
            let refused = try crosscheck(["run", "--server", Self.socketExample + ":Handler", "--quiet"] + extra, in: folder,
                                         environment: ["CROSSCHECK_CONFIG": "none"])
            XCTAssertEqual(refused.status, status, "\(extra): \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains(words), "\(extra): \(refused.stderr)")
        }
    }

    func testRemote_knownFailures_aListedFailureIsSkippedKnown_aMissingListIs66() throws {
        // The tutorial's CRLF-stripping server fails binary safety; the team lists it.
        let port = try servers.startPythonRef(["rsa-socket", "--padding", "oaep-sha256", "--quirk", "tutorial-strip-crlf"])
        let folder = try repository()
        let known = folder.appendingPathComponent("known.json")
        try Data("""
            {"known_failures": [{"pattern": "*.binary-safety.ciphertexts-with-crlf", "reason": "fixed in v2", "seed": "ticket 7"}]}
            """.utf8).write(to: known)
        let base = ["remote", "--host", "127.0.0.1", "--port", String(port), "--profile", "rsa-socket", "--direction", "phone-to-pi", "--quiet",
                    "--junit", folder.appendingPathComponent("r.xml").path]
        let without = try crosscheck(base, in: folder)
        XCTAssertEqual(without.status, 1, without.stdout)
        let with = try crosscheck(base + ["--known-failures", known.path], in: folder)
        XCTAssertTrue(with.stdout.contains("binary-safety.ciphertexts-with-crlf: fixed in v2"), with.stdout)
        let xml = try String(contentsOf: folder.appendingPathComponent("r.xml"), encoding: .utf8)
        XCTAssertTrue(xml.contains("known: fixed in v2 (ticket 7)"), xml)
        // Binary safety was its one failure: listed, the run passes.
        XCTAssertEqual(with.status, 0, with.stdout)
        let missing = try crosscheck(base + ["--known-failures", folder.appendingPathComponent("nope.json").path], in: folder)
        XCTAssertEqual(missing.status, 66, missing.stderr)
    }

    /// `--pin` takes the server.crt.der `pythonref server-cert` writes for the app bundle; garbage is exit 66.
    func testPin_takesTheDERTheAppBundles_andGarbageIs66() throws {
        let out = try repository()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-m", "pythonref", "server-cert", "--host", "localhost", "--out", out.path]
        process.currentDirectoryURL = CrosscheckBinary.root.appendingPathComponent("PythonRef")
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "server-cert")
        let port = try servers.startPythonRef(["aes-https", "--cert", out.appendingPathComponent("server.crt.pem").path,
                                               "--key", out.appendingPathComponent("server.key.pem").path, "--user", "user:password"])
        let base = ["remote", "--host", "127.0.0.1", "--port", String(port), "--profile", "aes-https", "--server-name", "localhost",
                    "--junit", out.appendingPathComponent("r.xml").path, "--quiet"]
        let der = try crosscheck(base + ["--pin", out.appendingPathComponent("server.crt.der").path], in: out)
        XCTAssertEqual(der.status, 0, der.stdout + der.stderr)
        let xml = try String(contentsOf: out.appendingPathComponent("r.xml"), encoding: .utf8)
        XCTAssertTrue(xml.contains("name=\"tls.serves-the-pinned-certificate\""), xml)
        XCTAssertTrue(xml.contains("<testsuite name=\"ats.127.0.0.1:\(port)\""), "ats ran with the DER pin too")

        let garbage = out.appendingPathComponent("garbage.der")
        try Data("not a certificate".utf8).write(to: garbage)
        for command in [base, ["ats", "--host", "127.0.0.1", "--port", String(port), "--quiet"]] {
            let refused = try crosscheck(command + ["--pin", garbage.path], in: out)
            XCTAssertEqual(refused.status, 66, refused.stderr)
            XCTAssertTrue(refused.stderr.contains("neither a PEM certificate ('BEGIN CERTIFICATE') nor a DER one"), refused.stderr)
        }
    }

    /// Issue 33: remote refuses an option that does not apply to the profile, naming it.
    func testRemote_optionsOfTheOtherProfile_areRefusedNotIgnored() throws {
        let folder = try repository()
        let tls = CrosscheckBinary.root.appendingPathComponent("Vectors/tls/pinned.crt.pem").path
        for (arguments, words) in [(["--profile", "rsa-socket", "--user", "a:b"], "--user does not apply to --profile rsa-socket (they are for aes-https): leave it out"),
                                   (["--profile", "rsa-socket", "--pin", tls, "--key-mode", "base64-raw"],
                                    "--pin, --key-mode do not apply to --profile rsa-socket (they are for aes-https): leave them out"),
                                   (["--profile", "aes-https", "--pin", tls, "--key-bits", "1024"],
                                    "--key-bits does not apply to --profile aes-https (they are for rsa-socket): leave it out")] {
            let outcome = try crosscheck(["remote", "--host", "127.0.0.1"] + arguments, in: folder, environment: ["CROSSCHECK_CONFIG": "none"])
            XCTAssertEqual(outcome.status, 64, "\(arguments)")
            XCTAssertTrue(outcome.stderr.contains(words), outcome.stderr)
        }
    }

    /// Every setting init writes commented out reads back when uncommented: the template and the reader agree.
    func testInitTemplate_everyCommentedSettingReadsBack() throws {
        let folder = try repository()
        let written = try crosscheck(["init", "--profile", "aes-https", "--server", "s.py:app", "--app", "App", "--host", "a.local,b.local:8443"], in: folder)
        XCTAssertEqual(written.status, 0, written.stderr)
        let url = folder.appendingPathComponent("crosscheck.toml")
        let text = try String(contentsOf: url, encoding: .utf8)
        XCTAssertTrue(text.contains("hosts = [\"a.local\", \"b.local:8443\"]\n"), text)
        let settings = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let uncommented = settings.map { line in
            line.range(of: #"^# [a-z_]+ = "#, options: .regularExpression) != nil ? String(line.dropFirst(2)) : line
        }
        XCTAssertGreaterThan(zip(settings, uncommented).filter { $0 != $1 }.count, 10, "the commented settings")
        try uncommented.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        let read = try crosscheck(["suites"], in: folder)
        XCTAssertEqual(read.status, 0, read.stderr)
        // And a broken one is refused by every command, here one that takes none of its options.
        let line = try XCTUnwrap(uncommented.firstIndex(of: "strict = false"))
        var broken = uncommented
        broken[line] = "strict = maybe"
        try broken.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        let refused = try crosscheck(["suites"], in: folder)
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.stderr.contains("crosscheck.toml:\(line + 1): strict: 'maybe' is not a value"), refused.stderr)
    }
}
