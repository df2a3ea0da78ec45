import Foundation
import XCTest
import CommandLineKit

/// Issue 33: the strict reader of crosscheck.toml's subset, and "did you mean".
final class ConfigFileTests: XCTestCase {
    let schema: [String: [String: ConfigFile.Kind]] = [
        "checks": ["profile": .string, "strict": .boolean, "timeout": .integer],
        "pi": ["hosts": .strings, "pin": .string],
    ]
    let url = URL(fileURLWithPath: "/team/repo/crosscheck.toml")

    func read(_ text: String) throws -> ConfigFile { try ConfigFile(text: text, url: url, schema: schema) }
    func error(_ text: String) -> String {
        do { _ = try read(text); return "read" } catch { return "\(error)" }
    }

    func testEveryKindReads_withCommentsAndEscapes_andPathsAreRelativeToTheFile() throws {
        let config = try read("""
            # a comment
            [checks]
            profile = "rsa-socket"   # the protocol
            strict = true
            timeout = -3

            [pi]
            hosts = ["pi-1.local", "pi#2:9876", "a\\"b"]
            pin = "certs/server.crt.der"
            """)
        XCTAssertEqual(config.string("checks.profile"), "rsa-socket")
        XCTAssertEqual(config.boolean("checks.strict"), true)
        XCTAssertEqual(config.integer("checks.timeout"), -3)
        XCTAssertEqual(config.strings("pi.hosts"), ["pi-1.local", "pi#2:9876", "a\"b"])
        XCTAssertEqual(config.path("pi.pin"), "/team/repo/certs/server.crt.der")
        XCTAssertEqual(config.entries["checks.strict"]?.line, 4)
        XCTAssertEqual(try read("[pi]\nhosts = []\n").strings("pi.hosts"), [])
    }

    func testErrors_nameTheLineAndTheKey_andSuggestTheNearestName() {
        XCTAssertEqual(error("[checks]\nprofil = \"x\""), "crosscheck.toml:2: unknown key profil in [checks] (did you mean profile?)")
        XCTAssertEqual(error("[chekcs]"), "crosscheck.toml:1: unknown table [chekcs] (did you mean [checks]?)")
        XCTAssertEqual(error("[checks]\nnothinglike = 1"), "crosscheck.toml:2: unknown key nothinglike in [checks]; [checks] takes profile, strict or timeout")
        XCTAssertEqual(error("[checks]\nstrict = \"yes\""), "crosscheck.toml:2: strict takes true or false, not \"yes\"")
        XCTAssertEqual(error("[checks]\ntimeout = 5.5"), "crosscheck.toml:2: timeout: '5.5' is not a value crosscheck.toml takes (a string in double quotes, a whole number, true/false, an array of strings)")
        XCTAssertEqual(error("profile = \"x\""), "crosscheck.toml:1: profile is outside any table; put it under one of [checks] or [pi]")
        XCTAssertEqual(error("[checks]\nprofile = \"a\"\nprofile = \"b\""), "crosscheck.toml:3: profile is given twice in [checks]")
        XCTAssertEqual(error("[pi]\nhosts = [\"a\" \"b\"]"), "crosscheck.toml:2: hosts: expected , or ] after \"a\", not '\"b\"'")
        XCTAssertEqual(error("[pi]\npin = \"open"), "crosscheck.toml:2: pin: a string without its closing \"")
        XCTAssertEqual(error("[checks]\nprofile"), "crosscheck.toml:2: expected key = value or [table], not 'profile'")
        XCTAssertEqual(error("[checks]\n[pi]\n[checks]"), "crosscheck.toml:3: table [checks] appears twice")
        XCTAssertEqual(error("[[checks]]"), "crosscheck.toml:1: a table header is [name], not '[[checks]]'")
    }

    func testFind_walksUpFromTheWorkingFolder() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("config-find-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let deep = root.appendingPathComponent("a/b/c")
        try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true)
        XCTAssertNil(ConfigFile.find("crosscheck-test-\(UUID().uuidString).toml", from: deep))
        try Data().write(to: root.appendingPathComponent("a/x.toml"))
        XCTAssertEqual(ConfigFile.find("x.toml", from: deep)?.path, root.appendingPathComponent("a/x.toml").path)
    }

    func testDidYouMean_forTyposOnly() {
        XCTAssertEqual(closest(to: "remtoe", among: ["run", "remote", "report"]), "remote")
        XCTAssertEqual(closest(to: "--clinet", among: ["--client", "--host"]), "--client")
        XCTAssertEqual(closest(to: "--verison", among: ["--version"]), "--version")
        XCTAssertNil(closest(to: "frobnicate", among: ["run", "remote", "report"]))
        XCTAssertEqual(editDistance("kitten", "sitting"), 3)
        XCTAssertEqual(editDistance("ab", "ba"), 1)
    }
}
