// crosscheck-fuzz: libFuzzer targets over the Swift parsers, one family each (`make libfuzzer
// TARGET=rsa-socket|keys|json|sealed|https|all`, passed as CROSSCHECK_FUZZ_TARGET; see
// FuzzTargets/ParserTargets.swift). No Python: the differential target is crosscheck-fuzz-differential.
//
// Built with `swift build --product crosscheck-fuzz --sanitize=fuzzer --sanitize=address`, SwiftPM
// compiles this file with -parse-as-library and links libFuzzer's own `main`, which calls
// `LLVMFuzzerTestOneInput` below for every input: so this file must hold no top-level code (it
// would be an error under the fuzzer and never run anyway). Built without the sanitizer, the
// program does nothing. Run it with SWIFT_BACKTRACE=enable=no, so a crash reaches libFuzzer's
// handler and the input is written to the -artifact_prefix folder.
import Foundation
import FuzzTargets

/// The target CROSSCHECK_FUZZ_TARGET names; without it, the one the executable's name ends in
/// (`crosscheck-fuzz-json` is `json`: a fuzzing service such as ClusterFuzzLite runs every binary
/// in its folder as one target and sets no variables, so .clusterfuzzlite/build.sh installs one
/// copy per target); otherwise `all`. An unknown name ends the run at once.
let selectedTarget: @Sendable (Data) -> Void = {
    let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").lastPathComponent
    let prefix = "crosscheck-fuzz-"
    let fromName = executable.hasPrefix(prefix) ? String(executable.dropFirst(prefix.count)) : nil
    let name = ProcessInfo.processInfo.environment["CROSSCHECK_FUZZ_TARGET"] ?? fromName ?? "all"
    guard let target = ParserTargets.all[name] else {
        FileHandle.standardError.write(Data("crosscheck-fuzz: no target '\(name)'; CROSSCHECK_FUZZ_TARGET takes \(ParserTargets.all.keys.sorted().joined(separator: ", "))\n".utf8))
        exit(64)
    }
    return target
}()

@_cdecl("LLVMFuzzerInitialize")
public func crosscheckFuzzInitialize(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    _ = selectedTarget
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func crosscheckFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    selectedTarget(data.map { Data(bytes: $0, count: size) } ?? Data())
    return 0
}
