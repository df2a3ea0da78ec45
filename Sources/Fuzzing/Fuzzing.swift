// Fuzzing — differential fuzzing: every generated frame goes to the Swift side and to PythonRef
// (`FuzzOracle`), both must answer alike (same result, or the same failure kind); `FuzzCampaign`
// runs frames under deadlines and writes `FuzzReproducer`s for `crosscheck replay`; `FuzzRemote`
// sends rsa-socket frames to a live server; `FuzzSuite` is the `fuzz` suite of `crosscheck run`.
// May import: Conformance (the core), Frames, WireCrypto, WireProtocol, PythonBridge, Transport.
