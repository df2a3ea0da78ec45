import Foundation
import XCTest
@testable import PythonBridge

/// All test targets share one process and so one interpreter: always start it on the repo's PythonRef.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
func sharedInterpreter() throws -> PythonInterpreter {
    try PythonInterpreter.shared(pythonRefDirectory: repositoryRoot + "/PythonRef")
}

final class PythonInterpreterTests: XCTestCase {
    func eval(_ expression: String) throws -> PythonValue {
        try sharedInterpreter().call("builtins", "eval", [.string(expression), [:]])
    }

    func testInterpreter_isDebiansIsolatedPythonWithCryptography() throws {
        XCTAssertEqual(try eval("__import__('sys').prefix"), "/usr")
        XCTAssertEqual(try eval("__import__('sys').flags.isolated"), 1)
        XCTAssertEqual(try eval("__import__('sys').version_info[:2]"), [3, 11])
        let path = try XCTUnwrap(try eval("__import__('cryptography').__file__").stringValue)
        XCTAssertTrue(path.hasPrefix("/usr/lib/python3/dist-packages/"), path)
        XCTAssertFalse(try XCTUnwrap(try eval("' '.join(__import__('sys').path)").stringValue).contains(".pyenv"))
    }

    /// A team's server that reads a UTF-8 text file must read it here as on a Pi (`python3` under
    /// a UTF-8 locale), whatever this process's C locale.
    func testInterpreter_readsAndWritesTextAsUTF8() throws {
        XCTAssertEqual(try eval("__import__('sys').flags.utf8_mode"), 1)
        XCTAssertEqual(try eval("__import__('locale').getpreferredencoding(False)"), "utf-8")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("utf8-\(getpid()).txt")
        try Data("clé ✓\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertEqual(try eval("open(\(String(reflecting: file.path))).read()"), "clé ✓\n")
    }

    func testValues_smallListsSurvive() throws {
        XCTAssertEqual(try sharedInterpreter().call("copy", "deepcopy", [[1]]), [1])
        XCTAssertEqual(try sharedInterpreter().call("copy", "deepcopy", [[1, 2]]), [1, 2])
        XCTAssertEqual(try sharedInterpreter().call("copy", "deepcopy", [["a": [5]]]), ["a": [5]])
    }

    func testValues_roundTripThroughPython() throws {
        let value: PythonValue = ["bytes": .bytes(Data([0, 1, 255])), "text": "héllo", "n": -42, "flag": true,
                                  "nothing": nil, "list": [1, "two", .bytes(Data())], "real": .float(1.5)]
        XCTAssertEqual(try sharedInterpreter().call("copy", "deepcopy", [value]), value)
        XCTAssertEqual(try eval("(1, 2)"), [1, 2])
    }

    func testExceptions_carryTypeMessageAndTraceback() throws {
        XCTAssertThrowsError(try sharedInterpreter().call("json", "loads", ["{"])) { error in
            guard case let PythonError.exception(type, message, traceback) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(type, "JSONDecodeError")
            XCTAssertTrue(message.contains("Expecting property name"), message)
            XCTAssertTrue(traceback.contains("json/__init__.py"), traceback)
        }
        XCTAssertThrowsError(try sharedInterpreter().call("no_such_module_here", "f", [])) {
            guard case PythonError.exception("ModuleNotFoundError", _, _) = $0 else { return XCTFail("\($0)") }
        }
    }

    func testConversion_refusesValuesWithoutASwiftCounterpart() throws {
        XCTAssertThrowsError(try eval("object()")) {
            guard case PythonError.conversion = $0 else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try eval("2**70")) {
            XCTAssertEqual($0 as? PythonError, .conversion("a Python int does not fit in 64 bits"))
        }
    }

    func testCalls_fromManyThreadsAtOnceAllSucceed() throws {
        let interpreter = try sharedInterpreter()
        let results = Mutex(Array(repeating: 0, count: 8))
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            var good = 0
            for index in 0..<200 {
                let input = Data("\(worker)-\(index)".utf8)
                if case let .bytes(hex)? = try? interpreter.call("binascii", "hexlify", [.bytes(input)]),
                   hex == Data(input.map { String(format: "%02x", $0) }.joined().utf8) {
                    good += 1
                }
            }
            results.withLock { $0[worker] = good }
        }
        XCTAssertEqual(results.withLock { $0 }, Array(repeating: 200, count: 8))
    }

    func testRun_definesCodeThatLaterCallsSee() throws {
        let interpreter = try sharedInterpreter()
        try interpreter.run("import sys, types\nm = types.ModuleType('bridge_probe')\nm.double = lambda b: b + b\nsys.modules['bridge_probe'] = m")
        XCTAssertEqual(try interpreter.call("bridge_probe", "double", [.bytes(Data([7]))]), .bytes(Data([7, 7])))
        XCTAssertThrowsError(try interpreter.run("raise ValueError('planted')")) {
            guard case PythonError.exception("ValueError", "planted", _) = $0 else { return XCTFail("\($0)") }
        }
    }
}

/// A tiny lock-protected box for collecting results from concurrent workers.
final class Mutex<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R { lock.lock(); defer { lock.unlock() }; return body(&value) }
}

/// Two threads importing at once, each import releasing the GIL half-way (a sleep at module level):
/// with a lock held across the import, the second thread waits for it holding the GIL and the first
/// never gets the GIL back. Both calls must finish; the bound is only a deadlock detector.
final class ConcurrentImportTests: XCTestCase {
    func testTwoThreadsImportingAtOnce_bothFinish() throws {
        let interpreter = try sharedInterpreter()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-imports-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["slow_import_a", "slow_import_b"] {
            try "import time\ntime.sleep(0.3)\ndef answer():\n    return '\(name)'\n"
                .write(to: directory.appendingPathComponent("\(name).py"), atomically: true, encoding: .utf8)
        }
        try interpreter.run("import sys\nsys.path.insert(0, \(PythonValue.string(directory.path).pythonLiteral))")
        let results = ResultsBox()
        let group = DispatchGroup()
        for name in ["slow_import_a", "slow_import_b"] {
            group.enter()
            Thread {
                results.set(name, Result { try interpreter.call(name, "answer", []) })
                group.leave()
            }.start()
        }
        XCTAssertEqual(group.wait(timeout: .now() + 120), .success, "the two imports deadlocked")
        for name in ["slow_import_a", "slow_import_b"] {
            XCTAssertEqual(try results.get(name)?.get(), .string(name))
        }
    }

    final class ResultsBox: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [String: Result<PythonValue, Error>] = [:]
        func set(_ name: String, _ value: Result<PythonValue, Error>) { lock.lock(); values[name] = value; lock.unlock() }
        func get(_ name: String) -> Result<PythonValue, Error>? { lock.lock(); defer { lock.unlock() }; return values[name] }
    }
}

private extension PythonValue {
    /// A Python string literal (repr-style) for a path.
    var pythonLiteral: String {
        guard case let .string(text) = self else { return "None" }
        return "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
