import Foundation
import Conformance
import Frames
import PythonBridge
import WireCrypto
#if canImport(Glibc)
import Glibc
#endif

/// Coverage-guided differential fuzzing, as Cryptofuzz does it: libFuzzer mutates inputs to keep
/// those that reach new Swift code, and every input is judged by the same oracle as `crosscheck
/// fuzz` (`FuzzOracle`: the frame to the Swift side and to PythonRef in this process, their answers
/// compared through the error-equivalence kinds, `FuzzOracle.judge`), not only "did it crash".
/// `make libfuzzer TARGET=differential`.
///
/// An input is a frame with its family and setting: byte 0 picks the family, byte 1 one of the
/// settings the seed corpus (`Vectors/frames/manifest.json`) has for that family, byte 2 varies
/// that setting as Cryptofuzz varies an operation's parameters (rsa-socket: padding, framing,
/// digest, key, delivery in pieces; CBC: IV and key lengths; AEAD: key length, associated data;
/// key derivation: the mode; private keys: the passphrase), the rest is the frame.
/// Every corpus frame is written as such an input to the seed folder when the target starts.
/// A disagreement, crash or uncaught Python exception is saved once per verdict pair as a
/// `crosscheck replay` reproducer (the frame and setting inside, so no seed is needed) and the
/// fuzzing goes on; `CROSSCHECK_FUZZ_ABORT=1` makes the first one abort instead, so libFuzzer saves
/// the input as a crash artifact and stops. `CROSSCHECK_FUZZ_PLANT=FLAW` (TEST ONLY) runs a
/// deliberately broken Swift side, to see the target find it.
public final class DifferentialTarget: @unchecked Sendable {
    let oracle: FuzzOracle
    let corpus: FuzzCorpus
    let settings: [FrameFamily: [FuzzSetting]]
    let findings: URL
    let abortOnFinding: Bool
    let plant: PlantedFlaw?
    private var saved: Set<String> = []
    public private(set) var inputs = 0
    public private(set) var disagreements = 0

    static let families = FrameFamily.allCases

    public init(files: ProjectFiles = ProjectFiles.locate(), findings: URL, abortOnFinding: Bool = false, plant: PlantedFlaw? = nil) throws {
        corpus = try FuzzCorpus(directory: files.frames)
        let interpreter = try PythonInterpreter.shared(pythonRefDirectory: files.pythonRef.path)
        oracle = FuzzOracle(swift: plant.map { $0.peer() } ?? SwiftPeer(), python: PythonPeer(interpreter: interpreter), corpus: corpus)
        self.plant = plant
        var settings: [FrameFamily: [FuzzSetting]] = [:]
        for (family, frames) in corpus.frames { settings[family] = frames.map(\.entry.setting) }
        self.settings = settings
        self.findings = findings
        self.abortOnFinding = abortOnFinding
    }

    /// The frame an input stands for.
    public func frame(from input: Data) -> FuzzFrame {
        let bytes = [UInt8](input.prefix(3)) + [UInt8](repeating: 0, count: max(0, 3 - input.count))
        let family = Self.families[Int(bytes[0]) % Self.families.count]
        let known = settings[family] ?? []
        var setting = known.isEmpty ? FuzzSetting() : known[Int(bytes[1]) % known.count]
        Self.vary(&setting, of: family, bytes[2])
        return FuzzFrame(family: family, mutator: "libfuzzer", bytes: Data(input.dropFirst(3)), setting: setting)
    }

    /// The setting fields the variation byte overrides, two bits at a time (0 keeps the corpus's).
    static func vary(_ setting: inout FuzzSetting, of family: FrameFamily, _ byte: UInt8) {
        guard byte != 0 else { return }
        let low = byte & 3, second = (byte >> 2) & 3, third = (byte >> 4) & 3, high = (byte >> 6) & 3
        func shorten(_ field: String, by cut: Int) {
            if cut > 0, let value = setting.data(field) { setting.setData(field, value.dropLast(min(cut, value.count))) }
        }
        switch family {
        case .conversation, .clientKey, .encrypted, .framed, .serverKey, .ciphertext:
            switch low { case 1: setting["padding"] = "pkcs1"; case 2: setting["padding"] = "oaep-sha1"; case 3: setting["padding"] = "oaep-sha256"; default: break }
            switch second { case 1: setting["framing"] = "legacy"; case 2: setting["framing"] = "framed"; default: break }
            switch third { case 1: setting["digest"] = setting["digest"] == "1" ? "0" : "1"; case 2: setting["key"] = FuzzCorpus.keyNames[1]; default: break }
            switch high { case 1: setting["chunk"] = "1"; case 2: setting["chunk"] = "7"; case 3: setting["chunk"] = "0"; default: break }
        case .cbc:
            shorten("iv", by: [0, 1, 2, 16][Int(low)])
            shorten("symKey", by: [0, 1, 8, 16][Int(second)])
        case .envelope:
            shorten("symKey", by: [0, 1, 8, 16][Int(low)])
        case .aesGCM, .chaChaPoly:
            shorten("symKey", by: [0, 1, 8, 16][Int(low)])
            if second == 1 { setting["aad"] = nil } else if second == 2 { setting.setData("aad", Data("aad".utf8)) }
        case .kdf:
            if low != 0 { setting["mode"] = KeyDerivationMode.allCases[Int(low) % KeyDerivationMode.allCases.count].rawValue }
        case .privateKey:
            if low == 1 { setting["passphrase"] = nil } else if low == 2 { setting.setData("passphrase", Data("fuzz passphrase".utf8)) }
        case .publicKey, .httpsServer:
            break
        }
    }

    /// The input that stands for a corpus frame as it is (its family, its own setting, no variation).
    public func seedInputs() -> [Data] {
        var inputs: [Data] = []
        for (familyIndex, family) in Self.families.enumerated() {
            for (settingIndex, frame) in (corpus.frames[family] ?? []).enumerated() {
                inputs.append(Data([UInt8(familyIndex), UInt8(settingIndex % 256), 0]) + frame.bytes)
            }
        }
        return inputs
    }

    /// Writes the seed inputs into `directory` (for libFuzzer to read as a corpus folder).
    public func writeSeeds(to directory: URL) throws -> Int {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let seeds = seedInputs()
        for (number, seed) in seeds.enumerated() {
            try seed.write(to: directory.appendingPathComponent(String(format: "seed-%04d", number)))
        }
        return seeds.count
    }

    /// Judges one input; saves a reproducer for each new distinct failure.
    public func run(_ input: Data) {
        inputs += 1
        let frame = frame(from: input)
        let verdicts = oracle.run(frame)
        let finding = FuzzOracle.judge(frame, swift: verdicts.swift, python: verdicts.python)
        guard finding != .agreed else { return }
        disagreements += 1
        let kind = finding == .crash ? "crash" : finding == .specViolation ? "spec" : "disagreement"
        let key = DistinctFailure.key(frame.family, kind, frame.baseMutator, verdicts.swift.summary, verdicts.python.summary)
        guard !saved.contains(key) else { return }
        saved.insert(key)
        var failure = DistinctFailure(family: frame.family, kind: kind, swiftSummary: verdicts.swift.summary, pythonSummary: verdicts.python.summary,
                                      count: 1, example: frame, ordinal: -1, swift: verdicts.swift, python: verdicts.python)
        let options = FuzzOptions(seed: 0, frames: 1, families: [frame.family], saveDirectory: findings, plant: plant)
        failure.reproducer = FuzzCampaign.save(failure, options: options)
        let message = "crosscheck-fuzz-differential: \(FuzzText.describe(failure))\n"
        FileHandle.standardError.write(Data(message.utf8))
        if abortOnFinding { abort() }
    }
}
