// crosscheck-fuzz-differential: coverage-guided differential fuzzing (`make libfuzzer
// TARGET=differential`): libFuzzer keeps the inputs that reach new Swift code, and each input is
// judged by `crosscheck fuzz`'s oracle, Swift against PythonRef in this process (see
// Fuzzing/DifferentialTarget.swift). Findings go to CROSSCHECK_FUZZ_FINDINGS (default
// reports/libfuzzer/differential/findings) as `crosscheck replay` reproducers; the corpus's frames
// are written as seed inputs to CROSSCHECK_FUZZ_SEEDS (default reports/libfuzzer/differential/seeds).
//
// Built with --sanitize=fuzzer (SwiftPM links libFuzzer's `main`), so no top-level code here.
import Foundation
import Conformance
import Fuzzing

let environment = ProcessInfo.processInfo.environment

/// Made once, before the first input: the corpus, the embedded interpreter, the oracle.
let target: DifferentialTarget = {
    let findings = URL(fileURLWithPath: environment["CROSSCHECK_FUZZ_FINDINGS"] ?? "reports/libfuzzer/differential/findings")
    var plant: PlantedFlaw?
    if let name = environment["CROSSCHECK_FUZZ_PLANT"] {
        guard let flaw = PlantedFlaw(rawValue: name) else {
            FileHandle.standardError.write(Data("crosscheck-fuzz-differential: CROSSCHECK_FUZZ_PLANT takes \(PlantedFlaw.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'\n".utf8))
            exit(64)
        }
        plant = flaw
        FileHandle.standardError.write(Data("crosscheck-fuzz-differential: PLANTED FLAW \(name) (TEST ONLY)\n".utf8))
    }
    do {
        return try DifferentialTarget(findings: findings, abortOnFinding: environment["CROSSCHECK_FUZZ_ABORT"] == "1", plant: plant)
    } catch {
        FileHandle.standardError.write(Data("crosscheck-fuzz-differential: cannot start: \(error)\n".utf8))
        exit(69)
    }
}()

@_cdecl("LLVMFuzzerInitialize")
public func differentialInitialize(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    let seeds = URL(fileURLWithPath: environment["CROSSCHECK_FUZZ_SEEDS"] ?? "reports/libfuzzer/differential/seeds")
    do {
        let count = try target.writeSeeds(to: seeds)
        FileHandle.standardError.write(Data("crosscheck-fuzz-differential: \(count) seed inputs in \(seeds.path)\n".utf8))
    } catch {
        FileHandle.standardError.write(Data("crosscheck-fuzz-differential: cannot write seeds to \(seeds.path): \(error)\n".utf8))
        exit(73)
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func differentialOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    target.run(data.map { Data(bytes: $0, count: size) } ?? Data())
    return 0
}
