// crosscheck-fuzz: a libFuzzer target over the Swift frame and key parsers (`make libfuzzer`).
//
// Built with `swift build --product crosscheck-fuzz --sanitize=fuzzer --sanitize=address`, SwiftPM
// compiles this file with -parse-as-library and links libFuzzer's own `main`, which calls
// `LLVMFuzzerTestOneInput` below for every input: so this file must hold no top-level code (it
// would be an error under the fuzzer and never run anyway). Built without the sanitizer, the
// program does nothing. Run it with SWIFT_BACKTRACE=enable=no, so a crash reaches libFuzzer's
// handler and the input is written to the -artifact_prefix folder.

@_cdecl("LLVMFuzzerTestOneInput")
public func crosscheckFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    ParserTarget.run(data.map { UnsafeBufferPointer(start: $0, count: size) } ?? UnsafeBufferPointer(start: nil, count: 0))
    return 0
}
