// TeamServer — a team's own Python server code (`crosscheck run --server FILE.py:NAME`) loaded in
// the embedded interpreter and served in-process through its standard shape: a socketserver
// handler, `handle(conn, addr)` or an asyncio `async def handle(reader, writer)` for rsa-socket
// (over socket pairs), a WSGI application for aes-https; an adapter's `make_server()` returns one. It is an `InProcessServer` (Transport), so the checks of other capabilities (Remote,
// Fuzzing) reach it without knowing it is Python. The Python half is `pythonref/team_host.py`.
// May import: PythonBridge, Transport.
import Foundation
import PythonBridge
import Transport

/// The team's server, loaded once; its module globals live for the whole run.
public final class TeamServer: InProcessServer, @unchecked Sendable {
    /// What the loaded object is, which tells the profile when it can be told.
    public enum Shape: String, Sendable {
        /// A `socketserver.BaseRequestHandler` subclass, `handle(conn, addr)` or an asyncio
        /// `async def handle(reader, writer)`: rsa-socket.
        case socketHandler = "socket handler"
        /// A WSGI application (Flask's `app`, a callable taking `environ, start_response`): aes-https.
        case wsgi = "WSGI application"
        /// A callable whose shape its signature does not tell: `--profile` decides.
        case callable = "callable"
    }

    /// `server:Handler`: the module's name and the object's, for testcase names.
    public let name: String
    public let shape: Shape
    /// Where the server's prints and tracebacks go.
    public let logPath: String
    /// How long a handler may keep running after its client has gone, and an application may take
    /// to answer: the run's `--timeout`.
    public let timeout: TimeInterval
    private let interpreter: PythonInterpreter
    private let id: Int
    private let lock = NSLock()
    /// The connections handed out since the last `checkEnded`.
    private var opened: [TCPConnection] = []

    static let module = "pythonref.team_host"

    /// Imports `spec` (`FILE.py:NAME`, or `MODULE:NAME` found on `searchPath`). `runInFolder`
    /// (FILE.py): as `python3 FILE.py ARGUMENTS` run in its folder would, the embedded interpreter
    /// first moves to that folder (this whole process does: give it absolute paths from then on),
    /// takes `arguments` as `sys.argv[1:]`, `pythonPath`'s folders on `sys.path`, and an empty stdin.
    /// - Throws: `TeamServerError`: what to fix, with Python's traceback.
    public init(spec: String, searchPath: String?, logPath: String, timeout: TimeInterval, interpreter: PythonInterpreter,
                runInFolder: Bool = false, arguments: [String] = [], pythonPath: String = "") throws {
        let reply: PythonValue
        do {
            reply = try interpreter.call(Self.module, "load", [.string(spec), .string(searchPath ?? ""), .string(logPath), .bool(runInFolder),
                                                              .list(arguments.map(PythonValue.string)), .string(pythonPath)])
        } catch { throw TeamServerError.python(spec: spec, "\(error)") }
        let traceback = reply["traceback"]?.stringValue ?? ""
        switch reply["err"]?.stringValue {
        case "interrupted"?:
            throw TeamServerError.interrupted(spec: spec)
        case "own-loop"?:
            throw TeamServerError.ownLoop(spec: spec, message: reply["message"]?.stringValue ?? "", traceback: traceback)
        case "missing-module"?:
            throw TeamServerError.missingModule(spec: spec, module: reply["module"]?.stringValue ?? "",
                                                message: reply["message"]?.stringValue ?? "", traceback: traceback)
        case .some:
            throw TeamServerError.badInput(spec: spec, message: reply["message"]?.stringValue ?? "", traceback: traceback)
        case nil: break
        }
        guard let id = reply["ok"]?.intValue, let kind = reply["kind"]?.stringValue else {
            throw TeamServerError.python(spec: spec, "team_host.load answered \(reply)")
        }
        self.id = id
        self.interpreter = interpreter
        self.logPath = logPath
        self.timeout = timeout
        switch kind {
        case "socket-handler-class", "socket-function", "asyncio-stream-handler": shape = .socketHandler
        case "wsgi": shape = .wsgi
        default: shape = .callable
        }
        let (target, _, object) = Self.split(spec)
        let moduleName = URL(fileURLWithPath: target).deletingPathExtension().lastPathComponent
        name = "\(target.hasSuffix(".py") ? moduleName : target):\(object)"
    }

    /// `FILE.py:NAME` → (FILE.py, :, NAME), split at the last colon.
    static func split(_ spec: String) -> (String, String, String) {
        guard let colon = spec.lastIndex(of: ":") else { return (spec, "", "") }
        return (String(spec[..<colon]), ":", String(spec[spec.index(after: colon)...]))
    }

    public func connect(timeout: TimeInterval, watchingReads: Bool) throws -> TCPConnection {
        let (connection, serverEnd) = try TCPConnection.socketPair(describedAs: name)
        let reads: Int32
        do { reads = watchingReads ? try connection.watchPeerReads() : -1 } catch {
            _ = close(serverEnd)
            connection.close()
            throw error
        }
        let reply: PythonValue
        do {
            // team_host owns both descriptors once called (it closes them itself when it fails), and
            // reports the handler's reads through `reads`.
            reply = try interpreter.call(Self.module, "serve_connection", [.int(id), .int(Int(serverEnd)), .int(Int(reads))])
        } catch {
            _ = close(serverEnd)
            if reads >= 0 { _ = close(reads) }
            connection.close()
            throw TransportError.io(operation: "start \(name) on a socket pair", errno: 0, message: "\(error)")
        }
        if let failure = reply["err"]?.stringValue {
            connection.close()
            throw TransportError.io(operation: "start \(name) on a socket pair", errno: 0, message: failure)
        }
        lock.lock(); opened.append(connection); lock.unlock()
        return connection
    }

    public func exchange(_ request: HTTPRequest, timeout: TimeInterval) throws -> HTTPResponse {
        let reply: PythonValue
        do {
            reply = try interpreter.call(Self.module, "wsgi_request", [
                .int(id), .string(request.method), .string(request.path), .dict(request.headers.mapValues(PythonValue.string)),
                .bytes(request.body), .float(timeout),
            ])
        } catch { throw TransportError.io(operation: "\(request.method) \(request.path) to \(name)", errno: 0, message: "\(error)") }
        guard let answer = reply["ok"], let status = answer["status"]?.intValue, let body = answer["body"]?.bytesValue else {
            throw TransportError.timedOut(operation: "\(request.method) \(request.path) to \(name)", seconds: timeout)
        }
        var headers: [String: String] = [:]
        if case let .list(pairs)? = answer["headers"] {
            for case let .list(pair) in pairs where pair.count == 2 {
                guard let field = pair[0].stringValue?.lowercased(), let value = pair[1].stringValue else { continue }
                headers[field] = headers[field].map { "\($0), \(value)" } ?? value
            }
        }
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// The server's RSA private key (PKCS#8 PEM) when its module holds exactly one, for the
    /// fuzzer's expected answers; nil otherwise (then `--remote-key` gives it).
    public func privateKeyPEM() -> Data? {
        (try? interpreter.call(Self.module, "private_key_pem", [.int(id)]))?["ok"]?.bytesValue
    }

    /// The public half of the one key of `type` ("rsa", "ec-p256") the server keeps in a global
    /// or attribute, with the names that hold it: a key it makes at import and never sends.
    /// `.failure` names what it holds when that is none or several.
    public func heldPublicKey(type: String) -> Result<(der: Data, names: [String]), HeldKeyAbsence> {
        let reply: PythonValue
        do { reply = try interpreter.call(Self.module, "held_public_key", [.int(id), .string(type)]) } catch {
            return .failure(HeldKeyAbsence(several: false, names: [], problem: "\(error)"))
        }
        let names: [String]
        if case let .list(list)? = reply["names"] { names = list.compactMap(\.stringValue) } else { names = [] }
        if let der = reply["ok"]?.bytesValue { return .success((der, names)) }
        return .failure(HeldKeyAbsence(several: reply["err"]?.stringValue == "several", names: names, problem: nil))
    }

    public func checkEnded() -> [InProcessServerProblem] {
        lock.lock()
        let connections = opened
        opened = []
        lock.unlock()
        for connection in connections { connection.close() }
        let reply: PythonValue
        do { reply = try interpreter.call(Self.module, "check_ended", [.int(id), .float(timeout)]) } catch {
            return [InProcessServerProblem(kind: .raised, message: "the harness could not ask the server what happened: \(error)", details: "")]
        }
        guard case let .list(problems)? = reply["ok"] else { return [] }
        return problems.compactMap { problem in
            guard let kind = problem["kind"]?.stringValue.flatMap(InProcessServerProblem.Kind.init(rawValue:)) else { return nil }
            return InProcessServerProblem(kind: kind, message: problem["message"]?.stringValue ?? "",
                                          details: problem["details"]?.stringValue ?? "")
        }
    }
}

/// Why `heldPublicKey` found no one key: none, or several (named), or the harness's own failure.
/// Only a key whose private half the server keeps counts (a public key alone may be a client's).
public struct HeldKeyAbsence: Error, Sendable, CustomStringConvertible {
    public let several: Bool
    public let names: [String]
    public let problem: String?

    public var description: String {
        if let problem { return "crosscheck could not ask the server (\(problem))" }
        return several ? "its module keeps several such private keys (\(names.joined(separator: ", ")))"
            : "its module keeps no private key of that type in a global or attribute (a pyca or PyCryptodome key, or PEM text)"
    }
}

/// Why a team's server could not be loaded; each says what to fix.
public enum TeamServerError: Error, Equatable, CustomStringConvertible {
    /// The file, module or name is wrong, or importing it raised (exit 66).
    case badInput(spec: String, message: String, traceback: String)
    /// The server imports a module this machine lacks (exit 69).
    case missingModule(spec: String, module: String, message: String, traceback: String)
    /// Importing it (or calling its factory) started its own server loop: `run` runs the file as
    /// its own process instead; elsewhere exit 66.
    case ownLoop(spec: String, message: String, traceback: String)
    /// The harness's own Python half failed (exit 70).
    case python(spec: String, String)
    /// Ctrl-C while the server was being imported (exit 130).
    case interrupted(spec: String)

    /// Where an importable module comes from: Debian's package (nil: Debian has none that provides
    /// this name) and PyPI's distribution, for the modules Pi and phone servers import. Others: the
    /// rule `python3-` + the top-level name, lower-case, `_` as `-`, and the name itself on PyPI.
    static func packages(forModule module: String) -> (debian: String?, pypi: String) {
        let top = module.split(separator: ".").first.map(String.init) ?? module
        let known: [String: (String?, String)] = [
            // PyPI's pycryptodome installs `Crypto`; Debian's python3-pycryptodome installs only
            // `Cryptodome` (PyPI's pycryptodomex), and Debian no longer ships a `Crypto`.
            "Crypto": (nil, "pycryptodome"), "Cryptodome": ("python3-pycryptodome", "pycryptodomex"),
            "rsa": ("python3-rsa", "rsa"), "cryptography": ("python3-cryptography", "cryptography"),
            "OpenSSL": ("python3-openssl", "pyOpenSSL"), "nacl": ("python3-nacl", "PyNaCl"), "jwt": ("python3-jwt", "PyJWT"),
            "yaml": ("python3-yaml", "PyYAML"), "serial": ("python3-serial", "pyserial"), "RPi": ("python3-rpi.gpio", "RPi.GPIO"),
            "cv2": ("python3-opencv", "opencv-python"), "PIL": ("python3-pil", "Pillow"), "paho": ("python3-paho-mqtt", "paho-mqtt"),
            "flask": ("python3-flask", "Flask"), "flask_cors": ("python3-flask-cors", "Flask-Cors"),
            "flask_socketio": ("python3-flask-socketio", "Flask-SocketIO"), "socketio": ("python3-socketio", "python-socketio"),
            "dotenv": ("python3-dotenv", "python-dotenv"), "bluetooth": ("python3-bluez", "PyBluez"), "smbus": ("python3-smbus", "smbus"),
            "zmq": ("python3-zmq", "pyzmq"), "gnupg": ("python3-gnupg", "python-gnupg"), "Adafruit_DHT": (nil, "Adafruit_DHT"),
            "board": (nil, "adafruit-blinka"), "picamera": ("python3-picamera", "picamera"), "picamera2": ("python3-picamera2", "picamera2"),
            "pyaes": ("python3-pyaes", "pyaes"), "ecdsa": ("python3-ecdsa", "ecdsa"), "bcrypt": ("python3-bcrypt", "bcrypt"),
            "websockets": ("python3-websockets", "websockets"), "aiohttp": ("python3-aiohttp", "aiohttp"),
            "requests": ("python3-requests", "requests"), "numpy": ("python3-numpy", "numpy"), "psutil": ("python3-psutil", "psutil"),
            "netifaces": ("python3-netifaces", "netifaces"), "gpiozero": ("python3-gpiozero", "gpiozero"),
        ]
        if let (debian, pypi) = known[top] { return (debian, pypi) }
        return ("python3-" + top.lowercased().replacingOccurrences(of: "_", with: "-"), top)
    }

    /// What to install for `module`, said for the interpreter that lacks it.
    static func installHint(module: String, python: String) -> String {
        let (debian, pypi) = packages(forModule: module)
        let pip = "pip install \(pypi) in a virtual environment beside the server (.venv/ or venv/, which crosscheck uses) or for \(python)"
        guard let debian else {
            let note = module.split(separator: ".").first == "Crypto" ? " (Debian's python3-pycryptodome provides 'Cryptodome', not 'Crypto')" : ""
            return "PyPI: \(pip); Debian has no package for it\(note)"
        }
        return "Debian: apt-get install \(debian); or PyPI: \(pip)"
    }

    public var description: String {
        switch self {
        case let .badInput(spec, message, traceback), let .ownLoop(spec, message, traceback):
            return "--server \(spec): \(message)" + (traceback.isEmpty ? "" : "\n\(traceback)")
        case let .missingModule(spec, module, message, traceback):
            let hint = module.isEmpty ? "" : " (\(Self.installHint(module: module, python: "the embedded Python")))"
            return "--server \(spec): \(message): the embedded Python lacks module '\(module)'\(hint)\n\(traceback)"
        case let .python(spec, message):
            return "--server \(spec): the harness's Python side failed: \(message)"
        case let .interrupted(spec):
            return "--server \(spec): interrupted while it was being imported"
        }
    }
}
