import Foundation
import CommandLineKit
import Reports

/// `crosscheck report`: review JUnit reports, and merge reports from shards into one.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "report", abstract: "Summarise JUnit reports for review, or merge shard reports into one.",
        synopsis: ["[--failures N] FILE...", "--merge OUT FILE..."],
        discussion: """
        Prints each report's suites, totals and first failures (with their messages), or with --merge
        writes one schema-valid report holding every suite of the inputs (atomically).
        """,
        exitCodes: [.success, .checksFailed, .usage, .noInput, .cannotCreate],
        exitNotes: [.success: "no failures or errors in the inputs", .checksFailed: "some failures or errors in the inputs",
                    .noInput: "a FILE is missing, unreadable or not JUnit XML", .cannotCreate: "OUT could not be written"])

    @Option(name: "--merge", value: "OUT", help: "write the merged report to OUT")
    var merge: String?
    @Option(name: "--failures", value: "N", help: "how many failures to show")
    var failures = 10
    @Positionals(value: "FILE...", help: "JUnit XML reports")
    var paths: [String]
    init() {}

    func validate() throws {
        guard !paths.isEmpty else { throw UsageError("name at least one JUnit FILE") }
        guard failures >= 0 else { throw UsageError("--failures takes 0 or more, not \(failures)") }
    }

    func run() throws -> ExitCode {
        var reports: [JUnitReport] = []
        for file in paths {
            do { reports.append(try JUnitXML.read(from: URL(fileURLWithPath: file))) } catch {
                throw CommandExit(.noInput, "crosscheck report: \(error)")
            }
        }
        let merged = JUnitXML.merge(reports)
        if let merge {
            do { try JUnitXML.write(merged, to: URL(fileURLWithPath: merge)) } catch {
                throw CommandExit(.cannotCreate, "crosscheck report: \(error)")
            }
            print("merged \(paths.count) report(s), \(merged.suites.count) suite(s), \(merged.tests) tests into \(merge)")
        }
        print(Summary.text(merged, failuresToShow: failures))
        return merged.failures + merged.errors == 0 ? .success : .checksFailed
    }
}
