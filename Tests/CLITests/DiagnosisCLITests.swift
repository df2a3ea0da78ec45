import Foundation
import XCTest
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Issue 33: diagnoses that point at the cause, each on a planted server run in-process
/// (`run --server`): a Flask server that pads its answers with spaces, a socket server whose own
/// code fails and answers `Server: ERROR`, a handler that raises (the team's line first), a wrong
/// file or name (did you mean), and the server log's header line.
final class DiagnosisCLITests: XCTestCase {
    static let root = CrosscheckBinary.root

    struct Case { let name: String; let outcome: String; let message: String }
    struct Run { let status: Int32; let stdout: String; let stderr: String; let cases: [Case]; let log: String
        func message(_ suffix: String) -> String? { cases.first { $0.name.hasSuffix(suffix) }?.message }
    }

    /// A copy of `example` with `original` replaced by `planted`, in a folder of its own.
    func plant(_ example: String, _ original: String, _ planted: String) throws -> URL {
        let source = try String(contentsOf: Self.root.appendingPathComponent(example), encoding: .utf8)
        XCTAssertTrue(source.contains(original), "\(example) no longer contains: \(original)")
        let copy = try makeTemporaryDirectory().appendingPathComponent(URL(fileURLWithPath: example).lastPathComponent)
        try source.replacingOccurrences(of: original, with: planted).write(to: copy, atomically: true, encoding: .utf8)
        return copy
    }

    func runServer(_ spec: String, in folder: URL, _ extra: [String] = []) throws -> Run {
        let report = folder.appendingPathComponent("r.xml")
        let outcome = try CrosscheckBinary.run(["run", "--server", spec, "--quiet", "--seed", "1", "--junit", report.path] + extra, directory: folder,
                                               environment: ["CROSSCHECK_CONFIG": "none"])
        var cases: [Case] = []
        if let data = FileManager.default.contents(atPath: report.path) {
            let document = try XMLDocument(data: data)
            for node in try document.nodes(forXPath: "//testcase") {
                guard let element = node as? XMLElement else { continue }
                let failure = element.elements(forName: "failure").first ?? element.elements(forName: "error").first
                let outcome = element.elements(forName: "failure").isEmpty ? (element.elements(forName: "error").isEmpty ? "other" : "error") : "failure"
                cases.append(Case(name: element.attribute(forName: "name")?.stringValue ?? "", outcome: outcome,
                                  message: failure?.attribute(forName: "message")?.stringValue ?? ""))
            }
        }
        let log = (try? String(contentsOf: folder.appendingPathComponent("reports/server.log"), encoding: .utf8)) ?? ""
        return Run(status: outcome.status, stdout: outcome.stdout, stderr: outcome.stderr, cases: cases, log: log)
    }

    /// Issue 33 item 3: answers padded with spaces are named so, and the CBC audit says the same in one short line.
    func testFlaskPaddingWithSpaces_isToldSo_notWrongKeyOrInconsistentResults() throws {
        let copy = try plant("examples/pi-server-flask/app.py", """
                padder = symmetric_padding.PKCS7(128).padder()
                padded = padder.update(json.dumps(params).encode()) + padder.finalize()
            """, """
                raw = json.dumps(params).encode()
                padded = raw.ljust((len(raw) // 16 + 1) * 16, b" ")  # PLANTED: spaces, not PKCS#7
            """)
        let run = try runServer(copy.lastPathComponent + ":app", in: copy.deletingLastPathComponent(), ["--user", "user:password"])
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        let echo = try XCTUnwrap(run.message("secure-data.echo-both-directions"), "\(run.cases.map(\.name))")
        XCTAssertTrue(echo.contains("space (0x20) bytes, so it was padded with spaces, not PKCS#7"), echo)
        XCTAssertFalse(echo.contains("wrong key or IV"), echo)
        XCTAssertEqual(run.cases.first { $0.name.hasSuffix("secure-data.echo-both-directions") }?.outcome, "failure", "the server's fault, not an error of the check")
        let oracle = try XCTUnwrap(run.message("oracle.cbc-padding"))
        XCTAssertTrue(oracle.hasPrefix("no verdict: the server's answers to well-formed envelopes do not open — the right key, the wrong padding"), oracle)
        XCTAssertFalse(oracle.contains("inconsistent results"), oracle)
        XCTAssertLessThan(oracle.count, 300, oracle)
    }

    /// Issue 33 item 9: `Server: ERROR` for the server's own exception is said so, pointing at its log, not at TCP.
    func testServerErrorFromItsOwnException_pointsAtItsLog_notAtTCP() throws {
        let copy = try plant("examples/pi-server-socket/server.py", "                ciphertext = key.encrypt(MESSAGE, FOR_THE_APP)\n",
                             "                ciphertext = key.encrypt(MESSAGE * 64, FOR_THE_APP)  # PLANTED: too long: its own ValueError\n")
        let run = try runServer(copy.lastPathComponent + ":Handler", in: copy.deletingLastPathComponent(), ["--client", "both"])
        XCTAssertEqual(run.status, 1)
        let padding = try XCTUnwrap(run.message("padding.pi-to-phone"))
        XCTAssertTrue(padding.hasPrefix("pi-to-phone: the server answered Server: ERROR to the client's public key with every padding tried"), padding)
        XCTAssertTrue(padding.contains("the server's log (--server-log, default reports/server.log) says why"), padding)
        let seed = try XCTUnwrap(run.message("seed-app.pi-to-phone.rsa1024"))
        XCTAssertTrue(seed.contains("the server answered \"Server: ERROR\" instead of a ciphertext"), seed)
        XCTAssertFalse(seed.contains("TCP split"), seed)
        XCTAssertTrue(run.log.contains("unusable public key: Encryption/decryption failed."), "the cause is in the log: \(run.log.suffix(300))")
    }

    /// Issue 33: the team's own line first (message and log), a header line per run in the log.
    func testHandlerThatRaises_namesTheTeamsLine_andTheLogHasAHeaderPerRun() throws {
        let folder = try makeTemporaryDirectory()
        try Data("""
            import socketserver


            def parse(data):
                return data.decode()["key"]  # a bug of the team's own


            class Handler(socketserver.BaseRequestHandler):
                def handle(self):
                    self.request.sendall(b"public_key=")
                    parse(self.request.recv(4096))

            """.utf8).write(to: folder.appendingPathComponent("srv.py"))
        let run = try runServer("srv.py:Handler", in: folder, ["--timeout", "2"])
        XCTAssertEqual(run.status, 1)
        let path = folder.appendingPathComponent("srv.py").path
        let raised = try XCTUnwrap(run.cases.first { $0.message.contains("raised TypeError") }?.message, "\(run.cases)")
        XCTAssertTrue(raised.hasSuffix("at \(path):5 in parse: return data.decode()[\"key\"]  # a bug of the team's own"), raised)
        XCTAssertTrue(run.log.contains("your code: \(path):5 in parse"), run.log.prefix(600).description)
        _ = try runServer("srv.py:Handler", in: folder, ["--timeout", "2"])
        let again = try String(contentsOf: folder.appendingPathComponent("reports/server.log"), encoding: .utf8)
        let headers = again.split(separator: "\n").filter { $0.hasPrefix("==== crosscheck --server srv.py:Handler, pid ") }
        XCTAssertEqual(headers.count, 2, "one header line per run")
        XCTAssertTrue(again.hasPrefix("==== crosscheck --server srv.py:Handler"), String(again.prefix(200)))
    }

    func testWrongFileOrName_saysWhatWasMeant() throws {
        let folder = try makeTemporaryDirectory()
        try FileManager.default.copyItem(at: Self.root.appendingPathComponent("examples/pi-server-socket/server.py"),
                                         to: folder.appendingPathComponent("server.py"))
        let file = try runServer("serve.py:Handler", in: folder)
        XCTAssertEqual(file.status, 66)
        XCTAssertTrue(file.stderr.contains("no file serve.py (from \(folder.path)) (did you mean server.py?)")
                      || file.stderr.contains("(did you mean server.py?)"), file.stderr)
        let module = try runServer("serve:Handler", in: folder)
        XCTAssertEqual(module.status, 66)
        XCTAssertTrue(module.stderr.contains("give the file as FILE.py:Handler with its path from here, or the folder that holds it with --server-path DIR"),
                      module.stderr)
        XCTAssertFalse(module.stderr.contains("Traceback"), "importlib's frames are no help here: \(module.stderr)")
        let name = try runServer("server.py:Handlr", in: folder)
        XCTAssertEqual(name.status, 66)
        XCTAssertTrue(name.stderr.contains("server.py has no 'Handlr' (did you mean 'Handler'?)"), name.stderr)
    }
}
