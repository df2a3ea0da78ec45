import Foundation
import XCTest
import CommandLineKit

enum Color: String, CaseIterable, ExpressibleByArgument { case red, green, blue }

struct Common: ParsableArguments {
    @Option(name: "--junit", value: "PATH", help: "report path") var junit: String?
    @Flag(name: "--quiet", help: "no progress") var quiet: Bool
    init() {}
}

struct Sample: ParsableCommand {
    static let configuration = CommandConfiguration(name: "sample", abstract: "A command for tests.", synopsis: ["[options] FILE..."],
                                                    exitCodes: [.success, .usage])
    @Option(name: "--port", value: "P", help: "a port") var port = PortNumber(9876)
    @Option(name: "--color", value: "C", help: "a color") var color: Color?
    @Option(name: "--sizes", value: "LIST", help: "sizes") var sizes = ArgumentList<Int>([2048])
    @Option(name: "--jobs", short: "-j", value: "N", help: "jobs") var jobs = 1
    @Option(name: "--internal", value: "X", help: "set by the program itself", hidden: true) var internalValue: Int?
    @OptionGroup var common: Common
    @Positionals(value: "FILE...", help: "files") var files: [String]
    init() {}

    func validate() throws {
        guard (1...64).contains(jobs) else { throw UsageError("-j takes 1 to 64, not \(jobs)") }
    }
    func run() throws -> ExitCode { .success }
}

final class ParsingTests: XCTestCase {
    func testDefaults_holdWhenNothingIsGiven() throws {
        let sample = try Sample.parse([])
        XCTAssertEqual(sample.port, PortNumber(9876))
        XCTAssertNil(sample.color)
        XCTAssertEqual(sample.sizes.items, [2048])
        XCTAssertEqual(sample.files, [])
        XCTAssertFalse(sample.common.quiet)
        XCTAssertFalse(sample.$port)
    }

    func testValues_inEveryFormAndGroup() throws {
        let sample = try Sample.parse(["--port=22", "--color", "green", "--sizes", "1024, 4096", "-j", "8", "--quiet", "a.xml",
                                       "--junit", "r.xml", "--", "--not-an-option"])
        XCTAssertEqual(sample.port.value, 22)
        XCTAssertTrue(sample.$port)
        XCTAssertEqual(sample.color, .green)
        XCTAssertEqual(sample.sizes.items, [1024, 4096])
        XCTAssertEqual(sample.jobs, 8)
        XCTAssertTrue(sample.common.quiet)
        XCTAssertEqual(sample.common.junit, "r.xml")
        XCTAssertEqual(sample.files, ["a.xml", "--not-an-option"])
    }

    func testBadValues_sayWhatIsExpectedAndEchoTheValue() {
        func message(_ arguments: [String]) -> String {
            do { _ = try Sample.parse(arguments); return "parsed" } catch { return "\(error)" }
        }
        XCTAssertEqual(message(["--port", "99999"]), "--port takes a port number from 1 to 65535, not '99999'")
        XCTAssertEqual(message(["--port", "0"]), "--port takes a port number from 1 to 65535, not '0'")
        XCTAssertEqual(message(["--port", "+22"]), "--port takes a port number from 1 to 65535, not '+22'")
        XCTAssertEqual(message(["--color", "nosuch"]), "--color takes red, green or blue, not 'nosuch'")
        XCTAssertEqual(message(["--color", ""]), "--color needs a value: red, green or blue")
        XCTAssertEqual(message(["--sizes", "1024,,2048"]),
                       "--sizes takes a comma-separated list of a whole number from \(Int.min) to \(Int.max), not '1024,,2048'")
        XCTAssertEqual(message(["--port"]), "--port needs a value")
        XCTAssertEqual(message(["--nosuch"]), "unknown option '--nosuch'")
        XCTAssertEqual(message(["--quiet=yes"]), "--quiet takes no value")
        XCTAssertEqual(message(["-j", "0"]), "-j takes 1 to 64, not 0")
    }

    func testHelp_isDerivedFromTheDeclarations() {
        let help = Sample.helpText
        XCTAssertTrue(help.hasPrefix("USAGE: crosscheck sample [options] FILE...\n\nA command for tests."), help)
        for line in ["  --port P", "(default:", "  --color C", "  --jobs N, -j N", "  --junit PATH", "  --quiet", "  FILE...", "  -h, --help",
                     "EXIT STATUS:", "  64   usage error"] {
            XCTAssertTrue(help.contains(line), "\(line) missing from:\n\(help)")
        }
        XCTAssertFalse(help.contains("130"), "only the declared exit codes are listed")
        XCTAssertFalse(help.contains("--internal"), "a hidden option is not in help")
    }

    func testHiddenOption_parsesLikeAnyOther() throws {
        XCTAssertEqual(try Sample.parse(["--internal", "7"]).internalValue, 7)
        XCTAssertThrowsError(try Sample.parse(["--internal", "x"])) {
            XCTAssertEqual("\($0)", "--internal takes a whole number from \(Int.min) to \(Int.max), not 'x'")
        }
    }
}
