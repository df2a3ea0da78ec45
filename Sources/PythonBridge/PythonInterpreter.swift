import Foundation
internal import CPython
internal import CPythonShims

/// The one embedded CPython of this process.
///
/// Started once, with an isolated `PyConfig` (no PYTHONPATH/PYTHONHOME, no user site), from Debian's
/// interpreter, and never finalised: pyca/cryptography's Rust core refuses a second start in the
/// same process. Any thread or task may call in; the GIL is taken per call.
public final class PythonInterpreter: @unchecked Sendable {
    /// Where the interpreter came from and what it runs, for reports.
    public let pythonVersion: String
    public let executable: String
    public let pythonRefDirectory: String

    /// Functions looked up once. Guarded by the GIL, not a lock of its own: every access runs inside
    /// `GIL.withLock`, in Swift code between Python calls, and the GIL changes hands only inside
    /// Python calls. A separate lock held across an import deadlocked: the import releases the GIL,
    /// a second thread takes it and waits for the lock, and the first can never get the GIL back.
    private var callables: [String: OwnedPyObject] = [:]

    nonisolated(unsafe) private static var instance: Result<PythonInterpreter, PythonError>?
    private static let startLock = NSLock()

    /// `major.minor` of the libpython crosscheck links (3.11 on Debian 12, 3.13 on Debian 13): the
    /// only Python an `executable` may be, since the library takes its standard library from it.
    /// `Py_GetVersion` may be called before the interpreter starts (CPython's docs, "Process-wide
    /// parameters").
    public static var linkedVersion: String {
        let full = String(cString: Py_GetVersion()).split(separator: " ").first.map(String.init) ?? ""
        return full.split(separator: ".").prefix(2).joined(separator: ".")
    }

    /// The interpreter, started on first use with PythonRef's directory at the front of `sys.path`.
    /// Later calls return the same interpreter (a different `pythonRefDirectory` is ignored).
    ///
    /// - Parameters:
    ///   - pythonRefDirectory: the folder that holds the `pythonref` package.
    ///   - executable: the interpreter whose installation (prefix, dist-packages) to use.
    ///   - requiredModules: modules to import up front, each with the Debian package that has it.
    public static func shared(
        pythonRefDirectory: String,
        executable: String = "/usr/bin/python3",
        requiredModules: [(module: String, debianPackage: String)] = [("cryptography", "python3-cryptography")]
    ) throws -> PythonInterpreter {
        startLock.lock()
        defer { startLock.unlock() }
        if let instance { return try instance.get() }
        let result = Result { try PythonInterpreter(pythonRefDirectory: pythonRefDirectory, executable: executable,
                                                    requiredModules: requiredModules) }
            .mapError { $0 as? PythonError ?? .initialization("\($0)") }
        instance = result
        return try result.get()
    }

    private init(pythonRefDirectory: String, executable: String,
                 requiredModules: [(module: String, debianPackage: String)]) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw PythonError.environment(problem: "no Python interpreter at \(executable)",
                                          fix: "apt-get install python3 python3-dev (Debian's python3 is the one crosscheck embeds)")
        }
        guard FileManager.default.fileExists(atPath: pythonRefDirectory + "/pythonref/__init__.py") else {
            throw PythonError.environment(problem: "no pythonref package in \(pythonRefDirectory)",
                                          fix: "run from the crosscheck checkout, or pass --pythonref DIR / set CROSSCHECK_PYTHONREF to the folder that holds pythonref/")
        }
        self.executable = executable
        self.pythonRefDirectory = pythonRefDirectory

        // UTF-8 mode, as `python3` has under a UTF-8 locale (a Pi's): without it, an isolated
        // interpreter in a process whose C locale is "C" reads and writes text files as ASCII, and
        // a team's server that opens a UTF-8 file would fail here and work on the Pi. Before any
        // PyConfig call, which would pre-initialise with the defaults.
        var preConfig = PyPreConfig()
        PyPreConfig_InitIsolatedConfig(&preConfig)
        preConfig.utf8_mode = 1
        let preStatus = Py_PreInitialize(&preConfig)
        if PyStatus_Exception(preStatus) != 0 { throw PythonError.initialization(String(cString: CPythonShims_PyStatus_message(preStatus))) }

        var config = PyConfig()
        PyConfig_InitIsolatedConfig(&config)
        defer { PyConfig_Clear(&config) }
        config.install_signal_handlers = 0  // SIGINT belongs to the harness, not to Python
        config.site_import = 1               // Debian's site.py adds /usr/lib/python3/dist-packages
        config.write_bytecode = 0            // leave no __pycache__ in the checkout
        config.parse_argv = 0
        // With program_name set to Debian's interpreter, getpath finds its prefix and stdlib,
        // whatever pyenv or virtualenv the harness itself was started from.
        var status = CPythonShims_PyConfig_SetProgramName(&config, executable)
        if PyStatus_Exception(status) != 0 { throw PythonError.initialization(String(cString: CPythonShims_PyStatus_message(status))) }
        status = Py_InitializeFromConfig(&config)
        if PyStatus_Exception(status) != 0 {
            throw PythonError.initialization(String(cString: CPythonShims_PyStatus_message(status)))
        }
        // This thread now holds the GIL with the main thread state: pin it, then let go.
        GIL.interpreterState = PyInterpreterState_Get()
        GIL.pin(PyThreadState_Get())
        _ = PyEval_SaveThread()

        var version = ""
        try GIL.withLock {
            version = String(cString: Py_GetVersion()).split(separator: " ").first.map(String.init) ?? ""
            guard let sysPath = PySys_GetObject("path") else { throw PythonError.initialization("sys.path is missing") }
            let directory = try makePython(.string(pythonRefDirectory))
            guard directory.borrow({ PyList_Insert(sysPath, 0, $0) }) == 0 else {
                throw fetchPythonError() ?? .initialization("cannot extend sys.path")
            }
            for (module, package) in requiredModules {
                guard let imported = PyImport_ImportModule(module) else {
                    let error = fetchPythonError()
                    throw PythonError.environment(
                        problem: "the embedded Python (\(executable)) cannot import '\(module)'"
                            + (error.map { ": \($0)" } ?? ""),
                        fix: "apt-get install \(package)")
                }
                CPythonShims_Py_DecRef(imported)
            }
        }
        self.pythonVersion = version
    }

    /// Calls `module.function(*arguments)` and converts the result.
    public func call(_ module: String, _ function: String, _ arguments: [PythonValue]) throws -> PythonValue {
        try GIL.withLock {
            let callable = try self.callable(module, function)
            let list = try makePython(.list(arguments))
            guard let tuple = list.borrow(PyList_AsTuple) else {
                throw fetchPythonError() ?? .conversion("argument tuple")
            }
            let argumentTuple = OwnedPyObject(consuming: tuple)
            let result = callable.borrow { callable in argumentTuple.borrow { PyObject_Call(callable, $0, nil) } }
            guard let result else {
                throw fetchPythonError() ?? .exception(type: "SystemError", message: "call returned NULL without an exception", traceback: "")
            }
            return try OwnedPyObject(consuming: result).borrow(makeSwift)
        }
    }

    /// Runs Python statements in a fresh namespace (tests use it to plant broken variants).
    public func run(_ code: String) throws {
        try GIL.withLock {
            guard let globals = PyDict_New() else { throw fetchPythonError() ?? .conversion("dict") }
            let namespace = OwnedPyObject(consuming: globals)
            let result = namespace.borrow { namespace -> UnsafeMutablePointer<PyObject>? in
                PyDict_SetItemString(namespace, "__builtins__", PyEval_GetBuiltins())
                return PyRun_StringFlags(code, Py_file_input, namespace, namespace, nil)
            }
            guard let result else {
                throw fetchPythonError() ?? .exception(type: "SystemError", message: "run failed", traceback: "")
            }
            CPythonShims_Py_DecRef(result)
        }
    }

    /// Must be called with the GIL held (see `callables`).
    private func callable(_ module: String, _ function: String) throws -> OwnedPyObject {
        let name = module + "." + function
        if let cached = callables[name] { return cached }
        guard let imported = PyImport_ImportModule(module) else {
            throw fetchPythonError() ?? .exception(type: "ImportError", message: module, traceback: "")
        }
        let moduleObject = OwnedPyObject(consuming: imported)
        guard let attribute = moduleObject.borrow({ PyObject_GetAttrString($0, function) }) else {
            throw fetchPythonError() ?? .exception(type: "AttributeError", message: name, traceback: "")
        }
        let callable = OwnedPyObject(consuming: attribute)
        if let cached = callables[name] { return cached }  // another thread finished the same import first
        callables[name] = callable
        return callable
    }
}
