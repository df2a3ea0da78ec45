import Foundation
import Reports

/// `crosscheck report`: review JUnit reports, and merge reports from shards into one.
enum ReportCommand: Command {
    static let name = "report"
    static let abstract = "Summarise JUnit reports for review, or merge shard reports into one."
    static let usage = """
    USAGE: crosscheck report [--failures N] FILE...
           crosscheck report --merge OUT FILE...

    Prints each report's suites, totals and first failures (with their messages), or with --merge
    writes one schema-valid report holding every suite of the inputs (atomically).

    OPTIONS:
      --merge OUT      write the merged report to OUT
      --failures N     how many failures to show (default 10)
      -h, --help       this help

    EXIT STATUS: 0 no failures or errors in the inputs, 1 some, 64 usage error, 66 an input is
    missing or not JUnit XML, 73 OUT not writable.
    """

    static func run(_ arguments: inout Arguments) throws -> ExitCode {
        let merge = try arguments.option("--merge")
        let shown = try arguments.integer("--failures") ?? 10
        let files = try arguments.positionals()
        guard !files.isEmpty else { throw CommandExit.usage("name at least one JUnit file", command: self) }
        var reports: [JUnitReport] = []
        for file in files {
            do { reports.append(try JUnitXML.read(from: URL(fileURLWithPath: file))) } catch {
                throw CommandExit(code: .noInput, message: "crosscheck report: \(error)")
            }
        }
        let merged = JUnitXML.merge(reports)
        if let merge {
            do { try JUnitXML.write(merged, to: URL(fileURLWithPath: merge)) } catch {
                throw CommandExit(code: .cannotCreate, message: "crosscheck report: \(error)")
            }
            print("merged \(files.count) report(s), \(merged.suites.count) suite(s), \(merged.tests) tests into \(merge)")
        }
        print(Summary.text(merged, failuresToShow: shown))
        return merged.failures + merged.errors == 0 ? .success : .checksFailed
    }
}
