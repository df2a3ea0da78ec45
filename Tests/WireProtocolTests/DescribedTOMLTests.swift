import Foundation
import XCTest
import StrictFormats

/// StrictTOML against Python's `tomllib` on the protocol descriptions, and its refusals by line.
final class DescribedTOMLTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The document as Foundation objects, for comparing with `json.loads` of tomllib's reading.
    func plain(_ value: StrictTOML.Value) -> Any {
        switch value.kind {
        case let .string(text): return text
        case let .integer(number): return number
        case let .boolean(flag): return flag
        case let .array(items): return items.map(plain)
        case let .table(table): return plain(table)
        }
    }

    func plain(_ table: StrictTOML.Table) -> [String: Any] {
        Dictionary(uniqueKeysWithValues: table.keys.map { ($0, plain(table[$0]!)) })
    }

    func canonical(_ object: Any) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    func tomllib(_ path: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import tomllib,json,sys;print(json.dumps(tomllib.load(open(sys.argv[1],'rb'))))", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return try canonical(try JSONSerialization.jsonObject(with: output))
    }

    func testSeedDescriptions_readAsTomllibReadsThem() throws {
        for name in ["rsa-socket", "aes-https"] {
            let path = Self.root.appendingPathComponent("protocols/\(name).toml").path
            let ours = try StrictTOML.parse(try Data(contentsOf: URL(fileURLWithPath: path)))
            XCTAssertEqual(String(decoding: try canonical(plain(ours)), as: UTF8.self), String(decoding: try tomllib(path), as: UTF8.self), name)
        }
    }

    func testEveryConstruct_readsAsTomllibReadsIt() throws {
        let text = """
        # a comment
        name = "x" # after a value
        "quoted key" = 'literal \\n stays'
        a.b.c = 1
        escapes = "tab\\t nl\\n quote\\" back\\\\ cr\\r u\\u00e9 U\\U0001F600"
        numbers = [1, -2, +3, 1_000, 0]
        flags = [true, false]
        mixed = [
          { x = 1 },  # comment inside
          { y = [ "a",
                  "b", ] },
        ]
        [table]
        key = "v"
        [table.sub]
        k = 2
        [[conversation]]
        name = "one"
        [[conversation.step]]
        from = "client"
        [[conversation.step]]
        from = "server"
        [[conversation]]
        name = "two"
        [[conversation.step]]
        from = "client"
        """
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("strict-toml-\(UUID().uuidString).toml")
        try Data(text.utf8).write(to: scratch)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let ours = try StrictTOML.parse(text)
        XCTAssertEqual(String(decoding: try canonical(plain(ours)), as: UTF8.self), String(decoding: try tomllib(scratch.path), as: UTF8.self))
        XCTAssertEqual(ours["mixed"]?.line, 8)
        guard case let .array(conversations)? = ours["conversation"]?.kind, case let .table(first) = conversations[0].kind,
              case let .array(steps)? = first["step"]?.kind else { return XCTFail("no conversations") }
        XCTAssertEqual(steps.map(\.line), [19, 21])
        XCTAssertEqual(ours.keys, ["name", "quoted key", "a", "escapes", "numbers", "flags", "mixed", "table", "conversation"])
    }

    func testRefusals_nameTheLineAndWhatIsWrong() {
        let cases: [(String, Int, String)] = [
            ("a = 1\na = 2", 2, "given twice"),
            ("a = \"open", 1, "not closed"),
            ("a = 1.5", 1, "not an integer"),
            ("a = 1979-05-27", 1, "not an integer"),
            ("a = 01", 1, "leading zeros"),
            ("a = \"\\q\"", 1, "not an escape"),
            ("x = 1\n\n[t]\n[t]", 4, "defined twice"),
            ("a = { b = 1,\n c = 2 }", 1, "one line"),
            ("a = [1, 2", 1, "not closed"),
            ("a = 1 b = 2", 1, "one key = value per line"),
            ("a = \"\"\"x\"\"\"", 1, "multi-line"),
            ("= 1", 1, "key was expected"),
            ("a = yes", 1, "not a value"),
            ("[[t]]\n[t]", 2, "array of tables"),
            ("t = 1\n[t.x]", 2, "not a table"),
        ]
        for (text, line, words) in cases {
            do {
                _ = try StrictTOML.parse(text)
                XCTFail("accepted: \(text)")
            } catch let error as StrictTOML.Error {
                XCTAssertEqual(error.line, line, "\(text): \(error)")
                XCTAssertTrue(error.description.contains(words), "\(text): \(error)")
            } catch { XCTFail("\(error)") }
        }
    }

    /// Small documents at the edges: StrictTOML accepts exactly those tomllib accepts (among the
    /// constructs descriptions use) and reads them the same.
    func testEdgeCases_agreeWithTomllib() throws {
        let snippets = [
            "a = 1", "a = -0", "a = +1_000", "a = 1__0", "a = _1", "a = 00", "a = 9223372036854775807",
            "a = \"\\u00e9\"", "a = \"\\ud800\"", "a = \"\\x41\"", "a = 'lit\\'", "a = \"tab\there\"",
            "a = [\n1,\n2,\n]", "a = [,]", "a = [1,,2]", "a = []", "a = {}", "a = { b = 1, }", "a = { b.c = 1 }",
            "a.b = 1\na.c = 2", "a.b = 1\n[a]", "[a]\nb = 1\n[a.c]\nd = 2", "[[a]]\n[[a]]\nb = 1", "[[a.b]]\n[[a.b]]",
            "[a]\n[a.b]\n[a]", "\"a.b\" = 1", "a . b = 1", "[ a . b ]\nc = 1", "a = true\nb = false", "a = True",
            "a = 1 # c", "a = 1\r\nb = 2", "a = 1\rb = 2", "# only a comment", "", "a = 'x' 'y'", "x = [[1], [\"a\"]]",
            "[t]\na = 1\n[t.u]\nb = 2\n[v]\nc = 3", "a = { b = [ 1,\n 2 ] }", "a = {\n}", "[[c]]\nname = \"x\"\n[[c.step]]\nfrom = 1\n[c.meta]\nk = 1",
        ]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", """
        import tomllib, json, sys
        out = []
        for text in json.load(sys.stdin):
            try: out.append(json.dumps(tomllib.loads(text), sort_keys=True))
            except tomllib.TOMLDecodeError: out.append(None)
        print(json.dumps(out))
        """]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: snippets))
        try input.fileHandleForWriting.close()
        let python = try JSONSerialization.jsonObject(with: output.fileHandleForReading.readDataToEndOfFile()) as! [Any]
        process.waitUntilExit()
        XCTAssertEqual(python.count, snippets.count)
        XCTAssertEqual(python.filter { $0 is NSNull }.count, 14, "the refusals among the snippets")
        for (snippet, expected) in zip(snippets, python) {
            let ours = try? StrictTOML.parse(snippet)
            if let expectedText = expected as? String {
                guard let ours else { XCTFail("refused what tomllib reads: \(snippet.debugDescription)"); continue }
                let expectedCanonical = try canonical(try JSONSerialization.jsonObject(with: Data(expectedText.utf8)))
                XCTAssertEqual(String(decoding: try canonical(plain(ours)), as: UTF8.self), String(decoding: expectedCanonical, as: UTF8.self), snippet.debugDescription)
            } else {
                XCTAssertNil(ours, "accepted what tomllib refuses: \(snippet.debugDescription)")
            }
        }
    }
}
