import Foundation
import XCTest
#if canImport(FoundationXML)
import FoundationXML
#endif

/// `crosscheck run --server FILE.py:NAME`: a team's own server in-process, judged by the checks
/// `crosscheck remote` runs. The examples must pass; copies of them with one planted flaw each must
/// fail with the flaw named; the in-process verdicts must equal `remote`'s on the same file served
/// for real; and a broken module, a raising or a blocking handler must end cleanly with the right
/// exit code and what to fix.
final class TeamServerCLITests: XCTestCase {
    let servers = TestServers()
    override func tearDown() { servers.stopAll() }

    static let socketExample = "examples/pi-server-socket/server.py"
    static let flaskExample = "examples/pi-server-flask/app.py"
    static let asyncioExample = "examples/pi-server-asyncio/server.py"
    static let asyncioAdapter = "examples/pi-server-asyncio/adapter.py"

    /// One testcase of a report: its testsuite's kind (`server`, `remote` or `audit`), name, and outcome.
    struct Case: Equatable, CustomStringConvertible {
        let kind: String
        let classname: String
        let name: String
        let outcome: String  // passed, failure, error, skipped
        let message: String
        var description: String { "\(kind) \(name): \(outcome) \(message.prefix(160))" }
    }

    struct NoReport: Error, CustomStringConvertible { let description: String }

    struct Run {
        let status: Int32
        let output: String
        let cases: [Case]
        let xml: String
        func outcome(_ name: String) -> Case? { cases.first { $0.name == name } }
        var failing: [Case] { cases.filter { $0.outcome == "failure" || $0.outcome == "error" } }

        /// The run failed (exit 1) and `name` is among its failures: that testcase, for its message.
        func failure(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> Case {
            XCTAssertEqual(status, 1, output, file: file, line: line)
            let failing = try XCTUnwrap(outcome(name), "\(cases)", file: file, line: line)
            XCTAssertEqual(failing.outcome, "failure", "\(cases)", file: file, line: line)
            return failing
        }
    }

    func read(_ report: URL, status: Int32, output: String) throws -> Run {
        XCTAssertEqual(try CrosscheckBinary.validate(report), 0, "the report validates")
        let document = try XMLDocument(contentsOf: report, options: [])
        var cases: [Case] = []
        for suite in try document.nodes(forXPath: "//testsuite") {
            guard let suite = suite as? XMLElement, let suiteName = suite.attribute(forName: "name")?.stringValue else { continue }
            let kind = String(suiteName.prefix { $0 != "." })
            for testcase in try suite.nodes(forXPath: "testcase") {
                guard let testcase = testcase as? XMLElement, let name = testcase.attribute(forName: "name")?.stringValue else { continue }
                var outcome = "passed", message = ""
                for child in testcase.children ?? [] {
                    guard let element = child as? XMLElement, let tag = element.name, ["failure", "error", "skipped"].contains(tag) else { continue }
                    outcome = tag
                    message = (element.attribute(forName: "message")?.stringValue ?? "") + "\n" + (element.stringValue ?? "")
                }
                cases.append(Case(kind: kind, classname: testcase.attribute(forName: "classname")?.stringValue ?? "", name: name,
                                  outcome: outcome, message: message))
            }
        }
        return Run(status: status, output: output, cases: cases, xml: try String(contentsOf: report, encoding: .utf8))
    }

    func runServer(_ spec: String, _ extra: [String] = [], log: URL? = nil) throws -> Run {
        let directory = try makeTemporaryDirectory()
        let report = directory.appendingPathComponent("server.xml")
        let outcome = try CrosscheckBinary.run(["run", "--server", spec, "--seed", "1", "--timeout", "3", "--junit", report.path,
                                                "--server-log", (log ?? directory.appendingPathComponent("server.log")).path] + extra)
        guard FileManager.default.fileExists(atPath: report.path) else {
            throw NoReport(description: "no report (exit \(outcome.status)): \(outcome.stdout)\(outcome.stderr)")
        }
        return try read(report, status: outcome.status, output: outcome.stdout + outcome.stderr)
    }

    /// A copy of an example with `original` replaced by `planted` (the test fails if the example no
    /// longer has `original`: the flaw must be planted, not silently missing).
    func plant(_ example: String, _ original: String, _ planted: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let path = example.hasPrefix("/") ? URL(fileURLWithPath: example) : CrosscheckBinary.root.appendingPathComponent(example)
        let source = try String(contentsOf: path, encoding: .utf8)
        XCTAssertTrue(source.contains(original), "\(example) no longer contains the line the flaw replaces: \(original)", file: file, line: line)
        let copy = try makeTemporaryDirectory().appendingPathComponent(URL(fileURLWithPath: example).lastPathComponent)
        try source.replacingOccurrences(of: original, with: planted).write(to: copy, atomically: true, encoding: .utf8)
        return copy.path
    }

    /// A copy of the asyncio example with each (original, planted) replacement made in turn, and a
    /// copy of its adapter beside it: the spec that serves it (`…/adapter.py:make_server`).
    func plantAsyncio(_ replacements: [(String, String)], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        var copy = Self.asyncioExample
        for (original, planted) in replacements { copy = try plant(copy, original, planted, file: file, line: line) }
        let adapter = URL(fileURLWithPath: copy).deletingLastPathComponent().appendingPathComponent("adapter.py")
        try FileManager.default.copyItem(at: CrosscheckBinary.root.appendingPathComponent(Self.asyncioAdapter), to: adapter)
        return adapter.path + ":make_server"
    }

    // MARK: the examples pass

    func testSocketExample_passesEveryServerCheckInProcess_namedAfterTheServer() throws {
        let log = try makeTemporaryDirectory().appendingPathComponent("server.log")
        let run = try runServer(Self.socketExample + ":Handler", log: log)
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertEqual(run.failing, [])
        XCTAssertTrue(run.xml.contains("classname=\"crosscheck.rsa-socket.server.server:Handler\""), run.xml)
        XCTAssertEqual(run.outcome("binary-safety.ciphertexts-with-crlf")?.outcome, "passed")
        XCTAssertEqual(run.outcome("digest.phone-to-pi")?.outcome, "passed")
        XCTAssertGreaterThan(run.cases.count, 30)
        // Its prints went to the log, not to the progress lines.
        let logged = try String(contentsOf: log, encoding: .utf8)
        XCTAssertTrue(logged.contains("refused: does not decrypt"), logged)
        XCTAssertFalse(run.output.contains("refused:"), run.output)
    }

    func testFlaskExample_passesEveryServerCheckInProcess_withoutTLSSteps() throws {
        let run = try runServer(Self.flaskExample + ":app", ["--user", "user:password"])
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertEqual(run.failing, [])
        XCTAssertTrue(run.xml.contains("classname=\"crosscheck.aes-https.server.app:app\""), run.xml)
        XCTAssertEqual(run.outcome("secure-data.echo-both-directions")?.outcome, "passed")
        XCTAssertEqual(run.outcome("secure-data.unknown-token-gets-401")?.outcome, "passed")
        XCTAssertEqual(run.outcome("tls.serves-the-pinned-certificate")?.outcome, "skipped")
        // The seed apps are judged only when asked (issue 33: the default client is the reference client).
        XCTAssertNil(run.outcome("seed-app.login-and-echo"), "\(run.cases)")
        let seed = try runServer(Self.flaskExample + ":app", ["--user", "user:password", "--client", "seed-app"])
        XCTAssertEqual(seed.outcome("seed-app.login-and-echo")?.outcome, "passed", seed.output)
    }

    /// An asyncio server with its own accept loop, through its adapter file (`make_server()` returns
    /// the per-client coroutine): the rsa-socket profile is told from the coroutine's shape.
    func testAsyncioExample_throughItsAdapter_passesEveryServerCheckInProcess() throws {
        let run = try runServer(Self.asyncioAdapter + ":make_server")
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertEqual(run.failing, [])
        XCTAssertTrue(run.xml.contains("classname=\"crosscheck.rsa-socket.server.adapter:make_server\""), run.xml)
        XCTAssertEqual(run.outcome("binary-safety.ciphertexts-with-crlf")?.outcome, "passed")
        XCTAssertEqual(run.outcome("refuses.half-a-message")?.outcome, "passed")
        XCTAssertEqual(run.outcome("oracle.rsa-padding")?.outcome, "passed")
        XCTAssertGreaterThan(run.cases.count, 30)
    }

    /// The asyncio example with the tutorial's CRLF stripping planted in its reader, checked through
    /// a copy of its adapter next to it.
    func testAsyncioExample_strippingCRLF_failsBinarySafety() throws {
        let spec = try plantAsyncio([("        self.pending += chunk\n",
                                      "        self.pending += chunk.replace(b\"\\r\\n\", b\"\")  # PLANTED\n")])
        let run = try runServer(spec)
        let failing = try run.failure("binary-safety.ciphertexts-with-crlf")
        XCTAssertTrue(failing.message.contains("\\r\\n"), failing.message)
    }

    func testWrongPassword_isAFailureThatSaysToPassTheRightUser() throws {
        let run = try runServer(Self.flaskExample + ":app", ["--user", "user:not-it"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.cases.contains { $0.message.contains("pass the right --user NAME:PASSWORD") }, "\(run.cases)")
    }

    // MARK: planted flaws fail, with the flaw named

    func testFlask_staticIV_failsTheResponseIVCheck() throws {
        let copy = try plant(Self.flaskExample, "    iv = os.urandom(16)  # fresh for every answer", "    iv = bytes(16)  # PLANTED: a static IV")
        let run = try runServer(copy + ":app")
        let failing = try run.failure("reuse.response-ivs")
        XCTAssertTrue(failing.message.lowercased().contains("iv"), failing.message)
    }

    func testFlask_paddingOracle_failsTheCBCOracleAudit() throws {
        let copy = try plant(Self.flaskExample, "    params = json.loads(unpadder.update(padded) + unpadder.finalize())",
                             "    try:\n        unpadded = unpadder.update(padded) + unpadder.finalize()\n    except ValueError:\n        raise KeyError(\"padding\")  # PLANTED\n    params = json.loads(unpadded)")
        let copy2 = try plant(copy, "    except (ValueError, KeyError, TypeError, binascii.Error):\n        return bad_request()",
                              "    except KeyError:\n        return jsonify(error=\"bad padding\"), 400  # PLANTED: a padding oracle\n    except (ValueError, TypeError, binascii.Error):\n        return bad_request()")
        let run = try runServer(copy2 + ":app")
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.failing.contains { $0.name.contains("oracle") && $0.message.lowercased().contains("oracle") }, "\(run.cases)")
    }

    func testFlask_tokenNeverChecked_failsTheUnknownTokenCheck() throws {
        let copy = try plant(Self.flaskExample, "    key = SESSIONS.get(request.headers.get(\"Authorization\", \"\"))",
                             "    key = next(iter(SESSIONS.values()), None)  # PLANTED: the token is never checked")
        let run = try runServer(copy + ":app")
        let failing = try run.failure("secure-data.unknown-token-gets-401")
        XCTAssertTrue(failing.message.contains("unknown token") || failing.message.contains("401"), failing.message)
    }

    func testSocket_strippingCRLF_failsBinarySafety() throws {
        let copy = try plant(Self.socketExample, "        self.buffer += data\n",
                             "        self.buffer += data.replace(b\"\\r\\n\", b\"\")  # PLANTED: the tutorial's stripping\n")
        let run = try runServer(copy + ":Handler")
        let failing = try run.failure("binary-safety.ciphertexts-with-crlf")
        XCTAssertTrue(failing.message.contains("\\r\\n"), failing.message)
    }

    func testSocket_okToAnything_failsAndSaysSo() throws {
        let copy = try plant(Self.socketExample, "                raise Refused(\"does not decrypt\")",
                             "                plaintext = b\"\"  # PLANTED: OK to anything")
        let run = try runServer(copy + ":Handler")
        XCTAssertEqual(run.status, 1)
        XCTAssertFalse(run.failing.isEmpty)
        XCTAssertTrue(run.failing.contains { $0.message.contains("Server: OK") || $0.message.contains("acknowledged") || $0.message.contains("digest") },
                      "\(run.failing)")
    }

    // MARK: safety of the harness

    func testRaisingHandler_isAFailureShowingTheTraceback() throws {
        let copy = try plant(Self.socketExample, "        self.expect_literal(b\"Quit\")\n",
                             "        self.expect_literal(b\"Quit\")\n        raise RuntimeError(\"planted crash after Quit\")\n")
        let run = try runServer(copy + ":Handler")
        XCTAssertEqual(run.status, 1)
        let failing = try XCTUnwrap(run.failing.first)
        XCTAssertTrue(failing.message.contains("raised RuntimeError: planted crash after Quit"), failing.message)
        XCTAssertTrue(failing.message.contains("Traceback (most recent call last)"), failing.message)
        XCTAssertTrue(failing.message.contains("server.py"), failing.message)
    }

    func testHandlerThatNeverEnds_isCutOffAtTheTimeoutAndReportedAsAnError() throws {
        // Ignores the end of the stream and spins on recv() == b"" forever.
        let copy = try plant(Self.socketExample, "        if not data:\n            if within:",
                             "        while not data:  # PLANTED: never gives up\n            data = self.request.recv(4096)\n        if not data:\n            if within:")
        let start = Date()
        let run = try runServer(copy + ":Handler")
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.cases.contains { $0.outcome == "error" && $0.message.contains("cut off") }, "\(run.cases)")
        XCTAssertLessThan(Date().timeIntervalSince(start), 600, "a hang detector only: the run ends")
    }

    func testMissingFile_exits66() throws {
        let outcome = try CrosscheckBinary.run(["run", "--server", "no/such/server.py:Handler"])
        XCTAssertEqual(outcome.status, 66, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("no file no/such/server.py"), outcome.stderr)
    }

    func testWrongName_exits66AndListsWhatTheModuleHas() throws {
        let outcome = try CrosscheckBinary.run(["run", "--server", Self.socketExample + ":Handlr"])
        XCTAssertEqual(outcome.status, 66, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("has no 'Handlr'") && outcome.stderr.contains("Handler"), outcome.stderr)
    }

    func testImportRaising_exits66WithTheTraceback() throws {
        let copy = try plant(Self.socketExample, "MESSAGE = b\"Secret message from RPi server\"", "MESSAGE = b\"x\" + 1  # PLANTED")
        let outcome = try CrosscheckBinary.run(["run", "--server", copy + ":Handler"])
        XCTAssertEqual(outcome.status, 66, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("TypeError") && outcome.stderr.contains("Traceback"), outcome.stderr)
    }

    func testMissingModule_exits69AndNamesIt() throws {
        let copy = try plant(Self.socketExample, "import argparse\n", "import argparse\nimport crosscheck_no_such_module_cc20\n")
        let outcome = try CrosscheckBinary.run(["run", "--server", copy + ":Handler"])
        XCTAssertEqual(outcome.status, 69, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("crosscheck_no_such_module_cc20") && outcome.stderr.contains("Traceback"), outcome.stderr)
    }

    func testModuleAndName_withServerPath_loads() throws {
        let run = try runServer("server:Handler", ["--server-path", CrosscheckBinary.root.appendingPathComponent("examples/pi-server-socket").path])
        XCTAssertEqual(run.status, 0, run.output)
    }

    func testProfileThatContradictsTheShape_isAUsageError() throws {
        let outcome = try CrosscheckBinary.run(["run", "--server", Self.flaskExample + ":app", "--profile", "rsa-socket"])
        XCTAssertEqual(outcome.status, 64, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("WSGI application"), outcome.stderr)
    }

    // MARK: independent servers (Tests/Zoo, written from docs/PROTOCOL.md by others) in-process

    /// A zoo server in the shape a team would deploy it: a few lines that make its key and name the
    /// handler, as the zoo's `main()` does for the network. Expectations are the zoo's own (zoo.json).
    struct ZooCase {
        let name: String
        let shim: String
        let object: String
        let expect: String  // "pass", or "fail:<words a failing testcase names>"
    }

    static func zooCases(_ zoo: String) -> [ZooCase] {
        func conversation(_ name: String, _ module: String, _ cls: String, padding: String, expect: String) -> ZooCase {
            ZooCase(name: name, shim: """
                import argparse, sys, types
                sys.path.insert(0, \(zoo.debugDescription))
                import base_server, zoolib
                from \(module) import \(cls) as Conversation
                options = argparse.Namespace(padding="\(padding)", framing="legacy", digest=False, key=None, bits=2048, host="127.0.0.1", port=0)
                seat = types.SimpleNamespace(options=options, private_key=zoolib.rsa_private_key(None, 2048))


                def handle(conn, addr):
                    Conversation(conn, seat).run()

                """, object: "handle", expect: expect)
        }
        func tutorial(_ name: String, _ module: String, read: String, expect: String) -> ZooCase {
            ZooCase(name: name, shim: """
                import sys
                sys.path.insert(0, \(zoo.debugDescription))
                import tutorial_recv1024, \(module), zoolib
                KEY = zoolib.rsa_private_key(None, 1024)


                def handle(conn, addr):
                    tutorial_recv1024.client_thread(conn, KEY, \(read))

                """, object: "handle", expect: expect)
        }
        return [
            conversation("control-legacy-pkcs1", "base_server", "Conversation", padding: "pkcs1", expect: "pass"),
            conversation("ok-on-garbage", "ok_on_garbage", "AcceptsGarbage", padding: "oaep-sha256", expect: "fail:undecryptable"),
            conversation("oracle-error-text", "oracle_error_text", "ErrorTextOracle", padding: "pkcs1", expect: "fail:padding oracle"),
            conversation("no-server-stopped", "no_server_stopped", "NoStoppedLine", padding: "oaep-sha256", expect: "fail:Server stopped"),
            conversation("wrong-error-text", "wrong_error_text", "WrongErrorText", padding: "oaep-sha256", expect: "fail:Server: ERROR"),
            tutorial("tutorial-recv1024", "tutorial_recv1024", read: "tutorial_recv1024.recv_message", expect: "pass"),
            tutorial("corrupting-crlf", "corrupting_crlf", read: "corrupting_crlf.recv_and_strip_crlf", expect: "fail:corrupt"),
            ZooCase(name: "buffering-reader", shim: """
                import sys
                sys.path.insert(0, \(zoo.debugDescription))
                import buffering_reader, zoolib
                buffering_reader.Conversation.private_key = zoolib.rsa_private_key(None, 2048)
                Handler = buffering_reader.Conversation

                """, object: "Handler", expect: "pass"),
        ]
    }

    func testZooServers_getTheZoosVerdictInProcess() throws {
        let zoo = CrosscheckBinary.root.appendingPathComponent("Tests/Zoo/rsa_socket").path
        for zooCase in Self.zooCases(zoo) {
            let file = try makeTemporaryDirectory().appendingPathComponent("deploy_" + zooCase.name.replacingOccurrences(of: "-", with: "_") + ".py")
            try zooCase.shim.write(to: file, atomically: true, encoding: .utf8)
            let run = try runServer(file.path + ":" + zooCase.object, ["--client", "reference", "--profile", "rsa-socket"])
            if zooCase.expect == "pass" {
                XCTAssertEqual(run.status, 0, "\(zooCase.name): \(run.failing)")
            } else {
                let words = String(zooCase.expect.dropFirst("fail:".count))
                XCTAssertEqual(run.status, 1, "\(zooCase.name) must fail")
                XCTAssertTrue(run.failing.contains { $0.name.contains(words) || $0.message.contains(words) },
                              "\(zooCase.name): no failing testcase names '\(words)': \(run.failing)")
            }
        }
    }

    // MARK: the differential fuzzer against the team's server

    static let socketFuzzOptions = ["--remote-padding", "oaep-sha256", "--remote-padding-pi-to-phone", "pkcs1", "--remote-digest",
                                    "--seed", "3", "--quiet"]

    func testFuzzServer_socketExampleAgreesWithPythonRef_onConversationAndEncryptedFrames() throws {
        let directory = try makeTemporaryDirectory()
        let report = directory.appendingPathComponent("fuzz.xml")
        let outcome = try CrosscheckBinary.run(["fuzz", "--server", Self.socketExample + ":Handler", "--frames", "200",
                                                "--family", "rsa-socket.conversation,rsa-socket.encrypted", "--junit", report.path,
                                                "--save-failures", directory.appendingPathComponent("failures").path] + Self.socketFuzzOptions)
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        let xml = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(xml.contains("classname=\"crosscheck.rsa-socket.python_vs_server.server:Handler\""), xml)
        XCTAssertTrue(outcome.stdout.contains("rsa-socket.encrypted "), outcome.stdout)
    }

    /// Without --remote-padding, --remote-padding-pi-to-phone and --remote-digest, `fuzz --server`
    /// finds them as `run --server` does (the asyncio example: OAEP-SHA256 in, PKCS#1 out, the
    /// digest) and says so; with pkcs1 assumed, as before, its first conversation failed.
    func testFuzzServer_findsThePaddingsAndDigestByTrying_whenNotGiven() throws {
        let directory = try makeTemporaryDirectory()
        let outcome = try CrosscheckBinary.run(["fuzz", "--server", Self.asyncioAdapter + ":make_server", "--frames", "120", "--seed", "3",
                                                "--family", "rsa-socket.conversation,rsa-socket.encrypted",
                                                "--junit", directory.appendingPathComponent("fuzz.xml").path,
                                                "--save-failures", directory.appendingPathComponent("failures").path])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("found by trying, as run --server does: phone-to-pi oaep-sha256, pi-to-phone pkcs1, the digest extension"),
                      outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("0 disagreements"), outcome.stdout)
    }

    /// Client keys as docs/PROTOCOL.md reads them: DER as DER and valid RSA keys only (issue 37:
    /// key-exponent-1 and key-der-length-nonminimal, which the example accepted on pyca 38 and the
    /// spec oracle caught), strict base64 (`YWJj=` refused), a line end after the BEGIN line.
    func testFuzzServer_socketExampleAgreesWithPythonRef_onClientKeyFrames() throws {
        let directory = try makeTemporaryDirectory()
        let outcome = try CrosscheckBinary.run(["fuzz", "--server", Self.socketExample + ":Handler", "--frames", "300",
                                                "--family", "rsa-socket.client-key", "--junit", directory.appendingPathComponent("fuzz.xml").path,
                                                "--save-failures", directory.appendingPathComponent("failures").path] + Self.socketFuzzOptions)
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("0 disagreements"), outcome.stdout)
    }

    func testFuzzServer_okToAnything_disagreesAndItsReproducerReplays() throws {
        let copy = try plant(Self.socketExample, "                raise Refused(\"does not decrypt\")",
                             "                plaintext = b\"\"  # PLANTED: OK to anything")
        let directory = try makeTemporaryDirectory()
        let failures = directory.appendingPathComponent("failures")
        let outcome = try CrosscheckBinary.run(["fuzz", "--server", copy + ":Handler", "--frames", "120", "--family", "rsa-socket.encrypted",
                                                "--junit", directory.appendingPathComponent("fuzz.xml").path, "--save-failures", failures.path]
                                               + Self.socketFuzzOptions)
        XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("disagreement"), outcome.stdout)
        let saved = try FileManager.default.contentsOfDirectory(atPath: failures.path).filter { $0.hasSuffix(".json") }.sorted()
        let first = try XCTUnwrap(saved.first, "a reproducer was saved")
        let reproducer = try String(contentsOf: failures.appendingPathComponent(first), encoding: .utf8)
        XCTAssertTrue(reproducer.contains("server=\(copy):Handler"), reproducer)
        let replay = try CrosscheckBinary.run(["replay", failures.appendingPathComponent(first).path])
        XCTAssertEqual(replay.status, 1, replay.stdout + replay.stderr)
        XCTAssertTrue(replay.stdout.contains("result: still a"), replay.stdout)
    }

    // MARK: the same code, live

    /// The verdict of every check both runs have (the TLS steps and ATS run live only).
    func verdicts(_ run: Run) -> [String: String] {
        Dictionary(run.cases.filter { !$0.name.hasPrefix("tls.") && $0.kind != "ats" }.map { ("\($0.kind == "audit" ? "audit" : "check").\($0.name)", $0.outcome) },
                   uniquingKeysWith: { first, _ in first })
    }

    func remote(_ port: UInt16, _ extra: [String]) throws -> Run {
        let report = try makeTemporaryDirectory().appendingPathComponent("remote.xml")
        let outcome = try CrosscheckBinary.run(["remote", "--host", "127.0.0.1", "--port", String(port), "--seed", "1", "--timeout", "3",
                                                "--junit", report.path, "--quiet"] + extra)
        return try read(report, status: outcome.status, output: outcome.stdout + outcome.stderr)
    }

    func testSocketExample_inProcessVerdictsEqualRemoteOnTheSameFileServedOnLoopback() throws {
        let port = try servers.start("/usr/bin/python3", [Self.socketExample, "--host", "127.0.0.1", "--port", "0"], in: CrosscheckBinary.root)
        let live = try remote(port, ["--profile", "rsa-socket"])
        let inProcess = try runServer(Self.socketExample + ":Handler")
        XCTAssertEqual(live.status, 0, live.output)
        XCTAssertEqual(verdicts(inProcess), verdicts(live))
    }

    func testAsyncioExample_inProcessVerdictsEqualRemoteOnTheSameFileServedOnLoopback() throws {
        let port = try servers.start("/usr/bin/python3", [Self.asyncioExample, "--host", "127.0.0.1", "--port", "0"], in: CrosscheckBinary.root)
        let live = try remote(port, ["--profile", "rsa-socket"])
        let inProcess = try runServer(Self.asyncioAdapter + ":make_server")
        XCTAssertEqual(live.status, 0, live.output)
        XCTAssertEqual(verdicts(inProcess), verdicts(live))
    }

    func testFlaskExample_inProcessVerdictsEqualRemoteOnTheSameFileServedOnLoopback() throws {
        let tls = CrosscheckBinary.root.appendingPathComponent("Vectors/tls")
        let port = try servers.start("/usr/bin/python3", [Self.flaskExample, "--host", "127.0.0.1", "--port", "0",
                                                          "--cert", tls.appendingPathComponent("pinned.crt.pem").path,
                                                          "--key", tls.appendingPathComponent("pinned.key.pem").path], in: CrosscheckBinary.root)
        // ATS judges the live server's TLS (the 30-year test certificate fails its 825-day rule): not in-process business.
        let live = try remote(port, ["--profile", "aes-https", "--pin", tls.appendingPathComponent("pinned.crt.pem").path, "--skip-ats"])
        let inProcess = try runServer(Self.flaskExample + ":app")
        XCTAssertEqual(live.status, 0, live.output)
        XCTAssertEqual(live.outcome("tls.serves-the-pinned-certificate")?.outcome, "passed")
        XCTAssertEqual(verdicts(inProcess), verdicts(live))
    }

    // MARK: the sessions suite with the team's server in the server seat

    func runSessions(_ spec: String, _ extra: [String] = []) throws -> Run {
        try runServer(spec, ["--suite", "sessions"] + extra)
    }

    func testSessions_socketExample_everyConversationPasses_namedAfterTheServer() throws {
        let run = try runSessions(Self.socketExample + ":Handler")
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertEqual(run.failing, [])
        XCTAssertTrue(run.xml.contains("classname=\"crosscheck.rsa-socket.swift_client.team_server.server:Handler\""), run.xml)
        XCTAssertTrue(run.xml.contains("classname=\"crosscheck.rsa-socket.seed-app_client.team_server.server:Handler\""), run.xml)
        // The paddings were found as remote finds them: OAEP-SHA256 with the digest one way, PKCS#1 v1.5 the other.
        XCTAssertEqual(run.outcome("inprocess.phone-to-pi.legacy.oaep-sha256.rsa2048.digest")?.outcome, "passed", "\(run.cases)")
        XCTAssertEqual(run.outcome("inprocess.phone-to-pi.legacy.oaep-sha256.rsa2048.digest.ciphertext-with-crlf")?.outcome, "passed")
        XCTAssertEqual(run.outcome("inprocess.pi-to-phone.legacy.pkcs1.rsa1024")?.outcome, "passed")
        XCTAssertEqual(run.outcome("inprocess.pi-to-phone.legacy.pkcs1.rsa2048.1-byte-chunks")?.outcome, "passed")
        XCTAssertEqual(run.cases.count, 13, "\(run.cases)")
        // None of the remote checks ran: only the session conversations.
        XCTAssertNil(run.outcome("binary-safety.ciphertexts-with-crlf"))
    }

    func testSessions_asyncioExample_throughItsAdapter_everyConversationPasses() throws {
        let run = try runSessions(Self.asyncioAdapter + ":make_server")
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertEqual(run.failing, [])
        XCTAssertTrue(run.xml.contains("classname=\"crosscheck.rsa-socket.swift_client.team_server.adapter:make_server\""), run.xml)
        XCTAssertEqual(run.cases.count, 13, "\(run.cases)")
    }

    /// A correct asyncio server whose answers go out through a writer task of its own (a queue and a
    /// short delay, as a server that paces or batches its output): when its handler waits for the
    /// client again, that task has yet to write the answer. Every conversation passes, as over TCP
    /// (the read watch's rule for this, nothing ready to run on the loop, has its own pytest).
    func testSessions_asyncioExampleWritingThroughATaskOfItsOwn_everyConversationPasses() throws {
        let spec = try plantAsyncio([("""
                async def client(self, stream_in, stream_out):
                    \"\"\"One client's whole conversation (the callback asyncio.start_server takes).\"\"\"
                    try:
            """, """
                async def client(self, stream_in, real_out):
                    queue = asyncio.Queue()
                    async def writer():
                        while (data := await queue.get()) is not None:
                            await asyncio.sleep(0.05)
                            real_out.write(data)
                            await real_out.drain()
                    class Out:
                        def write(self, data): queue.put_nowait(data)
                        async def drain(self): pass
                        def close(self): queue.put_nowait(None)
                    task = asyncio.get_running_loop().create_task(writer())
                    stream_out = Out()
                    try:
            """), ("        stream_out.close()\n", "        stream_out.close()\n        await task\n        real_out.close()\n")])
        let run = try runSessions(spec)
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertEqual(run.failing, [])
        XCTAssertEqual(run.cases.count, 13, "\(run.cases)")
    }

    func testSessions_flaskExample_bothClientsLogInAndEcho() throws {
        let run = try runSessions(Self.flaskExample + ":app", ["--user", "user:password"])
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertEqual(run.failing, [])
        XCTAssertTrue(run.xml.contains("classname=\"crosscheck.aes-https.swift_client.team_server.app:app\""), run.xml)
        XCTAssertTrue(run.xml.contains("classname=\"crosscheck.aes-https.seed-app_client.team_server.app:app\""), run.xml)
        // Its key is 15 URL-safe characters zero-padded to 16 (app.py), the mode remote infers too.
        XCTAssertEqual(run.cases.filter { $0.name == "inprocess.login-and-echo.utf8-zeropad16" && $0.outcome == "passed" }.count, 2, "\(run.cases)")
        XCTAssertEqual(run.outcome("inprocess.login-and-two-echoes.fresh-response-ivs")?.outcome, "passed")
    }

    func testSessions_wrongPassword_failsTheLoginAndSaysToPassTheRightUser() throws {
        let run = try runSessions(Self.flaskExample + ":app", ["--user", "user:not-it"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.failing.contains { $0.message.contains("pass the right --user NAME:PASSWORD") }, "\(run.cases)")
    }

    func testSessions_socketStrippingCRLF_failsTheCRLFConversation() throws {
        let copy = try plant(Self.socketExample, "        self.buffer += data\n",
                             "        self.buffer += data.replace(b\"\\r\\n\", b\"\")  # PLANTED: the tutorial's stripping\n")
        let run = try runSessions(copy + ":Handler")
        let failing = try run.failure("inprocess.phone-to-pi.legacy.oaep-sha256.rsa2048.digest.ciphertext-with-crlf")
        XCTAssertTrue(failing.message.contains("\\r\\n"), failing.message)
        XCTAssertEqual(run.outcome("inprocess.phone-to-pi.legacy.oaep-sha256.rsa2048.digest")?.outcome, "passed", "\(run.cases)")
    }

    func testSessions_socketOKToAnything_failsTheMismatchedPaddingConversation() throws {
        let copy = try plant(Self.socketExample, "                raise Refused(\"does not decrypt\")",
                             "                plaintext = b\"\"  # PLANTED: OK to anything")
        let run = try runSessions(copy + ":Handler")
        let failing = try run.failure("inprocess.phone-to-pi.legacy.oaep-sha1.rsa2048.digest.server-uses-oaep-sha256.gets-error")
        XCTAssertTrue(failing.message.contains("OK to anything"), failing.message)
    }

    /// The tutorials' bug: one `recv` taken for the whole ciphertext. Whole deliveries pass (one write
    /// is one read over a socket pair); split ones, each piece read before the next, fail.
    func testSessions_socketTakingOneReadForTheMessage_failsOnlyTheSplitDeliveries() throws {
        let copy = try plant(Self.socketExample, "        while len(self.buffer) < count:\n",
                             "        if len(self.buffer) < count:  # PLANTED: one recv is the message\n")
        let run = try runSessions(copy + ":Handler")
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(Set(run.failing.map(\.name)), ["inprocess.phone-to-pi.legacy.oaep-sha256.rsa2048.digest.1-byte-chunks",
                                                      "inprocess.phone-to-pi.legacy.oaep-sha256.rsa2048.digest.5-byte-chunks"], "\(run.cases)")
        XCTAssertTrue(run.failing.allSatisfy { $0.message.contains("each read by the server before the next") }, "\(run.failing)")
        XCTAssertEqual(run.outcome("inprocess.phone-to-pi.legacy.oaep-sha256.rsa2048.digest")?.outcome, "passed")
    }

    func testSessions_flaskStaticIV_failsTheTwoEchoesConversation() throws {
        let copy = try plant(Self.flaskExample, "    iv = os.urandom(16)  # fresh for every answer", "    iv = bytes(16)  # PLANTED: a static IV")
        let run = try runSessions(copy + ":app")
        let failing = try run.failure("inprocess.login-and-two-echoes.fresh-response-ivs")
        XCTAssertTrue(failing.message.contains("static IV"), failing.message)
    }

    func testSessions_withAnotherSuiteOrAnAppWithoutSessions_isAUsageError() throws {
        for extra in [["--suite", "sessions,roundtrip"], ["--app", "seed-000"], ["--suite", "roundtrip", "--app", "seed-000"]] {
            let outcome = try CrosscheckBinary.run(["run", "--server", Self.socketExample + ":Handler"] + extra)
            XCTAssertEqual(outcome.status, 64, outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains("--suite sessions"), outcome.stderr)
        }
    }

    // MARK: the app under test as a client of the team's server (--suite sessions --app)

    /// `run --server SPEC --suite sessions --app APP`: the run, and the app's testcases (classname
    /// `crosscheck.<profile>.app_client.team_server.<server>`) by name with their outcomes.
    func runAppClient(_ spec: String, app: String, profile: String, _ extra: [String] = []) throws -> (run: Run, app: [String: Case]) {
        let run = try runSessions(spec, ["--app", app] + extra)
        let file = URL(fileURLWithPath: String(spec[..<spec.lastIndex(of: ":")!])).deletingPathExtension().lastPathComponent
        let classname = "crosscheck.\(profile).app_client.team_server.\(file)\(spec[spec.lastIndex(of: ":")!...])"
        let cases = run.cases.filter { $0.classname == classname }
        XCTAssertEqual(Set(cases.map(\.kind)), ["sessions"], "\(run.cases)")
        return (run, Dictionary(cases.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first }))
    }

    static let seed000Cases: Set = ["seed-000.inprocess.pi-to-phone.legacy.pkcs1", "seed-000.inprocess.pi-to-phone.legacy.pkcs1.1-byte-chunks",
                                    "seed-000.inprocess.pi-to-phone.legacy.pkcs1.5-byte-chunks", "seed-000.tcp.pi-to-phone.legacy.pkcs1.app-networking"]

    /// Through its RSASocketClient over socket pairs, and with its own networking through a loopback
    /// relay; the message it must show is the one the server was found to send (a copy sends another).
    func testSessionsApp_seed000_decryptsTheSocketExamplesMessage_wholeSplitAndOverItsOwnSocket() throws {
        let otherMessage = try plant(Self.socketExample, "MESSAGE = b\"Secret message from RPi server\"", "MESSAGE = b\"Porch light is on\"")
        for spec in [Self.socketExample + ":Handler", Self.asyncioAdapter + ":make_server", otherMessage + ":Handler"] {
            let (run, app) = try runAppClient(spec, app: "seed-000", profile: "rsa-socket")
            XCTAssertEqual(run.status, 0, run.output)
            XCTAssertEqual(run.failing, [], spec)
            XCTAssertEqual(Set(app.keys), Self.seed000Cases, "\(spec): \(run.cases)")
            XCTAssertEqual(Set(app.values.map(\.outcome)), ["passed"], "\(spec): \(app)")
            // The reference clients' conversations are still there, beside the app's.
            XCTAssertEqual(run.cases.count, 13 + 4, "\(spec): \(run.cases)")
        }
    }

    func testSessionsApp_seed001_logsInAndEchoesWithTheFlaskExample() throws {
        let (run, app) = try runAppClient(Self.flaskExample + ":app", app: "seed-001", profile: "aes-https", ["--profile", "aes-https", "--user", "user:password"])
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertEqual(run.failing, [])
        XCTAssertEqual(app.mapValues(\.outcome), ["seed-001.inprocess.login-and-echo.utf8-zeropad16": "passed"], "\(run.cases)")
    }

    func testSessionsApp_anAppOfTheOtherProfile_isOneSkipSayingWhy() throws {
        let (run, app) = try runAppClient(Self.socketExample + ":Handler", app: "seed-001", profile: "rsa-socket")
        XCTAssertEqual(run.status, 0, run.output)
        let skip = try XCTUnwrap(app["seed-001.not-a-client"], "\(run.cases)")
        XCTAssertEqual(app.count, 1)
        XCTAssertEqual(skip.outcome, "skipped")
        XCTAssertTrue(skip.message.contains("it has no RSASocketClient or RSASocketSession"), skip.message)
    }

    /// A team's app package (`--app DIR`, built and hosted in its own process as `run` hosts it):
    /// the worked example seals files only, so it is no client of rsa-socket, and says so.
    func testSessionsApp_aTeamsAppPackage_isHostedAndConsidered() throws {
        let (run, app) = try runAppClient(Self.socketExample + ":Handler", app: "examples/seed004-app", profile: "rsa-socket")
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertTrue(run.output.contains("the app under test is example-seed004 (FileSealing), hosted by"), run.output)
        XCTAssertTrue(run.xml.contains(#"<property name="crosscheck.apps" value="example-seed004 (FileSealing)">"#), run.xml)
        XCTAssertEqual(app.mapValues(\.outcome), ["example-seed004.not-a-client": "skipped"], "\(run.cases)")
        XCTAssertTrue(app.values.allSatisfy { $0.message.contains("it has no RSASocketClient or RSASocketSession") }, "\(app)")
    }

    /// The example moved to OAEP for pi-to-phone: a correct server (the reference client, told its
    /// padding by discovery, still passes), but not one seed 000 (PKCS#1 v1.5 only) can read.
    func testSessionsApp_socketServerWithAnotherPiToPhonePadding_failsNamingBothPaddings() throws {
        let copy = try plant(Self.socketExample, "FOR_THE_APP = padding.PKCS1v15()", "FOR_THE_APP = OAEP  # PLANTED: not what the app decrypts")
        let (run, app) = try runAppClient(copy + ":Handler", app: "seed-000", profile: "rsa-socket")
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.outcome("inprocess.pi-to-phone.legacy.oaep-sha256.rsa2048")?.outcome, "passed", "\(run.cases)")
        assertEverySeed000Case(of: run, app, failsSaying: ["seed-000 decrypts pi-to-phone with pkcs1, but server:Handler encrypts it with oaep-sha256"])
    }

    /// What a server's own code does wrong (here it raises after Quit) is the app's testcases'
    /// verdict too, with the traceback, as for the reference clients.
    func testSessionsApp_raisingHandler_failsTheAppsConversationsWithTheTraceback() throws {
        let copy = try plant(Self.socketExample, "        self.expect_literal(b\"Quit\")\n",
                             "        self.expect_literal(b\"Quit\")\n        raise RuntimeError(\"planted crash after Quit\")\n")
        let (run, app) = try runAppClient(copy + ":Handler", app: "seed-000", profile: "rsa-socket")
        XCTAssertEqual(run.status, 1)
        assertEverySeed000Case(of: run, app, failsSaying: ["raised RuntimeError: planted crash after Quit", "Traceback"])
    }

    func assertEverySeed000Case(of run: Run, _ app: [String: Case], failsSaying words: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(Set(app.keys), Self.seed000Cases, "\(run.cases)", file: file, line: line)
        for testcase in app.values {
            XCTAssertEqual(testcase.outcome, "failure", "\(testcase)", file: file, line: line)
            XCTAssertTrue(words.allSatisfy(testcase.message.contains), testcase.message, file: file, line: line)
        }
    }

    /// A server that hands out base64-raw keys (docs/PROTOCOL.md's better mode; the Swift reference
    /// client passes): seed 001 copies the 44-character string into its 16-byte buffer, so its
    /// envelope is one the server cannot open.
    func testSessionsApp_seed001AgainstABase64RawKeyServer_failsNamingBothKeyModes() throws {
        let copy = try plant(Self.flaskExample, "    key_string = secrets.token_urlsafe(11)  # 15 characters: what the app's 16-byte buffer holds\n    SESSIONS[token] = key_string.encode().ljust(16, b\"\\0\")",
                             "    key = os.urandom(32)  # PLANTED: a base64-raw AES-256 key\n    key_string = base64.b64encode(key).decode()\n    SESSIONS[token] = key")
        let (run, app) = try runAppClient(copy + ":app", app: "seed-001", profile: "aes-https")
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.cases.first { $0.classname.contains(".swift_client.") && $0.name == "inprocess.login-and-echo.base64-raw" }?.outcome,
                       "passed", "\(run.cases)")
        let testcase = try XCTUnwrap(app["seed-001.inprocess.login-and-echo.base64-raw"], "\(run.cases)")
        XCTAssertEqual(testcase.outcome, "failure")
        XCTAssertTrue(testcase.message.contains("seed-001 makes its AES key from the key string as utf8-zeropad16, but app:app's login answer is a base64-raw key"),
                      testcase.message)
        XCTAssertTrue(testcase.message.contains("answered 400 to seed-001's envelope"), testcase.message)
    }

    func testSessionsApp_flaskAnsweringInTheClear_failsTheAppsReading() throws {
        let copy = try plant(Self.flaskExample, "    return jsonify(seal({\"echo\": params}, key))",
                             "    return jsonify({\"echo\": params})  # PLANTED: the answer is not sealed")
        let (run, app) = try runAppClient(copy + ":app", app: "seed-001", profile: "aes-https")
        XCTAssertEqual(run.status, 1)
        let testcase = try XCTUnwrap(app["seed-001.inprocess.login-and-echo.utf8-zeropad16"], "\(run.cases)")
        XCTAssertEqual(testcase.outcome, "failure")
        XCTAssertTrue(testcase.message.contains("seed-001 failed to read the team's app:app server's answer"), testcase.message)
    }
}
