import Foundation
import Conformance
import Frames
import Fuzzing
import Transport
import PythonBridge
import Reports
import WireCrypto

/// `crosscheck fuzz`: differential fuzzing of malformed frames, Swift against PythonRef in-process,
/// or malformed rsa-socket frames against a live server.
enum FuzzCommand: Command {
    static let name = "fuzz"
    static let abstract = "Differential fuzzing: malformed frames to Swift and PythonRef (or a live server); every disagreement saved."
    static var usage: String {
        """
        USAGE: crosscheck fuzz [--frames N] [--seed S] [--target inprocess|HOST:PORT] [--corpus DIR]
                               [--save-failures DIR] [--junit PATH] [--family LIST] [--deadline SECONDS] [--quiet]
               crosscheck fuzz --write-corpus DIR

        Generates N malformed frames (structured mutators of every frame in docs/PROTOCOL.md, plus random
        byte mutation of the seed corpus) and feeds each to the Swift implementation and to PythonRef. Both
        must accept with the same result or refuse the same way (the error-equivalence map is
        Sources/Conformance/Fuzz/ErrorMap.swift); a disagreement, a crash, an uncaught Python exception or
        a frame over its deadline is a failure, saved as a reproducer that 'crosscheck replay FILE' reruns.
        The same seed gives the same frames.

        OPTIONS:
          --frames N          how many frames (default 10000), spread evenly over the families
          --seed S            seed (default: random; printed, and recorded in reports and reproducers)
          --target T          inprocess (default), or HOST:PORT of a running rsa-socket server: malformed
                              frames over TCP, each answer checked against PythonRef's in-process answer
                              (exactly `Server: ERROR` and a close for a malformed frame), and a good
                              conversation after each family (liveness)
          --remote-framing F  legacy (default) or framed: how the target server frames messages
          --remote-padding P  pkcs1 (default), oaep-sha1 or oaep-sha256: the target server's padding
          --remote-digest     the target server answers `Server: OK sha256=…`
          --remote-key FILE   the target server's private key (e.g. Vectors/frames/keys/fuzz-rsa1024.pem,
                              as the test starts it); without it only rsa-socket.client-key frames are sent
          --remote-max-message N  the target server's message limit (default 65536)
          --corpus DIR        seed corpus (default Vectors/frames)
          --save-failures DIR where reproducers go (default reports/fuzz-failures)
          --junit PATH        write a JUnit report: one testcase per family with counts as properties, one
                              failing testcase per distinct failure (family and verdict pair)
          --family LIST       comma-separated families (default all): \(FrameFamily.allCases.map(\.rawValue).joined(separator: ", "))
          --deadline S        seconds one frame may take (default 5); a frame still running at 3× ends the run
          --write-corpus DIR  write a fresh seed corpus (keys are kept when present) and exit
          --plant FLAW        TEST ONLY: run a deliberately broken Swift side (\(PlantedFlaw.allCases.map(\.rawValue).joined(separator: ", ")))
          --quiet             no progress lines
        \(PythonOptions.help)
          -h, --help          show this help

        EXIT STATUS: 0 no failure, 1 a failure was found, 64 usage error, 69 environment not ready (no corpus,
        no Python), 73 report not writable, 130 interrupted (a partial report is written first).
        """
    }

    static func run(_ arguments: inout Arguments) throws -> ExitCode {
        if let directory = try arguments.option("--write-corpus") {
            try arguments.noPositionals()
            let count = try FuzzCorpus.write(to: URL(fileURLWithPath: directory))
            print("wrote \(count) seed frames and the manifest to \(directory)")
            return .success
        }
        let frames = try arguments.integer("--frames") ?? 10_000
        guard frames > 0 else { throw CommandExit.usage("--frames must be positive", command: self) }
        let seed = try arguments.integer("--seed", as: UInt64.self) ?? UInt64.random(in: 1...999_999)
        let targetText = try arguments.option("--target") ?? "inprocess"
        let corpusDirectory = try arguments.option("--corpus").map { URL(fileURLWithPath: $0) } ?? FuzzCorpus.defaultDirectory
        let saveDirectory = URL(fileURLWithPath: try arguments.option("--save-failures") ?? "reports/fuzz-failures")
        let junitPath = try arguments.option("--junit")
        let familyList = try arguments.option("--family")
        let deadlineText = try arguments.option("--deadline")
        let plantText = try arguments.option("--plant")
        let remote = try FuzzRemoteArguments(&arguments)
        let quiet = arguments.flag("--quiet")
        let python = try PythonOptions(&arguments)
        try arguments.noPositionals()

        var families = FrameFamily.allCases
        if let familyList {
            families = try familyList.split(separator: ",").map { name in
                guard let family = FrameFamily(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                    throw CommandExit.usage("unknown family '\(name)'; known: \(FrameFamily.allCases.map(\.rawValue).joined(separator: ", "))", command: self)
                }
                return family
            }
        }
        var deadline: TimeInterval = 5
        if let deadlineText {
            guard let value = TimeInterval(deadlineText), value > 0 else { throw CommandExit.usage("--deadline takes positive seconds, not '\(deadlineText)'", command: self) }
            deadline = value
        }
        var plant: PlantedFlaw?
        if let plantText {
            guard let flaw = PlantedFlaw(rawValue: plantText) else {
                throw CommandExit.usage("unknown --plant '\(plantText)'; known: \(PlantedFlaw.allCases.map(\.rawValue).joined(separator: ", "))", command: self)
            }
            plant = flaw
        }

        let corpus: FuzzCorpus
        do { corpus = try FuzzCorpus(directory: corpusDirectory) } catch {
            throw CommandExit(code: .unavailable, message: "crosscheck fuzz: environment not ready: \(error)")
        }
        let interpreter = try python.interpreter()
        let pythonPeer = PythonPeer(interpreter: interpreter)
        let swiftPeer = plant.map { $0.peer() } ?? SwiftPeer()
        let latch = InterruptLatch()

        let report: FuzzReport
        var labels = ("swift", "python")
        if targetText == "inprocess" {
            let options = FuzzOptions(seed: seed, frames: frames, families: families, deadline: deadline, saveDirectory: saveDirectory, plant: plant)
            let oracle = FuzzOracle(swift: swiftPeer, python: pythonPeer, corpus: corpus)
            if !quiet { printError("crosscheck fuzz: \(frames) frames in-process, \(families.count) families, seed \(seed)") }
            let campaign = FuzzCampaign(generator: FrameGenerator(corpus: corpus, seed: seed, families: families), options: options, oracle: oracle.run)
            report = campaign.run(shouldStop: { latch.interrupted }, progress: { progress($0, total: frames, quiet: quiet) })
        } else {
            let target: FuzzRemote.Target
            do { target = try remote.target(targetText) } catch let error as CommandExit { throw error } catch {
                throw CommandExit.usage("\(error)", command: self)
            }
            labels = ("expected", "remote")
            let options = FuzzOptions(seed: seed, frames: frames, families: families, deadline: deadline, saveDirectory: saveDirectory,
                                      target: target.address)
            let fuzzer: FuzzRemote
            do { fuzzer = try FuzzRemote(target: target, corpus: corpus, python: pythonPeer, swift: swiftPeer, options: options) } catch {
                throw CommandExit(code: .unavailable, message: "crosscheck fuzz: \(error)")
            }
            if !quiet { printError("crosscheck fuzz: \(frames) frames to \(target.address), families \(fuzzer.families.map(\.rawValue).joined(separator: ",")), seed \(seed)") }
            report = fuzzer.run(shouldStop: { latch.interrupted }, progress: { progress($0, total: frames, quiet: quiet) })
        }

        print(summary(report, labels: labels))
        if let junitPath {
            let junit = junitReport(report, versions: (try? pythonPeer.versions()) ?? [:])
            do { try JUnitXML.write(junit, to: URL(fileURLWithPath: junitPath)) } catch {
                throw CommandExit(code: .cannotCreate, message: "crosscheck: \(error)")
            }
            print("JUnit report: \(URL(fileURLWithPath: junitPath).path)")
        }
        if latch.interrupted { return .interrupted }
        return report.clean ? .success : .checksFailed
    }

    static func progress(_ report: FuzzReport, total: Int, quiet: Bool) {
        guard !quiet else { return }
        printError(String(format: "  %d/%d frames, %.0f frames/s, %d failures (%d distinct)", report.frames, total, report.framesPerSecond,
                          report.disagreements + report.crashes + report.hangs, report.failures.count))
    }

    static func summary(_ report: FuzzReport, labels: (String, String)) -> String {
        var lines = [String(format: "crosscheck fuzz: seed %llu, target %@%@", report.seed, report.target,
                            report.plant.map { ", PLANTED FLAW \($0.rawValue)" } ?? "")]
        lines.append("family                       frames  accepted  refused  explained  disagree  crash  hang  slowest")
        for family in FrameFamily.allCases {
            guard let stats = report.stats[family] else { continue }
            lines.append(family.rawValue.padding(toLength: 28, withPad: " ", startingAt: 0) + String(format: " %6d  %8d  %7d  %9d  %8d  %5d  %4d  %5.0f ms", stats.frames, stats.acceptedByBoth,
                                stats.refusedByBoth, stats.explained.values.reduce(0, +), stats.disagreements, stats.crashes, stats.hangs,
                                stats.slowestSeconds * 1000))
        }
        lines.append(String(format: "%d frames in %.1f s: %.0f frames/s; peak memory %.1f MiB; %d disagreements, %d crashes, %d hangs, %d explained by the error map",
                            report.frames, report.elapsed, report.framesPerSecond, Double(report.peakResidentKiB) / 1024,
                            report.disagreements, report.crashes, report.hangs, report.explained))
        if !report.failures.isEmpty {
            lines.append("\n\(report.failures.count) distinct failures:")
            for failure in report.failures { lines.append(FuzzText.describe(failure, labels: labels) + "\n") }
        }
        if report.stopped { lines.append("(interrupted: partial results)") }
        return lines.joined(separator: "\n")
    }

    /// One testcase per family (passed; counts as properties) and one failing testcase per distinct failure.
    static func junitReport(_ report: FuzzReport, versions: [String: String]) -> JUnitReport {
        let relation = report.target == "inprocess" ? "swift_vs_python" : "python_vs_remote"
        var cases: [JUnitCase] = []
        for family in FrameFamily.allCases {
            guard let stats = report.stats[family] else { continue }
            let classname = "crosscheck.\(family.profile).\(relation)"
            let properties: [(String, String)] = [
                ("frames", "\(stats.frames)"), ("accepted-by-both", "\(stats.acceptedByBoth)"), ("refused-by-both", "\(stats.refusedByBoth)"),
                ("explained-by-error-map", "\(stats.explained.values.reduce(0, +))"), ("disagreements", "\(stats.disagreements)"),
                ("crashes", "\(stats.crashes)"), ("hangs", "\(stats.hangs)"),
                ("distinct-failures", "\(report.failures.filter { $0.family == family }.count)"), ("mutators", "\(stats.mutators.count)"),
                ("slowest-ms", String(format: "%.1f", stats.slowestSeconds * 1000)),
            ]
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
        var properties = [
            ("crosscheck.seed", "\(report.seed)"), ("crosscheck.target", report.target), ("crosscheck.frames", "\(report.frames)"),
            ("crosscheck.frames-per-second", String(format: "%.0f", report.framesPerSecond)),
            ("crosscheck.peak-memory-kib", "\(report.peakResidentKiB)"), ("crosscheck.error-map-rules", "\(FuzzErrorMap.rules.count)"),
            ("swift.openssl", OpenSSLInfo.version), ("python.cryptography", versions["cryptography"] ?? "unknown"),
            ("python.openssl", versions["openssl"] ?? "unknown"),
        ]
        if let plant = report.plant { properties.append(("crosscheck.planted-flaw", plant.rawValue)) }
        if report.stopped { properties.append(("crosscheck.partial", "interrupted after \(report.frames) frames")) }
        let suite = JUnitSuite(name: "fuzz.\(relation)", package: "crosscheck.fuzz", timestamp: Date(), hostname: ProcessInfo.processInfo.hostName,
                               properties: properties.map { JUnitProperty(name: $0.0, value: $0.1) }, cases: cases)
        return JUnitReport(suites: [suite])
    }
}

/// The `--remote-*` options: how the target server is configured.
struct FuzzRemoteArguments {
    var framing: String?
    var padding: String?
    var digest: Bool
    var keyFile: String?
    var maxMessage: Int?

    init(_ arguments: inout Arguments) throws {
        framing = try arguments.option("--remote-framing")
        padding = try arguments.option("--remote-padding")
        digest = arguments.flag("--remote-digest")
        keyFile = try arguments.option("--remote-key")
        maxMessage = try arguments.integer("--remote-max-message")
    }

    func target(_ text: String) throws -> FuzzRemote.Target {
        let address = try ServerAddress(parsing: text, defaultPort: 9876)
        var key: Data?
        if let keyFile {
            do { key = try Data(contentsOf: URL(fileURLWithPath: keyFile)) } catch {
                throw CommandExit(code: .usage, message: "crosscheck fuzz: cannot read --remote-key \(keyFile)")
            }
        }
        return try FuzzRemote.Target(host: address.host, port: address.port, framing: framing ?? "legacy", padding: padding ?? "pkcs1",
                                     digest: digest, serverKeyPEM: key, maxMessage: maxMessage ?? 65536)
    }
}
