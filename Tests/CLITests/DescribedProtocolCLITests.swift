import Foundation
import FoundationXML
import TestSupport
import XCTest

/// Issue 31: `--protocol FILE` end to end — the described suite on both seeds and an example,
/// a mistake in a description named with its key and line, and `remote --protocol` right both
/// ways: PythonRef's described server and an independent correct server pass, a padding-oracle
/// server and a planted described-zoo server fail. (Every plant of every example:
/// scripts/described_mutants.py, `make described-mutants`.)
final class DescribedProtocolCLITests: XCTestCase {
    let servers = TestServers()
    override func tearDown() { servers.stopAll() }

    func crosscheck(_ arguments: [String], environment: [String: String] = [:]) throws -> CrosscheckBinary.Outcome {
        try CrosscheckBinary.run(arguments, environment: environment)
    }

    func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("described-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder
    }

    /// The testcases of a JUnit file: name → "passed", "skipped", "failed" or "error".
    func outcomes(_ junit: URL) throws -> [String: String] {
        let document = try XMLDocument(contentsOf: junit)
        var found: [String: String] = [:]
        for case let testcase as XMLElement in try document.nodes(forXPath: "//testcase") {
            let name = "\(testcase.attribute(forName: "classname")?.stringValue ?? "").\(testcase.attribute(forName: "name")?.stringValue ?? "")"
            let kinds = ["failure": "failed", "error": "error", "skipped": "skipped"]
            found[name] = kinds.first { !(testcase.elements(forName: $0.key).isEmpty) }?.value ?? "passed"
        }
        return found
    }

    /// `remote --protocol DESCRIPTION` against a server already listening on `port`: crosscheck's
    /// outcome and each testcase's (`outcomes`).
    func remote(port: UInt16, protocol description: String, options: [String] = []) throws
        -> (outcome: CrosscheckBinary.Outcome, results: [String: String]) {
        let junit = try scratch().appendingPathComponent("remote-\(UUID().uuidString).xml")
        let outcome = try crosscheck(["remote", "--protocol", description, "--host", "127.0.0.1", "--port", String(port),
                                      "--junit", junit.path, "--quiet"] + options)
        return (outcome, try outcomes(junit))
    }

    /// Starts a test's own server (`python3 SCRIPT ARGUMENTS`, which prints `LISTENING <port>`), runs
    /// `remote --protocol` against it, and checks the exit status and each testcase's outcome
    /// (`expect`: name after `prefix` → "passed", "failed" or "skipped").
    func remote(_ script: URL, _ arguments: [String], protocol description: String, options: [String] = [], in folder: URL,
                status: Int32, prefix: String, expect: [String: String], file: StaticString = #filePath, line: UInt = #line) throws {
        let label = ([script.lastPathComponent] + arguments).joined(separator: " ")
        let port = try servers.start("/usr/bin/python3", [script.path] + arguments, in: folder)
        let (outcome, results) = try remote(port: port, protocol: description, options: options)
        XCTAssertEqual(outcome.status, status, "\(label): " + outcome.stdout + outcome.stderr, file: file, line: line)
        for (testcase, verdict) in expect.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(results[prefix + testcase], verdict, "\(label): \(testcase) in \(results)", file: file, line: line)
        }
    }

    func testRun_bothSeedsAndAnExample_everyPairingPasses() throws {
        for description in ["protocols/rsa-socket.toml", "protocols/aes-https.toml", "examples/protocols/rsa-wrapped-aes-gcm.toml",
                            "examples/protocols/ecdh-p384-hkdf-fernet.toml", "examples/protocols/textbook-rsa-pycrypto-tuple.toml"] {
            let junit = try scratch().appendingPathComponent("run.xml")
            let outcome = try crosscheck(["run", "--protocol", description, "--seed", "7", "--junit", junit.path, "--quiet"])
            XCTAssertEqual(outcome.status, 0, "\(description): \(outcome.stderr)")
            let results = try outcomes(junit)
            let conversations = results.keys.filter { $0.hasSuffix(".conversation") }
            // Every conversation of the description, for all four client × server pairings.
            XCTAssertFalse(conversations.isEmpty, description)
            XCTAssertEqual(conversations.count % 4, 0, "\(description): \(conversations.sorted())")
            for pairing in ["swift_to_python", "python_to_swift", "swift_to_swift", "python_to_python"] {
                XCTAssertTrue(conversations.contains { $0.contains(".\(pairing).") }, "\(description): no \(pairing) in \(conversations.sorted())")
            }
            XCTAssertTrue(results.keys.contains { $0.hasSuffix("mutated-to-server") }, description)
            XCTAssertEqual(Set(results.values), ["passed"], "\(description): \(results.filter { $0.value != "passed" })")
        }
    }

    /// The app as a described client, across processes: seed 000 in its own host
    /// (`crosscheck app-host seed-000`) runs the seed description's pi-to-phone conversation with
    /// its own socket against PythonRef's described server and the Swift engine's.
    func testRun_appAsDescribedClient_seed000OverItsOwnSocket() throws {
        let junit = try scratch().appendingPathComponent("run.xml")
        let outcome = try crosscheck(["run", "--app", "seed-000", "--suite", "sessions", "--filter", ".described.", "--junit", junit.path])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertEqual(try outcomes(junit), [
            "crosscheck.rsa-socket.app_client.swift_server.seed-000.described.pi-to-phone": "passed",
            "crosscheck.rsa-socket.app_client.python_server.seed-000.described.pi-to-phone": "passed",
        ])
        // Only the weakness of the conversation the app runs (pi-to-phone's PKCS#1 to the client's key).
        XCTAssertTrue(outcome.stdout.contains("Weaknesses (1):"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("RSA to key client with PKCS#1 v1.5 padding"), outcome.stdout)
    }

    func testRun_aMistakeInTheDescription_namesTheKeyAndLine() throws {
        let folder = try scratch()
        let seed = try String(contentsOf: CrosscheckBinary.root.appendingPathComponent("protocols/rsa-socket.toml"), encoding: .utf8)
        let cases: [(String, String, [String])] = [
            ("bits = 2048\n\n[keys.client]", "bits = 1000\n\n[keys.client]", ["keys.server.bits", "line 15", "1024, 2048, 3072, 4096", "1000"]),
            ("padding = \"pkcs1\", carries = \"message\" } ] }", "paddin = \"pkcs1\", carries = \"message\" } ] }", ["paddin", "line 36", "padding"]),
            ("framing = \"legacy\"", "framing = \"pauses\"", ["transport.framing", "line 10", "legacy", "length-prefix", "line"]),
        ]
        for (original, broken, words) in cases {
            XCTAssertTrue(seed.contains(original), original)
            let file = folder.appendingPathComponent("broken.toml")
            try seed.replacingOccurrences(of: original, with: broken).write(to: file, atomically: true, encoding: .utf8)
            let outcome = try crosscheck(["run", "--protocol", file.path, "--quiet"])
            XCTAssertEqual(outcome.status, 66, outcome.stderr)
            for word in words { XCTAssertTrue(outcome.stderr.contains(word), "'\(word)' not in: \(outcome.stderr)") }
        }
        // A description that cannot work: a GCM value with no nonce, refused before any connection.
        let gcm = """
        name = "no-nonce"
        [transport]
        kind = "tcp"
        [secrets.psk]
        made_by = "preshared"
        [[conversation]]
        name = "one"
        [[conversation.step]]
        from = "client"
        send = { sealed = "psk", cipher = "aes-gcm", iv = "none", carries = "message" }
        """
        let file = folder.appendingPathComponent("gcm.toml")
        try gcm.write(to: file, atomically: true, encoding: .utf8)
        let outcome = try crosscheck(["remote", "--protocol", file.path, "--host", "127.0.0.1", "--port", "9", "--secret", "psk=" + String(repeating: "00", count: 32)])
        XCTAssertEqual(outcome.status, 66, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("line 10"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.lowercased().contains("nonce") || outcome.stderr.contains("iv"), outcome.stderr)
    }

    func testRemote_seedDescription_passesPythonRefAndAnIndependentServer_failsAPaddingOracle() throws {
        let root = CrosscheckBinary.root
        let pythonRef = try servers.startDescribedPythonRef("../protocols/rsa-socket.toml")
        let independent = try servers.start("/usr/bin/python3", ["Tests/Zoo/rsa_socket/base_server.py", "--padding", "pkcs1", "--host", "127.0.0.1", "--port", "0"], in: root)
        let oracle = try servers.start("/usr/bin/python3", ["Tests/Zoo/rsa_socket/oracle_error_text.py", "--host", "127.0.0.1", "--port", "0"], in: root)
        for (port, expected) in [(pythonRef, Int32(0)), (independent, 0), (oracle, 1)] {
            let junit = try scratch().appendingPathComponent("remote.xml")
            let outcome = try crosscheck(["remote", "--protocol", "protocols/rsa-socket.toml", "--host", "127.0.0.1", "--port", String(port),
                                          "--junit", junit.path, "--quiet"])
            XCTAssertEqual(outcome.status, expected, outcome.stdout + outcome.stderr)
            let results = try outcomes(junit)
            XCTAssertEqual(results["crosscheck.described.rsa-socket.remote.phone-to-pi.conversation"], "passed", "\(results)")
            XCTAssertEqual(results["crosscheck.described.rsa-socket.remote.pi-to-phone.conversation"], "passed", "\(results)")
            XCTAssertEqual(results["crosscheck.described.rsa-socket.remote.phone-to-pi.oracle.rsa.message-2"], expected == 0 ? "passed" : "failed", "\(results)")
            if expected == 1 { XCTAssertTrue(outcome.stdout.contains("padding oracle"), outcome.stdout) }
            // `also_accepts = ["pem-pkcs1"]`: every one of these servers takes the client's PKCS#1 PEM key.
            XCTAssertEqual(results["crosscheck.described.rsa-socket.remote.pi-to-phone.takes.message-1.client-key-pem-pkcs1"], "passed", "\(results)")
            // The seed's description states no `max_message` (legacy framing has no limit): no such probe.
            XCTAssertEqual(results.keys.filter { $0.hasSuffix("over-max-message") }, [], "\(results)")
        }
    }

    /// The seed description's `also_accepts = ["pem-pkcs1"]` on the client's key: a server written
    /// from docs/PROTOCOL.md that takes SPKI PEM only (Tests/Zoo/rsa_socket/spki_only.py) fails exactly
    /// `takes.message-1.client-key-pem-pkcs1`, as the built-in profile fails it `client-key-format.pkcs1-pem`.
    func testRemote_seedDescription_aServerThatTakesSPKIOnly_failsThePKCS1Key() throws {
        let root = CrosscheckBinary.root
        let port = try servers.start("/usr/bin/python3", ["Tests/Zoo/rsa_socket/spki_only.py", "--host", "127.0.0.1", "--port", "0"], in: root)
        let junit = try scratch().appendingPathComponent("remote.xml")
        let outcome = try crosscheck(["remote", "--protocol", "protocols/rsa-socket.toml", "--host", "127.0.0.1", "--port", String(port), "--junit", junit.path, "--quiet"])
        XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr)
        let results = try outcomes(junit)
        XCTAssertEqual(results.filter { $0.value == "failed" }.keys.sorted(), ["crosscheck.described.rsa-socket.remote.pi-to-phone.takes.message-1.client-key-pem-pkcs1"], "\(results)")
        XCTAssertTrue(outcome.stdout.contains("the client's key as pem-pkcs1, which the description says the server also accepts"), outcome.stdout)
    }

    /// The stop-49 review, F1 and F2, on a line-framed description (CRLF, `max_message = 64`) and a
    /// server written from the docs (Tests/CLITests/line_hello_server.py, asyncio's readuntil):
    /// correct, it passes `over-max-message` though it waits at 65 bytes (a CRLF may follow), and the
    /// garbage probe; planted to answer the next "hello" with ERROR once after a bad line, both
    /// liveness conversations fail — a refusal of a correct message is not retried away.
    func testRemote_lineFramedLimit_aCRLFReaderPasses_aServerThatABadLineBreaksFails() throws {
        let root = CrosscheckBinary.root
        let description = try scratch().appendingPathComponent("hello-line.toml")
        try Data("""
            name = "hello-line"
            [transport]
            kind = "tcp"
            framing = "line"
            line_end = "\\r\\n"
            max_message = 64
            [[conversation]]
            name = "greet"
            error = { text = "ERROR" }
            [[conversation.step]]
            from = "client"
            send = { text = "hello" }
            [[conversation.step]]
            from = "server"
            send = { text = "world" }
            then = "close"

            """.utf8).write(to: description)
        let server = "Tests/CLITests/line_hello_server.py"
        let correct = try servers.start("/usr/bin/python3", [server, "--host", "127.0.0.1", "--port", "0"], in: root)
        let planted = try servers.start("/usr/bin/python3", [server, "--host", "127.0.0.1", "--port", "0", "--plant", "refuses-once-after-bad"], in: root)
        let prefix = "crosscheck.described.hello-line.remote.greet."
        for (port, expected) in [(correct, Int32(0)), (planted, 1)] {
            let junit = try scratch().appendingPathComponent("remote.xml")
            let outcome = try crosscheck(["remote", "--protocol", description.path, "--host", "127.0.0.1", "--port", String(port), "--junit", junit.path, "--quiet"])
            XCTAssertEqual(outcome.status, expected, outcome.stdout + outcome.stderr)
            let results = try outcomes(junit)
            XCTAssertEqual(results[prefix + "conversation"], "passed", "\(results)")
            XCTAssertEqual(results.filter { $0.value == "failed" }.keys.sorted(),
                           expected == 0 ? [] : [prefix + "refuses.message-1.over-max-message", prefix + "survives.message-1.garbage"], "\(results)")
        }
    }

    /// `max_message` stated, length-prefix framing: a header announcing max_message + 1 must be
    /// refused at once. The zoo's framed server (written from docs/PROTOCOL.md) refuses it; its
    /// framed-no-limit mutant believes the length and waits for the bytes, and fails exactly that
    /// probe, in both conversations — as `--profile rsa-socket --framing framed` fails it
    /// (`message-over-the-limit`, make mutants). A description that leaves `max_message` out has no
    /// such probe.
    func testRemote_statedMaxMessage_aLengthOverItIsRefused_aServerThatBelievesItFails() throws {
        let root = CrosscheckBinary.root
        let file = "protocols/variants/rsa-socket-framed-oaep-sha256.toml"
        let correct = try servers.start("/usr/bin/python3", ["Tests/Zoo/rsa_socket/base_server.py", "--framing", "framed", "--padding", "oaep-sha256",
                                                             "--host", "127.0.0.1", "--port", "0"], in: root)
        let believes = try servers.start("/usr/bin/python3", ["Tests/Zoo/rsa_socket/framed_no_limit.py", "--framing", "framed", "--padding", "oaep-sha256",
                                                              "--host", "127.0.0.1", "--port", "0"], in: root)
        let prefix = "crosscheck.described.rsa-socket-framed-oaep-sha256.remote."
        let probes = [prefix + "phone-to-pi.refuses.message-1.over-max-message", prefix + "pi-to-phone.refuses.message-1.over-max-message"]
        for (port, expected) in [(correct, Int32(0)), (believes, 1)] {
            let junit = try scratch().appendingPathComponent("remote.xml")
            let outcome = try crosscheck(["remote", "--protocol", file, "--host", "127.0.0.1", "--port", String(port), "--junit", junit.path, "--quiet"])
            XCTAssertEqual(outcome.status, expected, "port \(port): " + outcome.stdout + outcome.stderr)
            let results = try outcomes(junit)
            XCTAssertEqual(probes.map { results[$0] }, Array(repeating: expected == 0 ? "passed" : "failed", count: 2), "\(results)")
            XCTAssertEqual(results.filter { $0.value == "failed" }.keys.sorted(), expected == 0 ? [] : probes.sorted(), "\(results)")
            if expected == 1 { XCTAssertTrue(outcome.stdout.contains("a length prefix of 65537 (max_message is 65536)"), outcome.stdout) }
        }
    }

    /// The same probe behind a 2-byte length prefix (the review of stop 49 found no test of it):
    /// with `max_message = 1000` the prefix is 03 E9 (1001); PythonRef's described server refuses it
    /// at once and passes, the described zoo's server, which takes any length two bytes can say,
    /// waits for the rest and fails, named with the length. With `max_message = 65535` a 2-byte
    /// prefix cannot say one more, and there is no probe.
    func testRemote_statedMaxMessage_behindATwoBytePrefix_isProbedWhereThePrefixCanSayIt() throws {
        let root = CrosscheckBinary.root
        let source = try String(contentsOf: root.appendingPathComponent("examples/protocols/der-client-key-session.toml"), encoding: .utf8)
        func variant(_ maxMessage: Int) throws -> URL {
            let file = try scratch().appendingPathComponent("der-\(maxMessage).toml")
            try Data(source.replacingOccurrences(of: "length_bytes = 2\n", with: "length_bytes = 2\nmax_message = \(maxMessage)\n").utf8).write(to: file)
            return file
        }
        let limited = try variant(1000), widest = try variant(65535)
        let pythonRef = try servers.startDescribedPythonRef(limited.path)
        let zoo = try servers.start("/usr/bin/python3", ["Tests/DescribedZoo/der_client_key_session.py", "--host", "127.0.0.1", "--port", "0"], in: root)
        let probe = "crosscheck.described.der-client-key-session.remote.fetch-content.refuses.message-1.over-max-message"
        for (port, expected) in [(pythonRef, Int32(0)), (zoo, 1)] {
            let (outcome, results) = try remote(port: port, protocol: limited.path)
            XCTAssertEqual(outcome.status, expected, "port \(port): " + outcome.stdout + outcome.stderr)
            XCTAssertEqual(results[probe], expected == 0 ? "passed" : "failed", "\(results)")
            XCTAssertEqual(results.filter { $0.value == "failed" }.keys.sorted(), expected == 0 ? [] : [probe], "\(results)")
            if expected == 1 {
                XCTAssertTrue(outcome.stdout.contains("a length prefix of 1001 (max_message is 1000) and 64 bytes, the server waited for the rest"), outcome.stdout)
            }
        }
        let (outcome, results) = try remote(port: zoo, protocol: widest.path)
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertEqual(results[probe.replacingOccurrences(of: "over-max-message", with: "garbage").replacingOccurrences(of: "refuses", with: "survives")], "passed", "\(results)")
        XCTAssertNil(results[probe], "a 2-byte prefix cannot say 65536: \(results)")
    }

    /// `also_accepts` between DER forms (the review of stop 49 found only PEM tested): the DER-key
    /// example saying its server also takes PKCS#1 DER. PythonRef serving that description and the
    /// described zoo's independent server (pyca's load_der_public_key, which reads both) pass
    /// `takes.message-1.client-key-der-pkcs1`; PythonRef serving the example as written (SPKI DER
    /// only) fails it, and only it.
    func testRemote_alsoAcceptsADERForm_theKeyGoesInDERPKCS1_aServerThatTakesOnlySPKIFails() throws {
        let root = CrosscheckBinary.root
        let original = root.appendingPathComponent("examples/protocols/der-client-key-session.toml")
        let source = try String(contentsOf: original, encoding: .utf8)
        let also = try scratch().appendingPathComponent("der-also.toml")
        let said = #"send = { public_key = "client", format = "der-spki" }"#
        XCTAssertTrue(source.contains(said))
        try Data(source.replacingOccurrences(of: said, with: #"send = { public_key = "client", format = "der-spki", also_accepts = ["der-pkcs1"] }"#).utf8).write(to: also)
        let both = try servers.startDescribedPythonRef(also.path), spkiOnly = try servers.startDescribedPythonRef(original.path)
        let zoo = try servers.start("/usr/bin/python3", ["Tests/DescribedZoo/der_client_key_session.py", "--host", "127.0.0.1", "--port", "0"], in: root)
        let probe = "crosscheck.described.der-client-key-session.remote.fetch-content.takes.message-1.client-key-der-pkcs1"
        for (port, expected) in [(both, Int32(0)), (zoo, 0), (spkiOnly, 1)] {
            let (outcome, results) = try remote(port: port, protocol: also.path)
            XCTAssertEqual(outcome.status, expected, "port \(port): " + outcome.stdout + outcome.stderr)
            XCTAssertEqual(results.filter { $0.value == "failed" }.keys.sorted(), expected == 0 ? [] : [probe], "port \(port): \(results)")
            XCTAssertEqual(results[probe], expected == 0 ? "passed" : "failed", "port \(port): \(results)")
        }
    }

    /// Key agreement (`made_by = "agreement"`): the ECDH P-384 + HKDF + Fernet example against
    /// PythonRef's described server (a fresh agreement key per conversation: it passes even with
    /// `--strict`) and the zoo's independent server with a planted flaw: one that takes a point off
    /// the curve fails `ec-point-not-on-curve`; one that keeps one key for every conversation is a
    /// finding (no forward secrecy), which `--strict` fails. (`make test`'s described zoo runs the
    /// independent server correct and with every plant.)
    func testRemote_agreementExample_passesPythonRef_failsAnOffCurvePoint_reportsAStaticKey() throws {
        let root = CrosscheckBinary.root
        let file = "examples/protocols/ecdh-p384-hkdf-fernet.toml"
        let pythonRef = try servers.startDescribedPythonRef("../" + file)
        let zoo = "Tests/DescribedZoo/ecdh_p384_hkdf_fernet.py"
        let offCurve = try servers.start("/usr/bin/python3", [zoo, "--host", "127.0.0.1", "--port", "0", "--plant", "no-point-check"], in: root)
        let staticKey = try servers.start("/usr/bin/python3", [zoo, "--host", "127.0.0.1", "--port", "0", "--plant", "static-key"], in: root)
        let prefix = "crosscheck.described.ecdh-p384-hkdf-fernet.remote.handshake-echo."
        for (port, strict, expected) in [(pythonRef, true, Int32(0)), (offCurve, false, 1), (staticKey, true, 1)] {
            let junit = try scratch().appendingPathComponent("remote.xml")
            let outcome = try crosscheck(["remote", "--protocol", file, "--host", "127.0.0.1", "--port", String(port), "--junit", junit.path, "--quiet"]
                                         + (strict ? ["--strict"] : []))
            XCTAssertEqual(outcome.status, expected, "port \(port): " + outcome.stdout + outcome.stderr)
            let results = try outcomes(junit)
            XCTAssertEqual(results[prefix + "conversation"], "passed", "\(results)")
            XCTAssertEqual(results[prefix + "refuses.message-1.ec-point-not-on-curve"], port == offCurve ? "failed" : "passed", "\(results)")
            let finding = results.first { $0.key.hasSuffix("handshake-echo.static-agreement-key-server") }?.value
            XCTAssertEqual(finding, port == staticKey ? "failed" : nil, "\(results)")
        }
    }

    /// Found by the fourth review, each written from the docs with pyca: a correct server whose RSA
    /// takes longer than the quiet gap refuses a bad wrapped key after the client's next message is
    /// sent, and closes with it unread — a reset, which is a close (it failed as "kept the connection
    /// open"); one whose unwrap time varies around the quiet gap is no timing oracle (it failed now
    /// and then: the confirming tries now wait longer for an answer before the next message).
    func testRemote_aSlowCorrectServerThatResets_passes_aTimingOracleStillFails() throws {
        let folder = try scratch()
        let server = folder.appendingPathComponent("slow_wrapped_gcm.py")
        try """
        import os, random, sys, time
        from cli_test_server import recv_framed as recv, send_framed as send, serve
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import padding, rsa
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        OAEP = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
        low, _, high = sys.argv[1].partition("-")
        oracle = "--oracle" in sys.argv
        def handle(conn):
            send(conn, pem)
            wrapped = recv(conn)
            time.sleep(random.uniform(float(low), float(high or low)))  # a slow board's RSA
            try:
                if oracle:  # Manger: a block whose first byte is not 0 is refused at once, others at the GCM message
                    n, d = key.private_numbers().public_numbers.n, key.private_numbers().d
                    if pow(int.from_bytes(wrapped, "big"), d, n) >> (8 * 255): raise ValueError("first byte")
                    try: secret = key.decrypt(wrapped, OAEP)
                    except ValueError: secret = os.urandom(32)
                else:
                    secret = key.decrypt(wrapped, OAEP)
                if len(secret) != 32: raise ValueError("secret length")  # the description's 32 bytes, refused at once as a bad padding is
                box = recv(conn)
                message = AESGCM(secret).decrypt(box[:12], box[12:], None)
            except Exception:
                send(conn, b"ERROR")
                return  # close() with the GCM message unread: the kernel answers with a reset
            nonce = os.urandom(12)
            send(conn, nonce + AESGCM(secret).encrypt(nonce, message, None))
        serve(handle)
        """.write(to: server, atomically: true, encoding: .utf8)
        let prefix = "crosscheck.described.rsa-wrapped-aes-gcm.remote.session."
        for (delay, oracle) in [("0.4", false), ("0.2-0.4", false), ("0.4", true)] {
            try remote(server, [delay] + (oracle ? ["--oracle"] : []), protocol: "examples/protocols/rsa-wrapped-aes-gcm.toml", in: folder,
                       status: oracle ? 1 : 0, prefix: prefix,
                       expect: ["refuses.message-1.rsa-not-below-modulus": "passed", "oracle.rsa.message-1": oracle ? "failed" : "passed"])
        }
    }

    /// The fourth review's sentinel: a server that goes on with a fixed key after a wrapped key it
    /// cannot use answered a bad padding as a correct server does, and passed. Now a message sealed
    /// under the all-zero key after a bad padding tells it: `zero` fails `oracle.rsa-fixed-key`; a
    /// random stand-in for each ciphertext (RFC 3218 §2.3.2) passes; a zero key behind no tag check
    /// (it decrypts anything) still answers under the zero key, so it fails both ways. Written here
    /// from docs/PROTOCOL-DESCRIPTIONS.md and the example.
    func testRemote_aFixedKeyAfterABadPadding_fails_aRandomStandInPasses() throws {
        let folder = try scratch()
        let server = folder.appendingPathComponent("sentinel_wrapped_gcm.py")
        try """
        import os, sys
        from cli_test_server import recv_framed as recv, send_framed as send, serve
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import padding, rsa
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        OAEP = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
        stand_in = sys.argv[1]  # "random", "zero", or "zero-no-tag"
        def handle(conn):
            send(conn, pem)
            wrapped = recv(conn)
            try: secret = key.decrypt(wrapped, OAEP)
            except ValueError: secret = b""
            if len(secret) != 32:  # every unusable secret alike: no answer until the sealed message
                secret = os.urandom(32) if stand_in == "random" else bytes(32)
            box = recv(conn)
            try:
                if stand_in == "zero-no-tag":  # GCM's keystream as CTR, the tag never checked
                    worker = Cipher(algorithms.AES(secret), modes.CTR(box[:12] + bytes([0, 0, 0, 2]))).decryptor()
                    message = worker.update(box[12:-16]) + worker.finalize()
                else:
                    message = AESGCM(secret).decrypt(box[:12], box[12:], None)
            except Exception:
                send(conn, b"ERROR")
                return
            nonce = os.urandom(12)
            send(conn, nonce + AESGCM(secret).encrypt(nonce, message, None))
        serve(handle)
        """.write(to: server, atomically: true, encoding: .utf8)
        let description = "examples/protocols/rsa-wrapped-aes-gcm.toml"
        let prefix = "crosscheck.described.rsa-wrapped-aes-gcm.remote.session."
        try remote(server, ["random"], protocol: description, in: folder, status: 0, prefix: prefix,
                   expect: ["oracle.rsa-fixed-key.message-1": "passed", "oracle.rsa.message-1": "passed"])
        try remote(server, ["zero"], protocol: description, in: folder, status: 1, prefix: prefix,
                   expect: ["oracle.rsa-fixed-key.message-1": "failed", "oracle.rsa.message-1": "passed"])
        try remote(server, ["zero-no-tag"], protocol: description, in: folder, status: 1, prefix: prefix,
                   expect: ["oracle.rsa-fixed-key.message-1": "failed", "refuses.message-2.aes-gcm-tag-bit-flipped": "failed"])
    }

    /// AES-CFB on the wire, both ways: a server written here from the docs that reads and answers
    /// CFB with 8-bit segments passes; the same server with 128-bit segments (pyca `modes.CFB`,
    /// CommonCrypto `kCCModeCFB`: what an iOS client has where a PyCryptodome server's `MODE_CFB` is
    /// CFB-8) fails the conversation; one that answers under the client's own IV, chains its IVs
    /// from its last ciphertext bytes, or counts them up, fails the IV check.
    func testRemote_aesCFB8_passesACorrectServer_failsCFB128AndAnEchoedIV() throws {
        let folder = try scratch()
        let description = folder.appendingPathComponent("cfb8-line.toml")
        try """
        name = "cfb8-line"
        [transport]
        kind = "tcp"
        framing = "line"
        [secrets.k]
        made_by = "preshared"
        bytes = 16
        [[conversation]]
        name = "reading"
        message = "21.5 C, 40 % RH, 300 lux"
        error = { text = "ERR" }
        [[conversation.step]]
        from = "client"
        send = { sealed = "k", cipher = "aes-cfb8", iv = "prefix", carries = "message", encoding = "base64" }
        [[conversation.step]]
        from = "server"
        send = { sealed = "k", cipher = "aes-cfb8", iv = "prefix", carries = "same", encoding = "base64" }
        then = "close"
        """.write(to: description, atomically: true, encoding: .utf8)
        let server = folder.appendingPathComponent("cfb8_line.py")
        try """
        import base64, binascii, os, sys
        from cli_test_server import serve
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        KEY = bytes.fromhex(sys.argv[1])
        flaw = sys.argv[2] if len(sys.argv) > 2 else ""
        def mode(iv): return modes.CFB(iv) if flaw == "cfb128" else modes.CFB8(iv)
        last = [os.urandom(16)]  # "chain": each answer's IV is the previous answer's last 16 ciphertext bytes
        count = [int.from_bytes(os.urandom(8), "big")]  # "counter": each answer's IV is one more than the last
        def handle(conn):
            line = b""
            while not line.endswith(b"\\n"):
                chunk = conn.recv(4096)
                if not chunk: return
                line += chunk
            try:
                raw = base64.b64decode(line.strip(), validate=True)
                iv, body = raw[:16], raw[16:]
                if len(iv) != 16: raise ValueError("short")
                worker = Cipher(algorithms.AES(KEY), mode(iv)).decryptor()
                text = worker.update(body) + worker.finalize()
                text.decode("utf-8")
            except (ValueError, binascii.Error):
                conn.sendall(b"ERR\\n")
                return
            count[0] += 1
            out = iv if flaw == "echo-iv" else last[0] if flaw == "chain" else count[0].to_bytes(16, "big") if flaw == "counter" else os.urandom(16)
            worker = Cipher(algorithms.AES(KEY), mode(out)).encryptor()
            sealed = worker.update(text) + worker.finalize()
            last[0] = sealed[-16:]
            conn.sendall(base64.b64encode(out + sealed) + b"\\n")
        serve(handle)
        """.write(to: server, atomically: true, encoding: .utf8)
        let key = "000102030405060708090a0b0c0d0e0f"
        let prefix = "crosscheck.described.cfb8-line.remote.reading."
        try remote(server, [key], protocol: description.path, options: ["--secret", "k=\(key)"], in: folder, status: 0, prefix: prefix,
                   expect: ["conversation": "passed", "fresh-per-conversation": "passed"])
        try remote(server, [key, "cfb128"], protocol: description.path, options: ["--secret", "k=\(key)"], in: folder, status: 1, prefix: prefix,
                   expect: ["conversation": "failed"])
        try remote(server, [key, "echo-iv"], protocol: description.path, options: ["--secret", "k=\(key)"], in: folder, status: 1, prefix: prefix,
                   expect: ["conversation": "passed", "fresh-per-conversation": "failed"])
        // The review of stop 47 (W1): IVs chained from the last ciphertext bytes passed under CFB,
        // where SP 800-38A app. C asks unpredictable IVs of CFB as of CBC.
        try remote(server, [key, "chain"], protocol: description.path, options: ["--secret", "k=\(key)"], in: folder, status: 1, prefix: prefix,
                   expect: ["conversation": "passed", "fresh-per-conversation": "failed"])
        // N4 of the same review: IVs from a message counter, as predictable.
        try remote(server, [key, "counter"], protocol: description.path, options: ["--secret", "k=\(key)"], in: folder, status: 1, prefix: prefix,
                   expect: ["conversation": "passed", "fresh-per-conversation": "failed"])
    }

    /// AES-EAX on the wire against PyCryptodome's own MODE_EAX (Debian's python3-pycryptodome, `make
    /// deps`): the server a PyCryptodome user writes from its documentation (`encrypt_and_digest`,
    /// `decrypt_and_verify`, nonce ‖ tag ‖ ciphertext: `tag = "before"`) passes; the same server with `decrypt` alone, the tag never checked,
    /// fails the tag probe; the correct one sending its answer in two writes 0.6 s apart (a framed
    /// message is whole when its length says, not at a quiet gap) still passes. The description is
    /// written here from docs/PROTOCOL-DESCRIPTIONS.md.
    func testRemote_aesEAX_againstPyCryptodome_passes_aServerThatSkipsVerifyFails() throws {
        let folder = try scratch()
        let description = folder.appendingPathComponent("eax-tcp.toml")
        try """
        name = "eax-tcp"
        [transport]
        kind = "tcp"
        framing = "length-prefix"
        [secrets.k]
        made_by = "preshared"
        bytes = 32
        [[conversation]]
        name = "echo"
        error = { text = "ERR" }
        [[conversation.step]]
        from = "client"
        send = { sealed = "k", cipher = "aes-eax", iv = "prefix", tag = "before", carries = "message" }
        [[conversation.step]]
        from = "server"
        send = { sealed = "k", cipher = "aes-eax", iv = "prefix", tag = "before", carries = "same" }
        then = "close"
        """.write(to: description, atomically: true, encoding: .utf8)
        let server = folder.appendingPathComponent("eax_echo.py")
        try """
        import struct, sys, time
        from cli_test_server import recv_framed as recv, send_framed as send, serve
        from Cryptodome.Cipher import AES
        KEY = bytes.fromhex(sys.argv[1])
        skips_verify = "--no-verify" in sys.argv
        pauses = "--pause" in sys.argv  # a slow board: its framed answer in two writes, 0.6 s apart
        def handle(conn):
            box = recv(conn)
            nonce, tag, ciphertext = box[:16], box[16:32], box[32:]  # the order PyCryptodome's docs write
            try:
                if len(box) < 32: raise ValueError("short")
                cipher = AES.new(KEY, AES.MODE_EAX, nonce=nonce)
                message = cipher.decrypt(ciphertext) if skips_verify else cipher.decrypt_and_verify(ciphertext, tag)
            except ValueError:
                send(conn, b"ERR")
                return
            cipher = AES.new(KEY, AES.MODE_EAX)
            sealed, tag = cipher.encrypt_and_digest(message)
            if pauses:
                framed = struct.pack(">I", 32 + len(sealed)) + cipher.nonce + tag + sealed
                conn.sendall(framed[:6]); time.sleep(0.6); conn.sendall(framed[6:])
            else:
                send(conn, cipher.nonce + tag + sealed)
        serve(handle)
        """.write(to: server, atomically: true, encoding: .utf8)
        let key = String(repeating: "5a", count: 32)
        let prefix = "crosscheck.described.eax-tcp.remote.echo."
        try remote(server, [key], protocol: description.path, options: ["--secret", "k=\(key)"], in: folder, status: 0, prefix: prefix,
                   expect: ["conversation": "passed", "refuses.message-1.aes-eax-tag-bit-flipped": "passed", "fresh-per-conversation": "passed"])
        try remote(server, [key, "--no-verify"], protocol: description.path, options: ["--secret", "k=\(key)"], in: folder, status: 1, prefix: prefix,
                   expect: ["conversation": "passed", "refuses.message-1.aes-eax-tag-bit-flipped": "failed"])
        // The review of stop 47 (W2): a framed answer that pauses midway was cut at the legacy quiet
        // gap (0.3 s) and failed as "the server sent nothing for 5 s"; the framing alone ends it.
        try remote(server, [key, "--pause"], protocol: description.path, options: ["--secret", "k=\(key)"], in: folder, status: 0, prefix: prefix,
                   expect: ["conversation": "passed", "refuses.message-1.aes-eax-tag-bit-flipped": "passed"])
    }

    /// Found by the fourth review: where a client's agreement key travels with its ciphertext, the
    /// probes find each part — by the known lengths of a `concat` (an X25519 key, then a GCM box: a
    /// server that never checks the tag fails the tag probe; the correct one passes, where before a
    /// probe that could not find the key went out unchanged and failed it) — and a server that does
    /// not check that a P-256 point is on its curve fails, though the box beside the point fails
    /// either way: the probe's point is (X, 0), of order 2 elsewhere, and its box is sealed under the
    /// key such a server computes.
    func testRemote_aKeyBesideItsCiphertext_everyPartIsProbed_anUnvalidatedPointFails() throws {
        let folder = try scratch()
        let concat = folder.appendingPathComponent("x25519-concat.toml")
        try """
        name = "x25519-concat"
        [transport]
        kind = "tcp"
        framing = "length-prefix"
        [keys.client]
        type = "x25519"
        holder = "client"
        [keys.server]
        type = "x25519"
        holder = "server"
        [secrets.session]
        made_by = "agreement"
        keys = ["client", "server"]
        kdf = "none"
        derive = "sha256"
        [[conversation]]
        name = "oneshot"
        error = { text = "ERROR" }
        [[conversation.step]]
        from = "server"
        send = { public_key = "server", format = "raw" }
        [[conversation.step]]
        from = "client"
        send = { concat = [ { public_key = "client", format = "raw" }, { sealed = "session", cipher = "aes-gcm" } ] }
        [[conversation.step]]
        from = "server"
        send = { sealed = "session", cipher = "aes-gcm", carries = "same" }
        then = "close"
        """.write(to: concat, atomically: true, encoding: .utf8)
        let json = folder.appendingPathComponent("p256-json.toml")
        try """
        name = "p256-json"
        [transport]
        kind = "tcp"
        framing = "line"
        [keys.client]
        type = "ec-p256"
        holder = "client"
        [keys.server]
        type = "ec-p256"
        holder = "server"
        [secrets.session]
        made_by = "agreement"
        keys = ["client", "server"]
        info = "json"
        [[conversation]]
        name = "oneshot"
        error = { text = "ERROR" }
        [[conversation.step]]
        from = "server"
        send = { json = { pub = { public_key = "server", format = "x962", encoding = "base64" } } }
        [[conversation.step]]
        from = "client"
        send = { json = { pub = { public_key = "client", format = "x962", encoding = "base64" }, box = { sealed = "session", cipher = "chacha20-poly1305", carries = "message", encoding = "base64" } } }
        [[conversation.step]]
        from = "server"
        send = { json = { box = { sealed = "session", cipher = "chacha20-poly1305", carries = "same", encoding = "base64" } } }
        then = "close"
        """.write(to: json, atomically: true, encoding: .utf8)
        // Both written from the descriptions; P-256's numbers from SEC 2 §2.4.2 for the server that
        // does its own arithmetic (affine double-and-add, no check that the point is on the curve).
        let server = folder.appendingPathComponent("agreement_servers.py")
        try """
        import base64, hashlib, json, os, sys
        from cli_test_server import recv_framed, send_framed, serve
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec, x25519
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
        shape, flaw = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
        P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffff
        A = P - 3
        def add(p1, p2):
            if p1 is None: return p2
            if p2 is None: return p1
            (x1, y1), (x2, y2) = p1, p2
            if x1 == x2 and (y1 + y2) % P == 0: return None
            l = (3 * x1 * x1 + A) * pow(2 * y1, P - 2, P) if p1 == p2 else (y2 - y1) * pow(x2 - x1, P - 2, P)
            x3 = (l * l - x1 - x2) % P
            return (x3, (l * (x1 - x3) - y1) % P)
        def times(k, point):
            result = None
            while k:
                if k & 1: result = add(result, point)
                point, k = add(point, point), k >> 1
            return result
        def concat_conversation(conn):
            def send(data): send_framed(conn, data)
            mine = x25519.X25519PrivateKey.generate()
            send(mine.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))
            message = recv_framed(conn)
            try:
                key = hashlib.sha256(mine.exchange(x25519.X25519PublicKey.from_public_bytes(message[:32]))).digest()
                nonce, body = message[32:44], message[44:]
                if flaw == "skip-tag":  # GCM's keystream from counter 2, the tag never checked
                    op = Cipher(algorithms.AES(key), modes.CTR(nonce + bytes([0, 0, 0, 2]))).decryptor()
                    plaintext = op.update(body[:-16]) + op.finalize()
                else:
                    plaintext = AESGCM(key).decrypt(nonce, body, None)
            except Exception:
                send(b"ERROR"); return
            answer = os.urandom(12)
            send(answer + AESGCM(key).encrypt(answer, plaintext, None))
        def json_conversation(conn):
            f = conn.makefile("rb")
            def send(obj): conn.sendall(json.dumps(obj).encode() + b"\\n")
            mine = ec.generate_private_key(ec.SECP256R1())
            send({"pub": base64.b64encode(mine.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)).decode()})
            try:
                fields = json.loads(f.readline())
                point = base64.b64decode(fields["pub"])
                if flaw == "no-validate":
                    shared_point = times(mine.private_numbers().private_value, (int.from_bytes(point[1:33], "big"), int.from_bytes(point[33:], "big")))
                    shared = shared_point[0].to_bytes(32, "big")
                else:
                    shared = mine.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point))
                key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"json").derive(shared)
                box = base64.b64decode(fields["box"])
                plaintext = ChaCha20Poly1305(key).decrypt(box[:12], box[12:], None)
            except Exception:
                conn.sendall(b"ERROR\\n"); return
            nonce = os.urandom(12)
            send({"box": base64.b64encode(nonce + ChaCha20Poly1305(key).encrypt(nonce, plaintext, None)).decode()})
        serve(concat_conversation if shape == "concat" else json_conversation, half_close=True)
        """.write(to: server, atomically: true, encoding: .utf8)
        let cases: [(String, URL, String, String, [String: String])] = [
            ("concat", concat, "", "x25519-concat", ["refuses.message-1.aes-gcm-tag-bit-flipped": "passed", "survives.message-1.key-that-does-not-load": "passed"]),
            ("concat", concat, "skip-tag", "x25519-concat", ["refuses.message-1.aes-gcm-tag-bit-flipped": "failed"]),
            ("json", json, "", "p256-json", ["refuses.message-1.ec-point-not-on-curve": "passed"]),
            ("json", json, "no-validate", "p256-json", ["refuses.message-1.ec-point-not-on-curve": "failed"]),
        ]
        for (shape, description, flaw, name, expected) in cases {
            try remote(server, [shape] + (flaw.isEmpty ? [] : [flaw]), protocol: description.path, in: folder,
                       status: flaw.isEmpty ? 0 : 1, prefix: "crosscheck.described.\(name).remote.oneshot.", expect: expected)
        }
    }

    /// A fleet under one description: `--targets FILE -j 2` checks each server in a testsuite of its
    /// own (the correct one passes, the padding oracle fails; a failure's progress line names its
    /// server), and `--known-failures` reports a listed failure as known and a listed check that
    /// passes as fixed, as with the profiles — in a fleet, fixed only where it passes on every server.
    func testRemote_targetsAndKnownFailures_withADescription() throws {
        let root = CrosscheckBinary.root
        let folder = try scratch()
        let correct = try servers.start("/usr/bin/python3", ["Tests/Zoo/rsa_socket/base_server.py", "--padding", "pkcs1", "--host", "127.0.0.1", "--port", "0"], in: root)
        let oracle = try servers.start("/usr/bin/python3", ["Tests/Zoo/rsa_socket/oracle_error_text.py", "--host", "127.0.0.1", "--port", "0"], in: root)
        let targets = folder.appendingPathComponent("pis.txt")
        try "# the fleet\n127.0.0.1:\(correct)\n127.0.0.1:\(oracle)  # the one with the oracle\n".write(to: targets, atomically: true, encoding: .utf8)
        let junit = folder.appendingPathComponent("fleet.xml")
        let fleet = try crosscheck(["remote", "--protocol", "protocols/rsa-socket.toml", "--targets", targets.path, "-j", "2", "--junit", junit.path])
        XCTAssertEqual(fleet.status, 1, fleet.stdout + fleet.stderr)
        XCTAssertTrue(fleet.stderr.contains("FAIL  [remote.127.0.0.1:\(oracle)] crosscheck.described.rsa-socket.remote.phone-to-pi.oracle.rsa.message-2")
                      || fleet.stderr.contains("[remote.127.0.0.1:\(oracle)] crosscheck.described.rsa-socket.remote.phone-to-pi.oracle.rsa.message-2"), fleet.stderr)
        XCTAssertFalse(fleet.stderr.contains("[remote.127.0.0.1:\(correct)]"), fleet.stderr)
        XCTAssertEqual(try CrosscheckBinary.validate(junit), 0)
        let document = try XMLDocument(contentsOf: junit)
        func outcome(_ port: UInt16, _ name: String) throws -> String {
            let cases = try document.nodes(forXPath: "//testsuite[@name='remote.127.0.0.1:\(port)']/testcase[@name='\(name)']").compactMap { $0 as? XMLElement }
            guard let testcase = cases.first else { return "absent" }
            return testcase.elements(forName: "failure").isEmpty ? "not failed" : "failed"
        }
        for (port, verdict) in [(correct, "not failed"), (oracle, "failed")] {
            XCTAssertEqual(try outcome(port, "phone-to-pi.conversation"), "not failed", "\(port)")
            XCTAssertEqual(try outcome(port, "phone-to-pi.oracle.rsa.message-2"), verdict, "\(port)")
        }
        let known = folder.appendingPathComponent("known.json")
        try #"{"known_failures": [{"pattern": "crosscheck.described.rsa-socket.remote.phone-to-pi.oracle.rsa.*", "reason": "the Pi's oracle, fixed in the next image", "seed": "ticket 12"}]}"#
            .write(to: known, atomically: true, encoding: .utf8)
        for (port, expected, said) in [(oracle, Int32(0), "known: the Pi's oracle"), (correct, 1, "known failure fixed")] {
            let report = folder.appendingPathComponent("known-\(port).xml")
            let run = try crosscheck(["remote", "--protocol", "protocols/rsa-socket.toml", "--host", "127.0.0.1", "--port", String(port),
                                      "--known-failures", known.path, "--junit", report.path, "--quiet"])
            XCTAssertEqual(run.status, expected, run.stdout + run.stderr)
            XCTAssertTrue(try String(contentsOf: report, encoding: .utf8).contains(said), "\(port)")
        }
        // The fleet with the list: the oracle is known on the Pi that has it, and the Pi that passes
        // the check is not told to remove the entry that still holds for the other.
        let knownFleet = try crosscheck(["remote", "--protocol", "protocols/rsa-socket.toml", "--targets", targets.path, "-j", "2",
                                         "--known-failures", known.path, "--junit", folder.appendingPathComponent("known-fleet.xml").path, "--quiet"])
        XCTAssertEqual(knownFleet.status, 0, knownFleet.stdout + knownFleet.stderr)
        XCTAssertTrue(knownFleet.stdout.contains("KNOWN [remote.127.0.0.1:\(oracle)] crosscheck.described.rsa-socket.remote.phone-to-pi.oracle.rsa.message-2"), knownFleet.stdout)
        XCTAssertFalse(knownFleet.stdout.contains("known failure fixed"), knownFleet.stdout)
        for (arguments, said) in [(["--host", "127.0.0.1", "--shard", "1/2"], "--shard K/N splits the targets"), (["--host", "127.0.0.1", "--client", "seed-app"], "--client")] {
            let refused = try crosscheck(["remote", "--protocol", "protocols/rsa-socket.toml"] + arguments)
            XCTAssertEqual(refused.status, 64, "\(arguments)")
            XCTAssertTrue(refused.stderr.contains(said), refused.stderr)
        }
        let neither = try crosscheck(["remote", "--protocol", "protocols/rsa-socket.toml"])
        XCTAssertEqual(neither.status, 64)
        XCTAssertTrue(neither.stderr.contains("--targets FILE"), neither.stderr)
    }

    /// `remote --protocol FILE --app seed-000`: the app's own client of the description (its socket
    /// session, PKCS#1 as the seed ships it) runs its conversation with the live server: it
    /// completes with a PKCS#1 server and fails, with the app's own words, against an OAEP one. The
    /// app is judged by what it speaks (its own describedProtocol), whatever the run's description;
    /// and it is not run, nor blamed, when the run's probes took the server down.
    func testRemote_appAsDescribedClient_ofTheLiveServer() throws {
        let root = CrosscheckBinary.root
        let folder = try scratch()
        let testcase = "crosscheck.described.rsa-socket.remote.app.seed-000.described.pi-to-phone"
        for (padding, expected) in [("pkcs1", "passed"), ("oaep-sha256", "failed")] {
            let port = try servers.start("/usr/bin/python3", ["Tests/Zoo/rsa_socket/base_server.py", "--padding", padding, "--host", "127.0.0.1", "--port", "0"], in: root)
            let junit = folder.appendingPathComponent("\(padding).xml")
            let outcome = try crosscheck(["remote", "--protocol", "protocols/rsa-socket.toml", "--host", "127.0.0.1", "--port", String(port),
                                          "--app", "seed-000", "--junit", junit.path, "--quiet"])
            XCTAssertEqual(outcome.status, expected == "passed" ? 0 : 1, outcome.stdout + outcome.stderr)
            XCTAssertEqual(try outcomes(junit)[testcase], expected, padding)
            if expected == "failed" { XCTAssertTrue(outcome.stdout.contains("seed-000 failed to run conversation pi-to-phone"), outcome.stdout) }
        }
        let pkcs1 = try servers.start("/usr/bin/python3", ["Tests/Zoo/rsa_socket/base_server.py", "--padding", "pkcs1", "--host", "127.0.0.1", "--port", "0"], in: root)
        let other = folder.appendingPathComponent("other.xml")
        let otherRun = try crosscheck(["remote", "--protocol", "examples/protocols/gcm-json-tag-field.toml", "--host", "127.0.0.1", "--port", String(pkcs1),
                                       "--secret", "psk=" + String(repeating: "5a", count: 32), "--app", "seed-000", "--junit", other.path, "--quiet"])
        XCTAssertEqual(otherRun.status, 1, "the server does not speak the run's description")
        XCTAssertEqual(try outcomes(other)["crosscheck.described.gcm-json-tag-field.remote.app.seed-000.described.pi-to-phone"], "passed", "the app speaks rsa-socket, as the server does")
        let crashing = try servers.start("/usr/bin/python3", ["Tests/Zoo/rsa_socket/crash_on_bad_input.py", "--host", "127.0.0.1", "--port", "0"], in: root)
        let down = folder.appendingPathComponent("down.xml")
        _ = try crosscheck(["remote", "--protocol", "protocols/rsa-socket.toml", "--host", "127.0.0.1", "--port", String(crashing),
                            "--app", "seed-000", "--junit", down.path, "--quiet"])
        XCTAssertEqual(try outcomes(down)[testcase], "skipped")
        XCTAssertTrue(try String(contentsOf: down, encoding: .utf8).contains("not run: the server has taken no connections since"))
    }

    /// `remote --protocol FILE --load N -j K`: N whole conversations held to the description, K at
    /// once, and the rate; a server that is not there completes none (exit 1, saying why).
    func testRemote_load_countsCompletedConversations() throws {
        let root = CrosscheckBinary.root
        let port = try servers.start("/usr/bin/python3", ["Tests/Zoo/rsa_socket/base_server.py", "--padding", "pkcs1", "--host", "127.0.0.1", "--port", "0"], in: root)
        let served = try crosscheck(["remote", "--protocol", "protocols/rsa-socket.toml", "--host", "127.0.0.1", "--port", String(port), "--load", "6", "-j", "2"])
        XCTAssertEqual(served.status, 0, served.stdout + served.stderr)
        XCTAssertTrue(served.stdout.contains("6 of 6 conversations (phone-to-pi) completed"), served.stdout)
        let oaep = try servers.start("/usr/bin/python3", ["Tests/Zoo/rsa_socket/base_server.py", "--padding", "oaep-sha256", "--host", "127.0.0.1", "--port", "0"], in: root)
        let refused = try crosscheck(["remote", "--protocol", "protocols/rsa-socket.toml", "--host", "127.0.0.1", "--port", String(oaep), "--load", "2"])
        XCTAssertEqual(refused.status, 1, refused.stdout)
        XCTAssertTrue(refused.stdout.contains("0 of 2 conversations"), refused.stdout)
        let fleet = try crosscheck(["remote", "--protocol", "protocols/rsa-socket.toml", "--targets", "/dev/null", "--load", "2"])
        XCTAssertEqual(fleet.status, 64)
        XCTAssertTrue(fleet.stderr.contains("--load takes one --host"), fleet.stderr)
    }

    /// `remote --protocol FILE --timing N`: every RSA and CBC oracle audit also takes N interleaved
    /// latency samples per class and reports a signed-rank test in the audit suite — skipped, never
    /// a verdict: the run's exit is the one without --timing. Out of range: exit 64.
    func testRemote_timing_isReportedNeverAVerdict() throws {
        let root = CrosscheckBinary.root
        let psk = String(repeating: "3c", count: 16)
        let rsa = try servers.start("/usr/bin/python3", ["Tests/Zoo/rsa_socket/base_server.py", "--padding", "pkcs1", "--host", "127.0.0.1", "--port", "0"], in: root)
        let cbc = try servers.start("/usr/bin/python3", ["Tests/DescribedZoo/cbc_prefix_kthx.py", "--host", "127.0.0.1", "--port", "0", "--psk", psk], in: root)
        for (file, port, extra, testcase) in [("protocols/rsa-socket.toml", rsa, [String](), "crosscheck.described.rsa-socket.audit.phone-to-pi.timing.rsa.message-2"),
                                              ("examples/protocols/cbc-prefix-kthx.toml", cbc, ["--secret", "psk=\(psk)"], "timing.cbc.message-")] {
            let junit = try scratch().appendingPathComponent("timing.xml")
            let outcome = try crosscheck(["remote", "--protocol", file, "--host", "127.0.0.1", "--port", String(port), "--timing", "10", "--junit", junit.path, "--quiet"] + extra)
            XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
            let results = try outcomes(junit)
            let timed = results.filter { $0.key.contains(testcase) }
            XCTAssertEqual(timed.count, 1, "\(results.keys.sorted())")
            XCTAssertEqual(timed.first?.value, "skipped")
            let xml = try String(contentsOf: junit, encoding: .utf8)
            XCTAssertTrue(xml.contains("Wilcoxon signed-rank test, pairs by round") && xml.contains("10 samples per class"), xml)
        }
        // The zoo's planted timing oracle (150 ms of work after a valid padding, one answer for every
        // bad envelope): the answers are alike, the times are not — reported weak, and still exit 0.
        let timingOracle = try servers.start("/usr/bin/python3", ["Tests/Zoo/aes_https/cbc_timing.py", "--host", "127.0.0.1", "--port", "0"], in: root)
        let planted = try scratch().appendingPathComponent("planted.xml")
        let oracle = try crosscheck(["remote", "--protocol", "protocols/variants/aes-https-base64-raw.toml", "--host", "127.0.0.1", "--port", String(timingOracle),
                                     "--pin", "Vectors/tls/pinned.crt.pem", "--skip-ats", "--timing", "10", "--junit", planted.path, "--quiet"])
        XCTAssertEqual(oracle.status, 0, oracle.stdout + oracle.stderr)
        XCTAssertTrue(try String(contentsOf: planted, encoding: .utf8).contains("weak: timing differs between padding classes"), oracle.stdout)
        let out = try crosscheck(["remote", "--protocol", "protocols/rsa-socket.toml", "--host", "127.0.0.1", "--port", String(rsa), "--timing", "5"])
        XCTAssertEqual(out.status, 64)
        XCTAssertTrue(out.stderr.contains("--timing takes 10 to 10000"), out.stderr)
    }

    /// SIGINT stops a described run at its next conversation (not after every audit) and leaves a
    /// valid report marked partial, with exit 130: nothing the run did not do reads as a pass.
    func testRemote_interrupted_stopsAndWritesAPartialReport() throws {
        let pythonRef = try servers.startDescribedPythonRef("../protocols/rsa-socket.toml")
        let proxy = try FaultProxy(fault: .delay, upstreamPort: pythonRef)  // every chunk 50 ms late: the audits take many seconds
        defer { proxy.stop() }
        let junit = try scratch().appendingPathComponent("partial.xml")
        let status = try CrosscheckBinary.interruptAfter("protocol rsa-socket", ["remote", "--protocol", "protocols/rsa-socket.toml", "--host", "127.0.0.1",
                                                                                  "--port", String(proxy.port), "--junit", junit.path])
        XCTAssertEqual(status, 130)
        XCTAssertEqual(try CrosscheckBinary.validate(junit), 0)
        let xml = try String(contentsOf: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains("name=\"crosscheck.partial\" value=\"interrupted after "), xml)
        XCTAssertTrue(xml.contains("checks; the checks after them did not run"), xml)
        XCTAssertFalse(xml.contains("oracle.rsa"), "the run went on after SIGINT: \(xml)")

        // A fleet interrupted: the note counts targets, and says which were cut short.
        let second = try FaultProxy(fault: .delay, upstreamPort: pythonRef)
        defer { second.stop() }
        let targets = try scratch().appendingPathComponent("pis.txt")
        try "127.0.0.1:\(proxy.port)\n127.0.0.1:\(second.port)\n".write(to: targets, atomically: true, encoding: .utf8)
        let fleetReport = try scratch().appendingPathComponent("fleet.xml")
        let fleetStatus = try CrosscheckBinary.interruptAfter("2 targets", ["remote", "--protocol", "protocols/rsa-socket.toml", "--targets", targets.path,
                                                                            "-j", "2", "--junit", fleetReport.path])
        XCTAssertEqual(fleetStatus, 130)
        let fleetXML = try String(contentsOf: fleetReport, encoding: .utf8)
        // Both were under way or not yet begun when SIGINT came: neither reads as checked.
        XCTAssertTrue(fleetXML.contains("value=\"interrupted: 0 of 2 targets checked to the end,"), fleetXML)
    }

    /// A server that takes one client and exits (as many tutorial servers do) fails
    /// `serves-again`, and no probe is run, so none is blamed for taking it down; the same
    /// protocol served in a loop passes it.
    func testRemote_aServerThatServesOnce_failsServesAgain_andNoProbeIsBlamed() throws {
        let folder = try scratch()
        let description = folder.appendingPathComponent("ping.toml")
        try """
        name = "ping"
        [transport]
        kind = "tcp"
        framing = "line"
        [[conversation]]
        name = "ping"
        [[conversation.step]]
        from = "client"
        send = { text = "ping" }
        [[conversation.step]]
        from = "server"
        send = { text = "pong" }
        then = "close"
        """.write(to: description, atomically: true, encoding: .utf8)
        let script = folder.appendingPathComponent("ping_server.py")
        try """
        import socket, sys
        listener = socket.create_server(("127.0.0.1", 0))
        print("LISTENING", listener.getsockname()[1], flush=True)
        while True:
            conn, _ = listener.accept()
            data = b""
            while not data.endswith(b"\\n"):
                chunk = conn.recv(100)
                if not chunk:
                    break
                data += chunk
            conn.sendall(b"pong\\n" if data == b"ping\\n" else b"what\\n")
            conn.close()
            if sys.argv[1] == "once":
                break
        """.write(to: script, atomically: true, encoding: .utf8)
        for mode in ["once", "loop"] {
            let port = try servers.start("/usr/bin/python3", [script.path, mode], in: folder)
            let junit = folder.appendingPathComponent("\(mode).xml")
            let outcome = try crosscheck(["remote", "--protocol", description.path, "--host", "127.0.0.1", "--port", String(port), "--junit", junit.path, "--quiet"])
            let results = try outcomes(junit)
            XCTAssertEqual(results["crosscheck.described.ping.remote.ping.conversation"], "passed", "\(mode): \(results)")
            if mode == "once" {
                XCTAssertEqual(outcome.status, 1, outcome.stdout)
                XCTAssertEqual(results["crosscheck.described.ping.remote.ping.serves-again"], "failed", "\(results)")
                XCTAssertTrue(outcome.stdout.contains("after one conversation the server no longer takes connections"), outcome.stdout)
                XCTAssertEqual(Set(results.keys), ["crosscheck.described.ping.remote.ping.conversation", "crosscheck.described.ping.remote.ping.serves-again"])
            } else {
                XCTAssertEqual(results["crosscheck.described.ping.remote.ping.serves-again"], "passed", "\(results)")
                XCTAssertEqual(results["crosscheck.described.ping.remote.ping.survives.message-1.garbage"], "passed", "\(results)")
            }
        }
    }

    func testRemote_describedZooServer_correctPassesAndThePlantFails() throws {
        let root = CrosscheckBinary.root
        let psk = String(repeating: "5a", count: 32)
        for (plant, expected) in [(nil as String?, Int32(0)), ("reuses-nonce", 1), ("accepts-wrong-tag", 1), ("short-tag", 1), ("tag-optional", 1)] {
            let port = try servers.start("/usr/bin/python3", ["Tests/DescribedZoo/gcm_json_tag_field.py", "--host", "127.0.0.1", "--port", "0", "--psk", psk]
                                         + (plant.map { ["--plant", $0] } ?? []), in: root)
            let junit = try scratch().appendingPathComponent("remote.xml")
            let outcome = try crosscheck(["remote", "--protocol", "examples/protocols/gcm-json-tag-field.toml", "--host", "127.0.0.1", "--port", String(port),
                                          "--secret", "psk=\(psk)", "--junit", junit.path, "--quiet"])
            XCTAssertEqual(outcome.status, expected, "\(plant ?? "correct"): \(outcome.stdout)\(outcome.stderr)")
            let results = try outcomes(junit)
            let prefix = "crosscheck.described.gcm-json-tag-field.remote.decrypt."
            XCTAssertEqual(results[prefix + "conversation"], "passed")
            XCTAssertEqual(results[prefix + "refuses.message-1.aes-gcm-tag-bit-flipped"], plant == "accepts-wrong-tag" ? "failed" : "passed", "\(results)")
            XCTAssertEqual(results[prefix + "fresh-per-conversation"], plant == "reuses-nonce" ? "failed" : "passed", "\(results)")
            // Stop 47's review (N1): a tag cut short, empty, or left out.
            // (accepts-wrong-tag still wants 16 bytes of tag; short-tag, at least 4.)
            XCTAssertEqual(results[prefix + "refuses.message-1.aes-gcm-tag-truncated"], plant == "short-tag" ? "failed" : "passed", "\(results)")
            XCTAssertEqual(results[prefix + "refuses.message-1.aes-gcm-tag-empty"], "passed", "\(results)")
            XCTAssertEqual(results[prefix + "refuses.message-1.aes-gcm-tag-left-out"], plant == "tag-optional" ? "failed" : "passed", "\(results)")
        }
    }

    /// A preshared toy key given as the two decimal lines a teaching server writes (e, then n), against
    /// the per-character zoo server (written from the description: n = 589, e = 7, d = 463), correct and planted.
    func testRemote_perCharacterRSA_toyKeyFile_correctPasses_andThePlantsFail() throws {
        let folder = try scratch()
        let (privateHalf, publicHalf) = (folder.appendingPathComponent("toy.priv"), folder.appendingPathComponent("toy.pub"))
        try "463\n589\n".write(to: privateHalf, atomically: true, encoding: .ascii)
        try "7\n589\n".write(to: publicHalf, atomically: true, encoding: .ascii)
        let prefix = "crosscheck.described.per-character-rsa-echo.remote.echoed."
        for (plant, failing) in [(nil as String?, nil as String?), ("reduces-mod-n", "refuses.message-1.rsa-not-below-modulus"), ("answers-plaintext", "conversation")] {
            let port = try servers.start("/usr/bin/python3", ["Tests/DescribedZoo/per_character_rsa_echo.py", "--host", "127.0.0.1", "--port", "0",
                                                              "--toy-key", privateHalf.path] + (plant.map { ["--plant", $0] } ?? []), in: CrosscheckBinary.root)
            let (outcome, results) = try remote(port: port, protocol: "examples/protocols/per-character-rsa-echo.toml", options: ["--public-key", "server=\(publicHalf.path)"])
            XCTAssertEqual(outcome.status, plant == nil ? 0 : 1, "\(plant ?? "correct"): \(outcome.stdout)\(outcome.stderr)")
            // An echo needs no key: the conversation is at best unverified; an answer that is not the echo fails.
            XCTAssertEqual(results[prefix + "conversation"], plant == "answers-plaintext" ? "failed" : "skipped", "\(results)")
            if plant != "answers-plaintext" {
                XCTAssertEqual(results[prefix + "refuses.message-1.rsa-not-below-modulus"], plant == nil ? "passed" : "failed", "\(results)")
                XCTAssertEqual(results[prefix + "serves-again"], "passed", "\(results)")
            }
            if let failing { XCTAssertEqual(results[prefix + failing], "failed") }
        }
        // A key file that is not two decimal lines, or not a toy key's numbers: exit 66, saying what the file must hold.
        for (text, words) in [("7 589\n", "two lines of decimal digits"), ("1\n589\n", "3 ≤ e < n"), ("7\n100000\n", "a toy key's modulus is 128 to 32767")] {
            let bad = folder.appendingPathComponent("bad.pub")
            try text.write(to: bad, atomically: true, encoding: .utf8)
            let outcome = try crosscheck(["remote", "--protocol", "examples/protocols/per-character-rsa-echo.toml", "--host", "127.0.0.1", "--port", "9",
                                          "--public-key", "server=\(bad.path)"])
            XCTAssertEqual(outcome.status, 66, outcome.stdout + outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains(words), "\(text): \(outcome.stderr)")
        }
    }

    /// An EC signing key the client holds (`--private-key`), against the ECDSA zoo server, correct and planted.
    func testRemote_signedMessages_privateKeyGivesTheSigningKey_andThePlantsFail() throws {
        let root = CrosscheckBinary.root
        let directory = try scratch()
        // The key pair from OpenSSL's command line, as a team makes one: `ecparam -genkey` writes an
        // EC PARAMETERS block before the SEC 1 key, which --private-key reads past.
        let privatePEM = directory.appendingPathComponent("signer.pem"), publicPEM = directory.appendingPathComponent("signer.pub.pem")
        try openssl(["ecparam", "-name", "prime256v1", "-genkey", "-out", privatePEM.path])
        try openssl(["ec", "-in", privatePEM.path, "-pubout", "-out", publicPEM.path])
        let file = "examples/protocols/ecdsa-signed-message.toml"
        let missing = try crosscheck(["remote", "--protocol", file, "--host", "127.0.0.1", "--port", "9"])
        XCTAssertEqual(missing.status, 64)
        XCTAssertTrue(missing.stderr.contains("--private-key signer=FILE"), missing.stderr)
        let wrongSide = try crosscheck(["remote", "--protocol", file, "--host", "127.0.0.1", "--port", "9", "--public-key", "signer=\(publicPEM.path)"])
        XCTAssertEqual(wrongSide.status, 64)
        XCTAssertTrue(wrongSide.stderr.contains("key signer is held by the client"), wrongSide.stderr)
        for (plant, expected, failing) in [(nil as String?, Int32(0), nil as String?), ("accepts-any-signature", 1, "refuses.message-1.signature-bit-flipped"),
                                           ("der-signature", 1, "conversation"), ("refusal-401", 1, "refuses.message-1.signature-bit-flipped")] {
            let port = try servers.start("/usr/bin/python3", ["Tests/DescribedZoo/ecdsa_signed_message.py", "--host", "127.0.0.1", "--port", "0", "--ec-public", publicPEM.path]
                                         + (plant.map { ["--plant", $0] } ?? []), in: root)
            let junit = directory.appendingPathComponent("remote-\(plant ?? "correct").xml")
            let outcome = try crosscheck(["remote", "--protocol", file, "--host", "127.0.0.1", "--port", String(port),
                                          "--private-key", "signer=\(privatePEM.path)", "--junit", junit.path, "--quiet"])
            XCTAssertEqual(outcome.status, expected, "\(plant ?? "correct"): \(outcome.stdout)\(outcome.stderr)")
            let results = try outcomes(junit)
            let prefix = "crosscheck.described.ecdsa-signed-message.remote.message."
            // A conversation that does not complete leaves nothing else to judge: the probes are not run.
            for name in failing == "conversation" ? ["conversation"] : ["conversation", "refuses.message-1.signature-bit-flipped", "survives.message-1.garbage"] {
                XCTAssertEqual(results[prefix + name], name == failing ? "failed" : "passed", "\(plant ?? "correct") \(name): \(results)")
            }
            if plant == nil {  // the protocol signs nothing fresh: a replay is taken, a finding
                XCTAssertEqual(results["crosscheck.described.ecdsa-signed-message.audit.message.accepts-replay.message-1"], "skipped", "\(results)")
            }
        }
    }

    func testRemote_protocolRefusesTheProfileOptions_andAsksForPresharedValues() throws {
        let outcome = try crosscheck(["remote", "--protocol", "protocols/rsa-socket.toml", "--host", "127.0.0.1", "--profile", "rsa-socket"])
        XCTAssertEqual(outcome.status, 64)
        XCTAssertTrue(outcome.stderr.contains("--profile"), outcome.stderr)
        let missing = try crosscheck(["remote", "--protocol", "examples/protocols/gcm-json-tag-field.toml", "--host", "127.0.0.1", "--port", "9"])
        XCTAssertEqual(missing.status, 64)
        XCTAssertTrue(missing.stderr.contains("--secret psk=HEX"), missing.stderr)
        let run = try crosscheck(["run", "--protocol", "protocols/rsa-socket.toml", "--suite", "roundtrip"])
        XCTAssertEqual(run.status, 64)
        XCTAssertTrue(run.stderr.contains("--suite"), run.stderr)
    }

    /// A key the server makes at import and never sends (staugur/Python-SecureHTTP's test server):
    /// in this process it is read where the server keeps it; the independent zoo server, correct and planted.
    func testRunServer_inProcess_aKeyTheServerNeverSends_isTheOneItsModuleKeeps() throws {
        let file = "examples/protocols/form-rsa-key-cbc-iv-is-key.toml", server = "Tests/DescribedZoo/form_rsa_key_cbc_iv_is_key.py:app"
        let prefix = "crosscheck.described.form-rsa-key-cbc-iv-is-key.remote.post."
        for (plant, expected, failing) in [(nil as String?, Int32(0), nil as String?), ("padding-oracle", 1, "oracle.cbc.message-1"), ("ignores-padding", 1, "oracle.cbc.message-1"),
                                           ("slices-padding", 1, "oracle.cbc.message-1")] {
            let junit = try scratch().appendingPathComponent("server.xml")
            // Relative paths: the description is read after the server's folder became the working directory.
            let outcome = try crosscheck(["run", "--server", server, "--protocol", file, "--junit", junit.path],
                                         environment: ["DZOO_PLANT": plant ?? ""])
            XCTAssertEqual(outcome.status, expected, "\(plant ?? "correct"): \(outcome.stdout)\(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains("key server: the server's own, from its KEY"), outcome.stderr)
            let results = try outcomes(junit)
            XCTAssertEqual(results[prefix + "conversation"], "passed", "\(results)")
            XCTAssertEqual(results[prefix + "fresh-per-conversation"], "passed", "an answer under the key-as-IV is the description's: \(results)")
            XCTAssertEqual(results[prefix + "oracle.cbc.message-1"], failing == nil ? "passed" : "failed", "\(plant ?? "correct"): \(results)")
        }
        // A server that keeps no key, or two: the run says so and asks for --public-key.
        let folder = try scratch()
        for (name, source, words) in [("keyless.py", "def app(environ, start_response):\n    start_response('200 OK', [])\n    return [b'']\n", "keeps no private key of that type"),
                                      ("two_keys.py", "from cryptography.hazmat.primitives.asymmetric import rsa\nA = rsa.generate_private_key(public_exponent=65537, key_size=2048)\nB = rsa.generate_private_key(public_exponent=65537, key_size=2048)\ndef app(environ, start_response):\n    start_response('200 OK', [])\n    return [b'']\n", "keeps several such private keys (A, B)")] {
            let path = folder.appendingPathComponent(name)
            try source.write(to: path, atomically: true, encoding: .utf8)
            let outcome = try crosscheck(["run", "--server", path.path + ":app", "--protocol", file, "--quiet"])
            XCTAssertEqual(outcome.status, 64, outcome.stdout + outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains(words) && outcome.stderr.contains("--public-key server=FILE"), outcome.stderr)
        }
    }

    /// An RSA-wrapped key beside its AES-GCM box in one JSON line: every crypto part of the message gets
    /// its refusal probe, so a server that decrypts the box without checking its tag fails (it passed
    /// when only the first part, the RSA block, was probed).
    func testRemote_everyCryptoPartOfAMessageIsProbed_aServerThatSkipsTheTagBesideAnRSAKeyFails() throws {
        let folder = try scratch()
        let description = folder.appendingPathComponent("wrapped-gcm-json.toml")
        try """
        name = "wrapped-gcm-json"
        [transport]
        kind = "tcp"
        framing = "line"
        [keys.server]
        holder = "server"
        preshared = true
        [secrets.k]
        made_by = "client"
        bytes = 32
        [[conversation]]
        name = "send"
        error = { text = "ERR" }
        [[conversation.step]]
        from = "client"
        send = { json = { key = { rsa = "server", padding = "oaep-sha256", carries = "secret:k", encoding = "base64" }, data = { sealed = "k", cipher = "aes-gcm", carries = "message", encoding = "base64" } } }
        [[conversation.step]]
        from = "server"
        send = { digest = "sha256" }
        """.write(to: description, atomically: true, encoding: .utf8)
        // Written from the description with pyca; --skip-tag decrypts the box as CTR from counter 2 (GCM's keystream) and never checks the tag.
        let server = folder.appendingPathComponent("wrapped_gcm_json.py")
        try """
        import base64, hashlib, json, sys
        from cli_test_server import serve
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import padding, rsa
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        open(sys.argv[1], "wb").write(key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
        skip_tag = "--skip-tag" in sys.argv
        OAEP = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
        def handle(conn):
            for line in conn.makefile("rb"):
                try:
                    fields = json.loads(line)
                    k = key.decrypt(base64.b64decode(fields["key"]), OAEP)
                    box = base64.b64decode(fields["data"])
                    nonce, body = box[:12], box[12:]
                    if skip_tag:
                        op = Cipher(algorithms.AES(k), modes.CTR(nonce + bytes([0, 0, 0, 2]))).decryptor()
                        plaintext = op.update(body[:-16]) + op.finalize()
                    else:
                        plaintext = AESGCM(k).decrypt(nonce, body, None)
                except Exception:
                    conn.sendall(b"ERR\\n")
                    break
                conn.sendall(hashlib.sha256(plaintext).hexdigest().encode() + b"\\n")
        serve(handle)
        """.write(to: server, atomically: true, encoding: .utf8)
        for skipsTag in [false, true] {
            let publicKey = folder.appendingPathComponent("server-\(skipsTag).pub")
            try remote(server, [publicKey.path] + (skipsTag ? ["--skip-tag"] : []), protocol: description.path,
                       options: ["--public-key", "server=\(publicKey.path)"], in: folder, status: skipsTag ? 1 : 0,
                       prefix: "crosscheck.described.wrapped-gcm-json.remote.send.refuses.message-1.",
                       expect: ["rsa-not-below-modulus": "passed", "aes-gcm-tag-bit-flipped": skipsTag ? "failed" : "passed"])
        }
    }

    /// Implicit rejection (OpenSSL 3.2 and later, so pyca on Debian 13): each undecryptable ciphertext
    /// gets a synthetic plaintext of its own. Where the answer is the plaintext, that is no oracle (a
    /// finding, as the seeds' profile reports it); before, the answers' lengths made it one.
    func testRemote_implicitRejectionAnsweredAsAPlaintext_isAFindingNotAnOracle() throws {
        let root = CrosscheckBinary.root
        let directory = try scratch()
        let privatePEM = directory.appendingPathComponent("server.pem"), publicPEM = directory.appendingPathComponent("server.pub.pem")
        try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", privatePEM.path])
        try openssl(["pkey", "-in", privatePEM.path, "-pubout", "-out", publicPEM.path])
        let port = try servers.start("/usr/bin/python3", ["Tests/DescribedZoo/pkcs1_decrypt_service.py", "--host", "127.0.0.1", "--port", "0",
                                                          "--key", privatePEM.path, "--implicit-rejection"], in: root)
        let junit = directory.appendingPathComponent("remote.xml")
        let outcome = try crosscheck(["remote", "--protocol", "examples/protocols/pkcs1-decrypt-service.toml", "--host", "127.0.0.1", "--port", String(port),
                                      "--public-key", "server=\(publicPEM.path)", "--junit", junit.path, "--quiet"])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        let results = try outcomes(junit)
        XCTAssertEqual(results["crosscheck.described.pkcs1-decrypt-service.remote.decrypt.oracle.rsa.message-1"], "passed", "\(results)")
        XCTAssertEqual(results["crosscheck.described.pkcs1-decrypt-service.audit.decrypt.rsa-acknowledges-undecryptable.message-1"], "skipped", "\(results)")
    }

    func testRunServer_ownProcess_describedProtocol() throws {
        // A team's own-loop server speaking the seed protocol, checked in its described form.
        let outcome = try crosscheck(["run", "--server", "Tests/Zoo/rsa_socket/tutorial_recv1024.py", "--protocol", "protocols/rsa-socket.toml",
                                      "--junit", try scratch().appendingPathComponent("server.xml").path, "--quiet"])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
    }

    /// `--known-failures FILE` with `run --protocol` and `run --server … --protocol`, as with the
    /// seed suites: a listed check that fails is known, one that passes is "fixed" (exit 1), an entry
    /// that matches nothing is stale (exit 1).
    func testRun_knownFailuresWithADescription() throws {
        let folder = try scratch()
        func list(_ pattern: String) throws -> String {
            let file = folder.appendingPathComponent("\(UUID().uuidString).json")
            try #"{"known_failures": [{"pattern": "\#(pattern)", "reason": "the Pi's tutorial server", "seed": "ticket 9"}]}"#.write(to: file, atomically: true, encoding: .utf8)
            return file.path
        }
        let server = ["run", "--server", "Tests/Zoo/rsa_socket/tutorial_recv1024.py", "--protocol", "protocols/rsa-socket.toml", "--quiet"]
        let fixed = try crosscheck(server + ["--known-failures", try list("crosscheck.described.rsa-socket.remote.pi-to-phone.conversation")])
        XCTAssertEqual(fixed.status, 1, fixed.stdout)
        XCTAssertTrue(fixed.stdout.contains("known failure fixed"), fixed.stdout)
        let suite = ["run", "--protocol", "protocols/rsa-socket.toml", "--filter", "python_to_swift.pi-to-phone.conversation", "--quiet",
                     "--junit", folder.appendingPathComponent("suite.xml").path]
        let stale = try crosscheck(suite + ["--known-failures", try list("crosscheck.described.no-such-check")])
        XCTAssertEqual(stale.status, 1, stale.stdout)
        XCTAssertTrue(stale.stdout.contains("stale known-failures entry: 'crosscheck.described.no-such-check'"), stale.stdout)
        XCTAssertEqual(try crosscheck(suite).status, 0)
        // An entry for a check of the suite that --filter leaves out is not stale.
        let filteredOut = try crosscheck(suite + ["--known-failures", try list("crosscheck.described.rsa-socket.swift_to_python.pi-to-phone.conversation")])
        XCTAssertEqual(filteredOut.status, 0, filteredOut.stdout)
        let refused = try crosscheck(suite + ["--no-known-failures"])
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.stderr.contains("--no-known-failures"), refused.stderr)
    }
}
