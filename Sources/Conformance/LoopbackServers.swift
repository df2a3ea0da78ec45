import Foundation

/// Live servers on 127.0.0.1 for a capability that needs one but must not import Sessions, which
/// starts them once per configuration and stops them when the run ends: the CLI hands the
/// sessions suite's pool to such a capability (the app checks) through this protocol.
public protocol LoopbackServerProvider: Sendable {
    /// The port of an rsa-socket server of `implementation` — "swift" (in this process) or
    /// "python" (`python3 -m pythonref serve rsa-socket`, a process of its own, as on a Pi) —
    /// configured by `spec`, started on first use.
    func rsaSocketServer(_ implementation: String, _ spec: RSASocketServerSpec) throws -> UInt16
    /// The interpreter a capability runs PythonRef's own servers with (`python3 -m pythonref …`).
    var pythonExecutable: String { get }
}
