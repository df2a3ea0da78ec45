internal import CPython
internal import CPythonShims

/// An owned (strong) reference to a Python object. Created only while the GIL is held; released
/// under the GIL whichever thread drops the last Swift reference.
final class OwnedPyObject: @unchecked Sendable {
    /// Read only through `borrow`: Swift may release an object right after its last use, so a bare
    /// `object.pointer` passed to C could outlive the reference that keeps it alive.
    private let pointer: UnsafeMutablePointer<PyObject>

    /// Calls `body` with a borrowed pointer that stays valid for the whole call.
    func borrow<R>(_ body: (UnsafeMutablePointer<PyObject>) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(pointer) }
    }

    /// Takes over a new reference (what most C API calls return).
    init(consuming pointer: UnsafeMutablePointer<PyObject>) { self.pointer = pointer }

    /// Adds a reference to a borrowed pointer (what `PyDict_GetItem` and friends return).
    init(borrowing pointer: UnsafeMutablePointer<PyObject>) {
        CPythonShims_Py_IncRef(pointer)
        self.pointer = pointer
    }

    deinit {
        let pointer = self.pointer
        GIL.withLock { CPythonShims_Py_DecRef(pointer) }
    }
}

/// The GIL, held by one pinned `PyThreadState` per OS thread.
///
/// `PyGILState_Ensure` would create and delete a thread state on every outermost call; pinning one
/// per thread (created on first use, kept for the thread's life) makes each call one
/// `PyEval_RestoreThread`/`PyEval_SaveThread` pair. Nested `withLock` calls on a thread that already
/// holds the GIL only count depth.
enum GIL {
    /// The interpreter every thread state belongs to; set once by `PythonInterpreter`.
    nonisolated(unsafe) static var interpreterState: OpaquePointer?

    final class PerThread {
        let threadState: UnsafeMutablePointer<PyThreadState>
        var depth = 0
        init(_ threadState: UnsafeMutablePointer<PyThreadState>) { self.threadState = threadState }
    }

    static let key: pthread_key_t = {
        var key = pthread_key_t()
        // No destructor: a thread state outlives its thread harmlessly; deleting it would need the GIL.
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    static func current() -> PerThread {
        if let raw = pthread_getspecific(key) {
            return Unmanaged<PerThread>.fromOpaque(raw).takeUnretainedValue()
        }
        guard let interpreter = interpreterState, let state = PyThreadState_New(interpreter) else {
            preconditionFailure("PythonBridge used before PythonInterpreter.shared() started Python")
        }
        return pin(state)
    }

    @discardableResult
    static func pin(_ state: UnsafeMutablePointer<PyThreadState>) -> PerThread {
        let perThread = PerThread(state)
        pthread_setspecific(key, Unmanaged.passRetained(perThread).toOpaque())
        return perThread
    }

    static func withLock<R>(_ body: () throws -> R) rethrows -> R {
        let state = current()
        if state.depth > 0 {
            state.depth += 1
            defer { state.depth -= 1 }
            return try body()
        }
        PyEval_RestoreThread(state.threadState)
        state.depth = 1
        defer {
            state.depth = 0
            _ = PyEval_SaveThread()
        }
        return try body()
    }
}
