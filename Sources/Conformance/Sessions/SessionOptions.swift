import Foundation

/// Which transports the sessions suite uses, and how it runs real sockets.
public struct SessionOptions: Sendable {
    /// Machines called directly, no sockets (fast; the default part of every run).
    public var inProcess: Bool
    /// Real loopback TCP/TLS, with PythonRef servers in their own processes.
    public var enabled: Bool
    /// The Python interpreter and PythonRef directory for `python3 -m pythonref serve`.
    public var pythonExecutable: String
    public var pythonRefDirectory: String
    /// Deadline for every connect, read and write.
    public var timeout: TimeInterval
    /// How long a quiet line means "the peer has said all it will" for legacy framing.
    public var quietGap: TimeInterval
    /// Where the TLS test certificates are (`pinned`, `impostor`, `expired` `.crt.pem`/`.key.pem`).
    public var tlsDirectory: String {
        URL(fileURLWithPath: pythonRefDirectory).deletingLastPathComponent().appendingPathComponent("Vectors/tls").path
    }
    /// The servers this run started; `shutdown()` when the run ends.
    public let servers = ServerPool()

    public init(inProcess: Bool = true, enabled: Bool = false, pythonExecutable: String = "/usr/bin/python3", pythonRefDirectory: String = "",
                timeout: TimeInterval = 5, quietGap: TimeInterval = 0.2) {
        self.inProcess = inProcess; self.enabled = enabled; self.pythonExecutable = pythonExecutable; self.pythonRefDirectory = pythonRefDirectory
        self.timeout = timeout; self.quietGap = quietGap
    }
}
