/// Every error PythonBridge throws, with what a person needs to act on it.
public enum PythonError: Error, Equatable, Sendable {
    /// The machine is not ready (no libpython, no `cryptography`, no PythonRef); `fix` says how.
    case environment(problem: String, fix: String)
    /// `Py_InitializeFromConfig` failed.
    case initialization(String)
    /// Python raised; the traceback is Python's own text.
    case exception(type: String, message: String, traceback: String)
    /// A value that has no counterpart on the other side (a float to bytes, an int too big).
    case conversion(String)
}

extension PythonError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .environment(problem, fix): return "\(problem). Fix: \(fix)"
        case let .initialization(message): return "embedded Python failed to start: \(message)"
        case let .exception(type, message, traceback):
            return "Python raised \(type): \(message)" + (traceback.isEmpty ? "" : "\n\(traceback)")
        case let .conversion(message): return "cannot convert between Swift and Python: \(message)"
        }
    }
}
