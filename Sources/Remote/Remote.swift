// Remote — `crosscheck remote`: a live rsa-socket or aes-https server (a Raspberry Pi, a test host
// in a network namespace) checked from outside, step by step (`RemoteRun`), with conformance
// failures in `remote.<host:port>` and weak-but-conforming choices in `audit.<host:port>`.
// May import: Conformance (the core), WireCrypto, WireProtocol, Transport, PythonBridge (values only).
