import Foundation
import CommandLineKit
import Conformance
import Described
import PythonBridge
import Reports
import TeamServer
import Transport
import WireCrypto
import WireProtocol

extension RunCommand {
    /// `run --protocol FILE`: the described suite (both engines, every pairing, mutated messages to both).
    func runDescribed() throws -> ExitCode {
        let description = try protocolOptions.description(command: "run")
        let interpreter = try files.interpreter()
        let path = URL(fileURLWithPath: protocolOptions.file!).standardizedFileURL.path
        // PythonRef reads the description too, on its own: a file it refuses is the same mistake.
        do { _ = try PythonParty.check(path: path, interpreter: interpreter) } catch {
            throw CommandExit(.noInput, "crosscheck run: \(path): PythonRef refuses the description: \(error)")
        }
        let runner = Runner(filter: filter)
        let suite = DescribedSuite.checks(description: description, path: path, interpreter: interpreter,
                                          settings: DescribedSuite.Settings(seed: seed.value, loopback: (files.executable, files.files.pythonRef)))
        let checks = runner.selected(suite)
        guard !checks.isEmpty else { throw UsageError("no check matches --filter '\(filter ?? "")' in the described suite") }
        if report.junit == nil { report.junit = "reports/junit.xml" }
        let known = try knownFailuresFile.map { try KnownFailureList.load($0, command: "run") }
        let latch = InterruptLatch()
        let (adjusted, started) = RunReport.run(checks, title: "crosscheck run --protocol", detail: "\(description.name) (\(path)), seed \(seed.value)",
                                                quiet: report.quiet, latch: latch, adjust: { known?.apply(to: $0) ?? $0 })
        // An entry is stale when it matches no check of the whole suite (a --filter leaves some out);
        // an interrupted run does not say.
        let (results, knownFooter) = known.map {
            KnownFailureList.finish($0, path: knownFailuresFile ?? "", adjusted: adjusted, staleAmong: suite.map(\.fullName), checkStale: !latch.interrupted)
        } ?? (adjusted, [])
        let junit = JUnitAdapter.report(results, properties: [
            ("crosscheck.protocol", path), ("crosscheck.protocol.name", description.name),
            ("crosscheck.protocol.weaknesses", description.weaknesses.joined(separator: "; ")),
            ("crosscheck.seed", String(seed.value)), ("crosscheck.filter", filter ?? ""),
            ("swift.openssl", OpenSSLInfo.version),
            ("python.executable", interpreter.executable), ("python.version", interpreter.pythonVersion),
        ], timestamp: started)
        var footer = knownFooter + description.weaknesses.map { "weak by description: \($0)" }
        footer.append("seed \(seed.value); rerun with --seed \(seed.value) to reproduce")
        return try RunReport.finish(junit, interrupted: latch.interrupted, done: adjusted.count, planned: checks.count, started: started,
                                    junitPath: report.junit, footer: footer)
    }

    /// `run --server … --protocol FILE`: the described remote checks against the team's server,
    /// in this process or as its own process (`server` is either).
    func runDescribedTeamServer(_ server: any InProcessServer, properties: [(String, String)], footer: [String]) throws -> ExitCode {
        let description = try protocolOptions.description(command: "run")
        var options = DescribedRemote.Options()
        options.timeout = teamServer.checks.timeout.value
        options.strict = strict
        options.seed = seed.value
        // In this process the server's own key can be learned where it keeps it (a key made at import, never sent).
        let inProcess = server as? TeamServer
        let notes = try protocolOptions.apply(to: &options, description: description, held: inProcess.map { server in { server.heldPublicKey(type: $0.rawValue) } })
        if !report.quiet { notes.forEach { printError("crosscheck run: \($0)") } }
        let known = try knownFailuresFile.map { try KnownFailureList.load($0, command: "run") }
        let latch = InterruptLatch()
        let started = Date()
        var progress = ProgressPrinter(quiet: report.quiet)
        var done = 0
        let ran = DescribedRemote.run(description, target: DescribedTarget(.inProcess(server), timeout: options.timeout), options: options,
                                      shouldStop: { latch.interrupted }) { result in
            done += 1
            progress.record(done: done, total: 0, result: known?.apply(to: result) ?? result)
        }
        let (results, knownFooter) = known.map { KnownFailureList.apply($0, path: knownFailuresFile ?? "", to: ran, checkStale: !latch.interrupted) } ?? (ran, [])
        let junit = JUnitAdapter.report(results, properties: properties + [
            ("crosscheck.protocol", protocolOptions.file ?? ""), ("crosscheck.protocol.name", description.name),
            ("crosscheck.strict", String(strict)), ("crosscheck.seed", String(seed.value)),
            ("crosscheck.protocol.keys", notes.joined(separator: "; ")),
        ], timestamp: started)
        return try RunReport.finish(junit, interrupted: latch.interrupted, done: ran.count, planned: nil, started: started,
                                    junitPath: report.junit, footer: knownFooter + footer)
    }
}
