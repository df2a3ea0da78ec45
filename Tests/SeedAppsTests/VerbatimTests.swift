import Foundation
import XCTest
import TestSupport

/// Proves the vendored seed files are the seeds' text: byte for byte apart from the changes their
/// headers list (and glue lines, which end in "// GLUE"), checked against the extracts cut from
/// the seed documents by scripts/extract_seed_code.py (Tests/SeedAppsTests/Extracts/).
final class VerbatimTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Vendored {
        let path: String
        let extracts: [(name: String, firstLine: Int)]
        let mode: String
        let changes: [(old: String, new: String)]
        let ported: [ClosedRange<Int>]
        let body: [String]   // lines after the header
    }

    /// Parses a vendored file's header (see any file under Sources/SeedApps for the format).
    func load(_ relativePath: String) throws -> Vendored {
        let text = try String(contentsOf: Self.root.appendingPathComponent(relativePath), encoding: .utf8)
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        guard let end = lines.firstIndex(of: "// ---- end of header ----") else { throw Failure("\(relativePath): no end-of-header line") }
        var extracts: [(String, Int)] = [], mode = "", changes: [(String, String)] = [], ported: [ClosedRange<Int>] = []
        for line in lines[..<end] {
            if line.hasPrefix("// EXTRACT: ") {
                let parts = line.dropFirst("// EXTRACT: ".count).components(separatedBy: " FROM LINE ")
                extracts.append((parts[0], Int(parts[1])!))
            } else if line.hasPrefix("// MODE: ") {
                mode = String(line.dropFirst("// MODE: ".count))
            } else if line.hasPrefix("// CHANGE: `") {
                let rest = line.dropFirst("// CHANGE: `".count)
                let halves = rest.components(separatedBy: "` → `")
                guard halves.count == 2, let close = halves[1].range(of: "` — ") else { throw Failure("\(relativePath): unreadable CHANGE line: \(line)") }
                changes.append((halves[0], String(halves[1][..<close.lowerBound])))
            } else if line.hasPrefix("// PORTED L") {
                let spec = line.dropFirst("// PORTED ".count).prefix { $0 != ":" }
                let bounds = spec.components(separatedBy: "-").map { Int($0.dropFirst())! }
                ported.append(bounds[0]...(bounds.count > 1 ? bounds[1] : bounds[0]))
            }
        }
        return Vendored(path: relativePath, extracts: extracts, mode: mode, changes: changes, ported: ported, body: Array(lines[(end + 1)...]))
    }

    func extractLines(_ name: String) throws -> [String] {
        let text = try String(contentsOf: Self.root.appendingPathComponent("Tests/SeedAppsTests/Extracts/\(name)"), encoding: .utf8)
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    static func isGlue(_ line: String) -> Bool { line.hasSuffix("// GLUE") || line.contains("// GLUE:") }

    /// Line for line: the non-glue body equals the extracts, except lines a CHANGE names.
    func checkVerbatimLines(_ file: Vendored) throws -> (changed: Int, problems: [String]) {
        var problems: [String] = []
        var expected = try file.extracts.flatMap { try extractLines($0.name) }
        for change in file.changes {
            let hits = expected.indices.filter { expected[$0] == change.old }
            if hits.count != 1 { problems.append("\(file.path): CHANGE must name exactly one seed line: \(change.old)") }
            if let hit = hits.first { expected[hit] = change.new }
        }
        let actual = file.body.filter { !Self.isGlue($0) }
        if actual.count != expected.count { problems.append("\(file.path): \(actual.count) non-glue lines, the seed has \(expected.count)") }
        for (index, (a, e)) in zip(actual, expected).enumerated() where a != e {
            problems.append("\(file.path): non-glue line \(index + 1) is\n  \(a)\nbut the seed has\n  \(e)")
            break
        }
        return (file.changes.count, problems)
    }

    /// The page lost the code's line breaks: compare with each line's leading blanks removed and the
    /// lines joined, after applying the CHANGE substitutions to the seed text.
    func checkVerbatimJoined(_ file: Vendored) throws -> (changed: Int, problems: [String]) {
        var problems: [String] = []
        func joined(_ lines: [String]) -> String { lines.map { String($0.drop { $0 == " " || $0 == "\t" }) }.joined() }
        var expected = joined(try file.extracts.flatMap { try extractLines($0.name) })
        var changedLines = 0
        for change in file.changes {
            let old = joined(change.old.components(separatedBy: "\n")), new = joined(change.new.components(separatedBy: "\n"))
            if expected.components(separatedBy: old).count - 1 != 1 { problems.append("\(file.path): CHANGE must occur exactly once: \(old)") }
            expected = expected.replacingOccurrences(of: old, with: new)
            changedLines += file.body.filter { line in !Self.isGlue(line) && !line.isEmpty && new.contains(line.drop { $0 == " " }) && !old.contains(line.drop { $0 == " " }) }.count
        }
        let actual = joined(file.body.filter { !Self.isGlue($0) })
        if actual != expected {
            let prefix = zip(actual, expected).prefix { $0 == $1 }.count
            problems.append("\(file.path): differs from the seed after \(prefix) characters: …\(actual.dropFirst(max(0, prefix - 40)).prefix(80))… vs …\(expected.dropFirst(max(0, prefix - 40)).prefix(80))…")
        }
        return (changedLines, problems)
    }

    /// A port: every seed line not kept character for character (leading blanks aside) is listed in
    /// a PORTED entry, and no PORTED entry names a line that was kept.
    func checkPort(_ file: Vendored) throws -> (changed: Int, problems: [String]) {
        var problems: [String] = []
        let kept = Set(file.body.filter { !Self.isGlue($0) }.map { $0.trimmingCharacters(in: .whitespaces) })
        var changed = 0
        for extract in file.extracts {
            for (offset, line) in try extractLines(extract.name).enumerated() {
                let number = extract.firstLine + offset
                let text = line.trimmingCharacters(in: .whitespaces)
                guard !text.isEmpty else { continue }
                let listed = file.ported.contains { $0.contains(number) }
                if kept.contains(text) {
                    if listed { problems.append("\(file.path): L\(number) is listed as ported but kept verbatim: \(text)") }
                } else {
                    if !listed { problems.append("\(file.path): L\(number) changed but is not listed: \(text)") }
                    changed += 1
                }
            }
        }
        return (changed, problems)
    }

    /// The number of changed seed lines; every problem found is a test failure.
    func check(_ relativePath: String) throws -> Int {
        let file = try load(relativePath)
        XCTAssertFalse(file.extracts.isEmpty, "\(relativePath): no EXTRACT line")
        let result: (changed: Int, problems: [String])
        switch file.mode {
        case "verbatim-lines": result = try checkVerbatimLines(file)
        case "verbatim-joined": result = try checkVerbatimJoined(file)
        case "port": result = try checkPort(file)
        default: throw Failure("\(relativePath): unknown MODE '\(file.mode)'")
        }
        for problem in result.problems { XCTFail(problem) }
        return result.changed
    }

    func testSeed003_verbatim_noChangedLines() throws {
        XCTAssertEqual(try check("Sources/SeedApps/Seed003/Seed003App.swift"), 0)
    }

    func testSeed004_verbatim_noChangedLines() throws {
        XCTAssertEqual(try check("Sources/SeedApps/Seed004/SymmetricKey+Initializer.swift"), 0)
        XCTAssertEqual(try check("Sources/SeedApps/Seed004/CryptManager.swift"), 0)
    }

    /// examples/seed004-app (the bring-your-own-app example) holds seed 004's two files with no
    /// header at all: byte for byte the seed's extracts.
    func testExampleApp_holdsSeed004sFilesExactlyAsPrinted() throws {
        for (example, extract) in [("CryptManager.swift", "seed004-CryptManager.swift.txt"),
                                   ("SymmetricKey+Initializer.swift", "seed004-SymmetricKey+Initializer.swift.txt")] {
            let shipped = try Data(contentsOf: Self.root.appendingPathComponent("examples/seed004-app/\(example)"))
            let seed = try Data(contentsOf: Self.root.appendingPathComponent("Tests/SeedAppsTests/Extracts/\(extract)"))
            XCTAssertEqual(shipped, seed, example)
        }
    }

    func testSeed001_verbatimWithLineBreaksRestored_andTheListedChanges() throws {
        XCTAssertEqual(try check("Sources/SeedApps/Seed001/AES.swift"), 1)
        XCTAssertEqual(try check("Sources/SeedApps/Seed001/Serializers.swift"), 2)
    }

    func testSeed002_delegateVerbatim_trustManagerPortedLineByLine() throws {
        XCTAssertEqual(try check("Sources/SeedApps/Seed002/PinningDelegate.swift"), 0)
        XCTAssertEqual(try check("Sources/SeedApps/Seed002/SSLTrustManager.swift"), 15)
    }

    func testSeed000_portListsEveryChangedLine() throws {
        let changed = try check("Sources/SeedApps/Seed000/ViewController.swift")
        let seedLines = try extractLines("seed000-ViewController.swift.txt").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.count
        print("seed 000: \(changed) of \(seedLines) non-blank lines changed in the port")
        XCTAssertGreaterThan(changed, 0)
        XCTAssertLessThan(changed, seedLines)
    }

    /// The checks themselves must fail on a file that differs from its seed.
    func testTheChecksCatchAnUnlistedChange() throws {
        var file = try load("Sources/SeedApps/Seed003/Seed003App.swift")
        var body = file.body
        let index = try XCTUnwrap(body.firstIndex(of: "    return SymmetricKey(size: .bits256)"))
        body[index] = "    return SymmetricKey(size: .bits128)"
        file = Vendored(path: file.path, extracts: file.extracts, mode: file.mode, changes: file.changes, ported: file.ported, body: body)
        XCTAssertEqual(try checkVerbatimLines(file).problems.count, 1)
        // An unlisted change in the joined form, and an unlisted line in a port.
        var aes = try load("Sources/SeedApps/Seed001/AES.swift")
        aes = Vendored(path: aes.path, extracts: aes.extracts, mode: aes.mode, changes: [], ported: [], body: aes.body)
        XCTAssertEqual(try checkVerbatimJoined(aes).problems.count, 1)
        var port = try load("Sources/SeedApps/Seed002/SSLTrustManager.swift")
        port = Vendored(path: port.path, extracts: port.extracts, mode: port.mode, changes: [], ported: Array(port.ported.dropFirst()), body: port.body)
        XCTAssertEqual(try checkPort(port).problems.count, 1)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
