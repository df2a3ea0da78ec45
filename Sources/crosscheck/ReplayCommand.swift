import Foundation
import Conformance
import Frames
import Fuzzing
import Transport
import PythonBridge

/// `crosscheck replay FILE`: one saved fuzz failure, run again alone.
enum ReplayCommand: Command {
    static let name = "replay"
    static let abstract = "Re-run one fuzz reproducer (reports/fuzz-failures/*.json): exit 1 while it still fails, 0 once fixed."
    static var usage: String {
        """
        USAGE: crosscheck replay [--without-plant] [--corpus DIR] [--remote-key FILE] [--target HOST:PORT] FILE

        Reads a reproducer written by 'crosscheck fuzz' (or the fuzz suite), feeds its frame to both
        implementations in-process (or to the server it was found on), and prints both verdicts. A
        reproducer without frame bytes (written when the process died on a signal) is regenerated from
        its seed, family and ordinal with the seed corpus.

        OPTIONS:
          --without-plant     replay against the real Swift side even if the reproducer was found with a
                              planted flaw (which is re-planted by default)
          --corpus DIR        seed corpus, for regenerating a frame (default Vectors/frames)
          --target HOST:PORT  send to this server instead of the one the reproducer names
          --remote-key FILE   the server's private key (a remote reproducer's expected answer needs it)
        \(PythonOptions.help)
          -h, --help          show this help

        EXIT STATUS: 0 both agree now (fixed), 1 it still fails, 64 usage error, 69 environment not ready.
        """
    }

    static func run(_ arguments: inout Arguments) throws -> ExitCode {
        let withoutPlant = arguments.flag("--without-plant")
        let corpusDirectory = try arguments.option("--corpus").map { URL(fileURLWithPath: $0) } ?? FuzzCorpus.defaultDirectory
        let targetOverride = try arguments.option("--target")
        let keyFile = try arguments.option("--remote-key")
        let python = try PythonOptions(&arguments)
        let files = try arguments.positionals()
        guard files.count == 1 else { throw CommandExit.usage("name exactly one reproducer FILE", command: self) }

        let reproducer: FuzzReproducer
        do { reproducer = try FuzzReproducer.load(URL(fileURLWithPath: files[0])) } catch {
            throw CommandExit(code: .usage, message: "crosscheck replay: \(error)")
        }
        func corpus() throws -> FuzzCorpus {
            do { return try FuzzCorpus(directory: corpusDirectory) } catch {
                throw CommandExit(code: .unavailable, message: "crosscheck replay: environment not ready: \(error)")
            }
        }
        let frame = try reproducer.fuzzFrame(corpus: try corpus())
        let interpreter = try python.interpreter()
        let pythonPeer = PythonPeer(interpreter: interpreter)
        let plant = withoutPlant ? nil : reproducer.plantedFlaw
        let swiftPeer = plant.map { $0.peer() } ?? SwiftPeer()
        let targetText = targetOverride ?? reproducer.target

        print("reproducer: \(files[0]) (\(reproducer.kind), seed \(reproducer.seed), \(reproducer.family.rawValue) #\(reproducer.ordinal), mutator \(frame.mutator))")
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
            let address: ServerAddress
            do { address = try ServerAddress(parsing: targetText, defaultPort: 9876) } catch {
                throw CommandExit.usage("\(error)", command: self)
            }
            let key = try keyFile.map { file -> Data in
                do { return try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
                    throw CommandExit(code: .usage, message: "crosscheck replay: cannot read --remote-key \(file)")
                }
            }
            let target = try FuzzRemote.Target(host: address.host, port: address.port, framing: frame.setting["framing"] ?? "legacy",
                                               padding: frame.setting["padding"] ?? "pkcs1", digest: frame.setting["digest"] == "1",
                                               serverKeyPEM: key, maxMessage: Int(frame.setting["maxMessage"] ?? "") ?? 65536)
            let options = FuzzOptions(seed: reproducer.seed, frames: 1, families: [frame.family], saveDirectory: nil, target: target.address)
            let remote = try FuzzRemote(target: target, corpus: try corpus(), python: pythonPeer, swift: swiftPeer, options: options)
            verdicts = remote.verdicts(frame)
        }
        let finding = FuzzOracle.judge(frame.family, swift: verdicts.swift, python: verdicts.python)
        print("now:")
        print("  \(labels.0): \(verdicts.swift.line)\(verdicts.swift.note.isEmpty ? "" : " — " + String(verdicts.swift.note.prefix(400)))")
        print("  \(labels.1): \(verdicts.python.line)\(verdicts.python.note.isEmpty ? "" : " — " + String(verdicts.python.note.prefix(400)))")
        switch finding {
        case .agreed:
            print("result: agreement (fixed)")
            return .success
        case let .explained(rule):
            print("result: agreement under the error-equivalence map (\(rule))")
            return .success
        case .disagreement, .crash, .hang:
            print("result: still a \(finding == .crash ? "crash" : "disagreement")")
            return .checksFailed
        }
    }
}
