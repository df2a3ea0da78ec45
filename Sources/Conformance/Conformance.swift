// Conformance — the core every capability module builds on: `Check` (one testcase) and its
// outcomes, `Expect` (assertions that say what differed), the implementations under test as peers
// (`CryptoPeer`: SwiftPeer over WireCrypto, PythonPeer over the embedded PythonRef; their protocol
// machines and aes-https roles), `ErrorEquivalence` (each side's errors as shared `FailureKind`s),
// `Runner`, `SuiteContext`, `ProjectFiles` (where PythonRef/ and Vectors/ are), planted flaws,
// `TeamServerSeat` (a team's server in the sessions suite's server seat, for Sessions and AppChecks).
// May import: WireCrypto, PythonBridge, WireProtocol. No I/O beyond reading files and running the
// `openssl` command (OpenSSLTool); no suites. Live servers come from a `LoopbackServerProvider`.
