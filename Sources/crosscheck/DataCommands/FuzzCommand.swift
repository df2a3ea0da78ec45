import Foundation
import CommandLineKit
import Conformance
import Frames
import Fuzzing
import TeamServer
import Transport
import PythonBridge
import Remote
import Reports
import WireCrypto
import WireProtocol

/// `crosscheck fuzz`: differential fuzzing of malformed frames, Swift against PythonRef in-process,
/// or malformed rsa-socket frames against a live server.
struct FuzzCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "fuzz", abstract: "Differential fuzzing: malformed frames to Swift and PythonRef (or a live server); every disagreement saved.",
        synopsis: ["[--frames N] [--seed S] [--jobs N] [--target inprocess|HOST:PORT] [--corpus DIR] [--save-failures DIR] [--junit PATH] [--family LIST] [--deadline SECONDS] [--quiet]",
                   "--write-corpus DIR"],
        discussion: """
        Generates N malformed frames (structured mutators of every frame in docs/PROTOCOL.md, plus random
        byte mutation of the seed corpus) and feeds each to the Swift implementation and to PythonRef. Both
        must accept with the same result or refuse with the same failure kind (each side's errors are
        mapped to the shared kinds in Sources/Conformance/ErrorEquivalence.swift); a disagreement, a crash, an uncaught Python exception or a frame
        over its deadline is a failure, saved as a reproducer that 'crosscheck replay FILE' reruns.
        The same seed gives the same frames. In-process runs use --jobs worker processes (default: one
        per core), each running its own contiguous share of the seed's frames; their findings are merged
        into the report, and the reproducers, one process would have written.
        """,
        exitCodes: [.success, .checksFailed, .usage, .noInput, .unavailable, .cannotCreate, .interrupted],
        exitNotes: [.checksFailed: "a failure was found", .noInput: "--remote-key is missing or unreadable",
                    .unavailable: "environment not ready (no corpus, no Python)"])

    @Option(name: "--frames", value: "N", help: "how many frames, spread evenly over the families")
    var frames = 10_000
    @Option(name: "--jobs", value: "N", help: "worker processes for an in-process run, each its own share of the same frames (default: the number of cores, \(ProcessInfo.processInfo.activeProcessorCount) here; a --target server gets one)")
    var jobs: Int?
    @Flag(name: "--worker", help: "run as a worker process of crosscheck fuzz --jobs: frame ranges on stdin, reports on stdout", hidden: true)
    var worker: Bool
    @Option(name: "--target", value: "T", help: "inprocess, or HOST:PORT of a running rsa-socket server: malformed frames over TCP, each answer checked against PythonRef's in-process answer (exactly `Server: ERROR` and a close for a malformed frame), and a good conversation after each family (liveness)")
    var target = "inprocess"
    @Option(name: "--remote-framing", value: "F", help: "legacy or framed: how the target server frames messages")
    var remoteFraming = "legacy"
    @Option(name: "--remote-padding", value: "P", help: "pkcs1, oaep-sha1 or oaep-sha256: the target server's padding (default: pkcs1; with --server, found by trying as run --server finds it)")
    var remotePadding: String?
    @Option(name: "--rsa-rejection", value: "R", help: "explicit or implicit: what PythonRef's rsa-socket server does in-process with a bad PKCS#1 v1.5 padding (implicit: a Pi on OpenSSL >= 3.2; the Swift side stays explicit, as iOS, and a difference must be exactly that one)")
    var rsaRejection = RSARejection.explicit
    @Option(name: "--remote-rejection", value: "R", help: "explicit or implicit: what the target server's library does with a bad PKCS#1 v1.5 padding (explicit: an error, OpenSSL 3.0/3.1, Debian 12; implicit: a synthetic plaintext, OpenSSL >= 3.2, Debian 13 and a current pip cryptography)")
    var remoteRejection = RSARejection.explicit
    @Option(name: "--remote-padding-pi-to-phone", value: "P", help: "the padding the server encrypts with for pi-to-phone, when not --remote-padding (with --server, found by trying)")
    var remotePaddingPiToPhone: String?
    @Flag(name: "--remote-digest", help: "the target server answers `Server: OK sha256=…` (with --server, found by trying)")
    var remoteDigest: Bool
    @Option(name: "--remote-key", value: "FILE", help: "the target server's private key (e.g. Vectors/frames/keys/fuzz-rsa1024.pem, as the test starts it); without it only rsa-socket.client-key frames are sent")
    var remoteKey: String?
    @Option(name: "--remote-max-message", value: "N", help: "the target server's message limit")
    var remoteMaxMessage = 65536
    @Option(name: "--server", value: "FILE.py:NAME", help: "a team's own rsa-socket server in-process (as run --server takes it) instead of --target: the same frames and comparison over socket pairs; its key is the one RSA private key its module holds, or --remote-key")
    var server: String?
    @Option(name: "--server-path", value: "DIR", help: "with --server MODULE:NAME: the folder to import MODULE from")
    var serverPath: String?
    @Option(name: "--corpus", value: "DIR", help: "seed corpus (default: the frames/ of the Vectors folder)")
    var corpusDirectory: String?
    @Option(name: "--save-failures", value: "DIR", help: "where reproducers go")
    var saveDirectory = "reports/fuzz-failures"
    @Option(name: "--family", value: "LIST", help: "comma-separated families (default all): \(FrameFamily.allCases.map(\.rawValue).joined(separator: ", "))")
    var families: ArgumentList<FrameFamily>?
    @Option(name: "--deadline", value: "SECONDS", help: "seconds one frame may take; a frame still running at 3× ends the run")
    var deadline = Seconds(5)
    @Option(name: "--write-corpus", value: "DIR", help: "write a fresh seed corpus (keys are kept when present) and exit")
    var writeCorpus: String?
    @Option(name: "--plant", value: "FLAW", help: "TEST ONLY: run a deliberately broken Swift side")
    var plant: PlantedFlaw?
    @OptionGroup var seed: SeedOption
    @OptionGroup var report: ReportOptions
    @OptionGroup var files: FilesOptions
    init() {}

    func validate() throws {
        guard frames > 0 else { throw UsageError("--frames takes a whole number above 0, not \(frames)") }
        if let jobs {
            guard (1...256).contains(jobs) else { throw UsageError("--jobs takes a whole number from 1 to 256, not \(jobs)") }
            guard jobs == 1 || (target == "inprocess" && server == nil) else {
                throw UsageError("--jobs \(jobs) is for in-process runs; a --target server is sent one frame at a time (leave --jobs out)")
            }
        }

        if server != nil, target != "inprocess" { throw UsageError("--server and --target exclude each other: one server per run") }
        guard remoteMaxMessage > 0 else { throw UsageError("--remote-max-message takes a whole number above 0, not \(remoteMaxMessage)") }
        if target != "inprocess" || server != nil {
            if server == nil {
                do { _ = try ServerAddress(parsing: target, defaultPort: 9876) } catch { throw UsageError("--target takes inprocess or HOST:PORT: \(error)") }
            }
            guard ["legacy", "framed"].contains(remoteFraming) else { throw UsageError("--remote-framing takes legacy or framed, not '\(remoteFraming)'") }
            if let remotePadding, (try? RSAEncryptionPadding(name: remotePadding)) == nil {
                throw UsageError("--remote-padding takes pkcs1, oaep-sha1 or oaep-sha256, not '\(remotePadding)'")
            }
        }
    }

    func run() throws -> ExitCode {
        if let writeCorpus {
            let count: Int
            do { count = try FuzzCorpus.write(to: URL(fileURLWithPath: writeCorpus)) } catch {
                throw CommandExit(.cannotCreate, "crosscheck fuzz: cannot write the corpus to \(writeCorpus): \(error)")
            }
            print("wrote \(count) seed frames and the manifest to \(writeCorpus)")
            return .success
        }
        let families = self.families?.items ?? FrameFamily.allCases
        let seed = self.seed.value
        let saveDirectory = URL(fileURLWithPath: self.saveDirectory)
        let corpus: FuzzCorpus
        do { corpus = try FuzzCorpus(directory: corpusDirectory.map { URL(fileURLWithPath: $0) } ?? files.files.frames) } catch {
            throw CommandExit(.unavailable, "crosscheck fuzz: environment not ready: \(error)")
        }
        let interpreter = try files.interpreter()
        let pythonPeer = PythonPeer(interpreter: interpreter)
        let swiftPeer = plant.map { $0.peer() } ?? SwiftPeer()
        let quiet = report.quiet
        let latch = InterruptLatch()
        let started = Date()

        let outcome: FuzzReport
        var labels = ("swift", "python")
        if target == "inprocess" && server == nil {
            var options = FuzzOptions(seed: seed, frames: frames, families: families, deadline: deadline.value, saveDirectory: saveDirectory, plant: plant)
            // The rejection travels in each frame's setting, so a reproducer replays it.
            let generator = FrameGenerator(corpus: corpus, seed: seed, families: families,
                                           overrides: rsaRejection == .explicit ? [:] : ["rejection": rsaRejection.rawValue])
            let oracle = FuzzOracle(swift: swiftPeer, python: pythonPeer, corpus: corpus)
            if worker {
                // One worker of a --jobs run: chunks of frames from the parent, reports for it to merge.
                options.writesReproducers = false
                FuzzWorkers.serve(FuzzCampaign(generator: generator, options: options, oracle: oracle.run), options: options,
                                  shouldStop: { latch.interrupted })
                return .success
            }
            let jobs = min(self.jobs ?? ProcessInfo.processInfo.activeProcessorCount, frames)
            if !quiet { printError("crosscheck fuzz: \(frames) frames in-process, \(families.count) families, seed \(seed)" + (jobs > 1 ? ", \(jobs) worker processes" : "")) }
            if jobs > 1 {
                // The same command line again, its seed fixed (the last occurrence of an option wins), as a worker.
                let given = Array(CommandLine.arguments.dropFirst(2))
                outcome = FuzzWorkers.run(executable: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
                                          arguments: ["fuzz"] + given + ["--seed", String(seed), "--jobs", "1", "--quiet", "--worker"],
                                          jobs: jobs, options: options, shouldStop: { latch.interrupted },
                                          progress: { Self.progress($0, total: frames, quiet: quiet) })
            } else {
                let campaign = FuzzCampaign(generator: generator, options: options, oracle: oracle.run)
                outcome = campaign.run(shouldStop: { latch.interrupted }, progress: { Self.progress($0, total: frames, quiet: quiet) })
            }
        } else {
            let remoteTarget = try self.remoteTarget(interpreter: interpreter, quiet: quiet)
            labels = ("expected", "remote")
            let options = FuzzOptions(seed: seed, frames: frames, families: families, deadline: deadline.value, saveDirectory: saveDirectory,
                                      target: remoteTarget.address)
            let fuzzer: FuzzRemote
            do { fuzzer = try FuzzRemote(target: remoteTarget, corpus: corpus, python: pythonPeer, swift: swiftPeer, options: options) } catch {
                throw CommandExit(.unavailable, "crosscheck fuzz: \(error)")
            }
            if !quiet { printError("crosscheck fuzz: \(frames) frames to \(remoteTarget.address), families \(fuzzer.families.map(\.rawValue).joined(separator: ",")), seed \(seed)") }
            outcome = fuzzer.run(shouldStop: { latch.interrupted }, progress: { Self.progress($0, total: frames, quiet: quiet) })
        }
        let junit = Self.junitReport(outcome, versions: (try? pythonPeer.versions()) ?? [:])
        return try RunReport.finish(junit, interrupted: latch.interrupted, done: outcome.frames, planned: frames, started: started,
                                    junitPath: report.junit, summary: Self.summary(outcome, labels: labels))
    }

    /// The live server as the `--target` and `--remote-*` options describe it; a `--server`'s
    /// paddings and digest, where not given, are found by trying (`discover`).
    func remoteTarget(interpreter: PythonInterpreter, quiet: Bool) throws -> FuzzRemote.Target {
        var address = ServerAddress(host: "", port: 0)
        if server == nil {
            do { address = try ServerAddress(parsing: target, defaultPort: 9876) } catch { throw UsageError("--target: \(error)") }
        }
        var key: Data?
        if let remoteKey {
            guard let data = FileManager.default.contents(atPath: remoteKey) else {
                throw CommandExit(.noInput, "crosscheck fuzz: --remote-key \(remoteKey): no such file, or not readable")
            }
            key = data
        }
        var remote: FuzzRemote.Target
        do {
            remote = try FuzzRemote.Target(host: address.host, port: address.port, framing: remoteFraming, padding: remotePadding ?? "pkcs1",
                                           digest: remoteDigest, serverKeyPEM: key, maxMessage: remoteMaxMessage, rejection: remoteRejection)
        } catch {
            throw UsageError("\(error)")
        }
        if let remotePaddingPiToPhone {
            do { remote.piToPhonePadding = try RSAEncryptionPadding(name: remotePaddingPiToPhone) } catch {
                throw UsageError("--remote-padding-pi-to-phone takes pkcs1, oaep-sha1 or oaep-sha256, not '\(remotePaddingPiToPhone)'")
            }
        }
        if let server {
            let team = try TeamServerOptions.load(server, searchPath: serverPath, logPath: "reports/server.log", timeout: deadline.value,
                                                  interpreter: interpreter, command: "fuzz")
            remote.inProcess = team
            remote.inProcessSpec = TeamServerOptions.absolute(server)
            if remote.serverKeyPEM == nil { remote.serverKeyPEM = team.privateKeyPEM() }
            if remotePadding == nil || remotePaddingPiToPhone == nil || !remoteDigest {
                let found = discover(team, into: &remote)
                if !quiet { printError("crosscheck fuzz: \(found)") }
            }
        }
        return remote
    }

    /// The team's server's padding each way and its digest, found by the conversations `run
    /// --server` starts with; what was given stays as given. Says what it found, for the user.
    func discover(_ team: TeamServer, into remote: inout FuzzRemote.Target) -> String {
        var options = RemoteOptions()
        options.inProcess = team
        options.profile = .rsaSocket
        options.framing = remote.framing
        options.seed = seed.value
        let (discovered, steps) = RemoteRun.discover(ServerAddress(host: team.name, port: 0), options: options)
        var said: [String] = []
        if remotePadding == nil {
            if let found = discovered.paddings[.phoneToPi] {
                remote.padding = found
                said.append("phone-to-pi \(found)")
            } else {
                said.append("phone-to-pi: no padding completed a conversation (pkcs1 assumed)")
            }
        }
        if remotePaddingPiToPhone == nil, let found = discovered.paddings[.piToPhone] {
            if found != remote.padding { remote.piToPhonePadding = found }
            said.append("pi-to-phone \(found)")
        }
        if !remoteDigest {
            remote.digest = discovered.offersDigest
            said.append(discovered.offersDigest ? "the digest extension" : "no digest extension")
        }
        let failures = steps.compactMap { step -> String? in
            if case let .failed(message, _) = step.outcome { return "\(step.check.name): \(message)" }
            return nil
        }
        return "found by trying, as run --server does: \(said.joined(separator: ", ")) (--remote-padding, --remote-padding-pi-to-phone "
            + "and --remote-digest set them)" + (failures.isEmpty ? "" : "; " + failures.joined(separator: "; "))
    }

    /// `server=/path/server.py:Handler` → `server:Handler`, for testcase names.
    static func serverLabel(_ target: String) -> String {
        let spec = target.dropFirst("server=".count)
        guard let colon = spec.lastIndex(of: ":") else { return String(spec) }
        let file = URL(fileURLWithPath: String(spec[..<colon])).deletingPathExtension().lastPathComponent
        return file + spec[colon...]
    }

    static func progress(_ report: FuzzReport, total: Int, quiet: Bool) {
        guard !quiet else { return }
        printError(String(format: "  %d/%d frames, %.0f frames/s, %d failures (%d distinct)", report.frames, total, report.framesPerSecond,
                          report.disagreements + report.crashes + report.hangs + report.specViolations, report.failures.count))
    }

    static func summary(_ report: FuzzReport, labels: (String, String)) -> String {
        var lines = [String(format: "crosscheck fuzz: seed %llu, target %@%@", report.seed, report.target,
                            report.plant.map { ", PLANTED FLAW \($0.rawValue)" } ?? "")]
        lines.append("family                       frames  accepted  refused  disagree  spec  crash  hang  slowest")
        for family in FrameFamily.allCases {
            guard let stats = report.stats[family] else { continue }
            lines.append(family.rawValue.padding(toLength: 28, withPad: " ", startingAt: 0) + String(format: " %6d  %8d  %7d  %8d  %4d  %5d  %4d  %5.0f ms", stats.frames, stats.acceptedByBoth,
                                stats.refusedByBoth, stats.disagreements, stats.specViolations, stats.crashes, stats.hangs,
                                stats.slowestSeconds * 1000))
        }
        lines.append(String(format: "%d frames in %.1f s: %.0f frames/s; peak memory %.1f MiB%@; %d disagreements, %d spec violations, %d crashes, %d hangs",
                            report.frames, report.elapsed, report.framesPerSecond, Double(report.peakResidentKiB) / 1024,
                            report.processes > 1 ? " per process, \(report.processes) worker processes" : "",
                            report.disagreements, report.specViolations, report.crashes, report.hangs))
        let idle = report.stats.flatMap { family, stats in
            stats.mutators.filter { $0.value.frames > 0 && $0.value.unchanged == $0.value.frames }.map { "\(family.rawValue)/\($0.key)" }
        }.sorted()
        if !idle.isEmpty { lines.append("mutators that changed none of their frames: \(idle.joined(separator: ", "))") }
        for lost in report.lostWorkers { lines.append("LOST: \(lost)") }
        if !report.failures.isEmpty {
            lines.append("\n\(report.failures.count) distinct failures:")
            for failure in report.failures { lines.append(FuzzText.describe(failure, labels: labels) + "\n") }
        }
        if report.stopped { lines.append("(interrupted: partial results)") }
        return lines.joined(separator: "\n")
    }

    /// One testcase per family (passed; counts as properties) and one failing testcase per distinct failure.
    static func junitReport(_ report: FuzzReport, versions: [String: String]) -> JUnitReport {
        let relation = report.target == "inprocess" ? "swift_vs_python"
            : report.target.hasPrefix("server=") ? "python_vs_server.\(Self.serverLabel(report.target))" : "python_vs_remote"
        var cases: [JUnitCase] = []
        for family in FrameFamily.allCases {
            guard let stats = report.stats[family] else { continue }
            let classname = "crosscheck.\(family.profile).\(relation)"
            let properties: [(String, String)] = [
                ("frames", "\(stats.frames)"), ("accepted-by-both", "\(stats.acceptedByBoth)"), ("refused-by-both", "\(stats.refusedByBoth)"),
                ("disagreements", "\(stats.disagreements)"), ("spec-violations", "\(stats.specViolations)"),
                ("crashes", "\(stats.crashes)"), ("hangs", "\(stats.hangs)"),
                ("distinct-failures", "\(report.failures.filter { $0.family == family }.count)"), ("mutators", "\(stats.mutators.count)"),
                ("slowest-ms", String(format: "%.1f", stats.slowestSeconds * 1000)),
            ] + stats.mutators.sorted { $0.key < $1.key }.map { ("mutator.\($0.key)", $0.value.line) }
            cases.append(JUnitCase(name: family.rawValue, classname: classname, time: stats.seconds, outcome: .passed,
                                   properties: properties.map { JUnitProperty(name: $0.0, value: $0.1) }))
        }
        for failure in report.failures {
            let classname = "crosscheck.\(failure.family.profile).\(relation)"
            let message = "\(failure.count) frame(s): \(failure.swift.line.prefix(200)) / \(failure.python.line.prefix(200))"
            let labels = report.target == "inprocess" ? ("swift", "python") : ("expected", "remote")
            cases.append(JUnitCase(name: "\(failure.family.rawValue).\(failure.name)", classname: classname,
                                   outcome: .failed(message: message, type: failure.kind, details: FuzzText.describe(failure, labels: labels)),
                                   properties: [JUnitProperty(name: "frames", value: "\(failure.count)"),
                                                JUnitProperty(name: "reproducer", value: failure.reproducer?.path ?? "")]))
        }
        for (number, lost) in report.lostWorkers.enumerated() {
            cases.append(JUnitCase(name: "worker-\(number + 1)", classname: "crosscheck.fuzz.workers", outcome: .error(message: lost, type: "lost-worker", details: lost)))
        }
        var properties = [
            ("crosscheck.seed", "\(report.seed)"), ("crosscheck.target", report.target), ("crosscheck.frames", "\(report.frames)"),
            ("crosscheck.processes", "\(report.processes)"),
            ("crosscheck.frames-per-second", String(format: "%.0f", report.framesPerSecond)),
            ("crosscheck.peak-memory-kib", "\(report.peakResidentKiB)"),
            ("swift.openssl", OpenSSLInfo.version), ("swift.rsa-pkcs1-rejection", PKCS1Rejection.description),
            ("python.cryptography", versions["cryptography"] ?? "unknown"),
            ("python.cryptography-generation", FuzzOracle.pycaGeneration(versions["cryptography"] ?? "")),
            ("python.openssl", versions["openssl"] ?? "unknown"),
        ]
        if let plant = report.plant { properties.append(("crosscheck.planted-flaw", plant.rawValue)) }
        let suite = JUnitSuite(name: "fuzz.\(relation)", package: "crosscheck.fuzz", timestamp: Date(), hostname: ProcessInfo.processInfo.hostName,
                               properties: properties.map { JUnitProperty(name: $0.0, value: $0.1) }, cases: cases)
        return JUnitReport(suites: [suite])
    }
}
