import Foundation
import CommandLineKit
import Conformance
import Frames
import Fuzzing
import Transport
import PythonBridge

/// `crosscheck replay FILE`: one saved fuzz failure, run again alone.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "replay", abstract: "Re-run one fuzz reproducer (reports/fuzz-failures/*.json): exit 1 while it still fails, 0 once fixed.",
        synopsis: ["[--without-plant] [--corpus DIR] [--remote-key FILE] [--target HOST:PORT] FILE"],
        discussion: """
        Reads a reproducer written by 'crosscheck fuzz' (or the fuzz suite), feeds its frame to both
        implementations in-process (or to the server it was found on), and prints both verdicts. A
        reproducer without frame bytes (written when the process died on a signal) is regenerated from
        its seed, family and ordinal with the seed corpus.
        """,
        exitCodes: [.success, .checksFailed, .usage, .noInput, .unavailable],
        exitNotes: [.success: "both agree now (fixed)", .checksFailed: "it still fails",
                    .noInput: "FILE (or --remote-key) is missing, unreadable or not a reproducer"])

    @Flag(name: "--without-plant", help: "replay against the real Swift side even if the reproducer was found with a planted flaw (re-planted by default)")
    var withoutPlant: Bool
    @Option(name: "--corpus", value: "DIR", help: "seed corpus, for regenerating a frame (default: the frames/ of the Vectors folder)")
    var corpusDirectory: String?
    @Option(name: "--target", value: "HOST:PORT", help: "send to this server instead of the one the reproducer names")
    var targetOverride: String?
    @Option(name: "--remote-key", value: "FILE", help: "the server's private key (a remote reproducer's expected answer needs it)")
    var keyFile: String?
    @OptionGroup var files: FilesOptions
    @Positionals(value: "FILE", help: "the reproducer")
    var paths: [String]
    init() {}

    func validate() throws {
        guard paths.count == 1 else { throw UsageError("name exactly one reproducer FILE") }
        if let targetOverride, targetOverride != "inprocess", !targetOverride.hasPrefix("server=") {
            do { _ = try ServerAddress(parsing: targetOverride, defaultPort: 9876) } catch { throw UsageError("--target: \(error)") }
        }
    }

    func run() throws -> ExitCode {
        let file = paths[0]
        let reproducer: FuzzReproducer
        do { reproducer = try FuzzReproducer.load(URL(fileURLWithPath: file)) } catch {
            throw CommandExit(.noInput, "crosscheck replay: \(error)")
        }
        let corpusDirectory = self.corpusDirectory.map { URL(fileURLWithPath: $0) } ?? files.files.frames
        func corpus() throws -> FuzzCorpus {
            do { return try FuzzCorpus(directory: corpusDirectory) } catch {
                throw CommandExit(.unavailable, "crosscheck replay: environment not ready: \(error)")
            }
        }
        let frame = try reproducer.fuzzFrame(corpus: try corpus())
        let interpreter = try files.interpreter()
        let pythonPeer = PythonPeer(interpreter: interpreter)
        let plant = withoutPlant ? nil : reproducer.plantedFlaw
        let swiftPeer = plant.map { $0.peer() } ?? SwiftPeer()
        let targetText = targetOverride ?? reproducer.target

        print("reproducer: \(file) (\(reproducer.kind), seed \(reproducer.seed), \(reproducer.family.rawValue) #\(reproducer.ordinal), mutator \(frame.mutator))")
        if let plant { print("planted flaw: \(plant.rawValue) (TEST ONLY; --without-plant replays the real Swift side)") }
        print("frame: \(frame.length) bytes \(FuzzText.preview(frame.bytes))\(frame.tail.map { " + \($0.count) × 0x\(String(format: "%02x", $0.byte))" } ?? "")")
        print("setting: \(frame.setting.fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.prefix(64))" }.joined(separator: " "))")
        if let swift = reproducer.swift, let pythonLine = reproducer.python { print("when saved:\n  \(swift)\n  \(pythonLine)") }

        let verdicts: (swift: FuzzVerdict, python: FuzzVerdict)
        var labels = ("swift", "python")
        if targetText == "inprocess" {
            verdicts = FuzzOracle(swift: swiftPeer, python: pythonPeer, corpus: try corpus()).run(frame)
        } else {
            labels = ("expected", "remote")
            var address = ServerAddress(host: "", port: 0)
            let teamServer = targetText.hasPrefix("server=")
                ? try TeamServerOptions.load(String(targetText.dropFirst("server=".count)), searchPath: nil, logPath: "reports/server.log",
                                             timeout: 5, interpreter: interpreter, command: "replay")
                : nil
            if teamServer == nil {
                do { address = try ServerAddress(parsing: targetText, defaultPort: 9876) } catch {
                    throw CommandExit(.noInput, "crosscheck replay: the reproducer's target '\(targetText)': \(error)")
                }
            }
            let key = try keyFile.map { file -> Data in
                do { return try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
                    throw CommandExit(.noInput, "crosscheck replay: cannot read --remote-key \(file)")
                }
            }
            var target = try FuzzRemote.Target(host: address.host, port: address.port, framing: frame.setting["framing"] ?? "legacy",
                                               padding: frame.setting["padding"] ?? "pkcs1", digest: frame.setting["digest"] == "1",
                                               serverKeyPEM: key, maxMessage: Int(frame.setting["maxMessage"] ?? "") ?? 65536)
            if let teamServer {
                // Its key is the one it holds now: a key made at import is a new one, so a frame
                // built for the old key replays as the same family of input, not the same bytes' meaning.
                target.inProcess = teamServer
                target.inProcessSpec = String(targetText.dropFirst("server=".count))
                if target.serverKeyPEM == nil { target.serverKeyPEM = teamServer.privateKeyPEM() }
            }
            let options = FuzzOptions(seed: reproducer.seed, frames: 1, families: [frame.family], saveDirectory: nil, target: target.address)
            let remote = try FuzzRemote(target: target, corpus: try corpus(), python: pythonPeer, swift: swiftPeer, options: options)
            verdicts = remote.verdicts(frame)
        }
        let finding = FuzzOracle.judge(frame, swift: verdicts.swift, python: verdicts.python)
        print("now:")
        print("  \(labels.0): \(verdicts.swift.line)\(verdicts.swift.note.isEmpty ? "" : " — " + String(verdicts.swift.note.prefix(400)))")
        print("  \(labels.1): \(verdicts.python.line)\(verdicts.python.note.isEmpty ? "" : " — " + String(verdicts.python.note.prefix(400)))")
        switch finding {
        case .agreed:
            print("result: agreement (fixed)")
            return .success
        case .specViolation:
            print("result: still against the specification (\(frame.spec.map { "\($0.answer.rawValue): \($0.clause)" } ?? "a message sent in the clear"))")
            return .checksFailed
        case .disagreement, .crash, .hang:
            print("result: still a \(finding == .crash ? "crash" : "disagreement")")
            return .checksFailed
        }
    }
}
