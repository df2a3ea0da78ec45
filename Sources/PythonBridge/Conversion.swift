import Foundation
internal import CPython
internal import CPythonShims

// Swift ⇄ Python value conversion. Every function here requires the GIL.

func makePython(_ value: PythonValue) throws -> OwnedPyObject {
    func owned(_ pointer: UnsafeMutablePointer<PyObject>?, _ what: String) throws -> OwnedPyObject {
        guard let pointer else { throw fetchPythonError() ?? .conversion("could not build a Python \(what)") }
        return OwnedPyObject(consuming: pointer)
    }
    switch value {
    case .none: return OwnedPyObject(borrowing: CPythonShims_Py_None())
    case let .bool(flag): return OwnedPyObject(borrowing: flag ? CPythonShims_Py_True() : CPythonShims_Py_False())
    case let .int(number): return try owned(PyLong_FromLongLong(Int64(number)), "int")
    case let .float(number): return try owned(PyFloat_FromDouble(number), "float")
    case let .bytes(data):
        return try owned(data.withUnsafeBytes {
            PyBytes_FromStringAndSize($0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count)
        }, "bytes")
    case let .string(text):
        var utf8 = Array(text.utf8)
        return try owned(utf8.withUnsafeMutableBytes {
            PyUnicode_FromStringAndSize($0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count)
        }, "str")
    case let .list(values):
        let list = try owned(PyList_New(0), "list")
        for element in values {
            let item = try makePython(element)
            let status = list.borrow { list in item.borrow { PyList_Append(list, $0) } }
            guard status == 0 else { throw fetchPythonError() ?? .conversion("list append") }
        }
        return list
    case let .dict(fields):
        let dict = try owned(PyDict_New(), "dict")
        for (key, element) in fields {
            let item = try makePython(element)
            guard dict.borrow({ dict in item.borrow { PyDict_SetItemString(dict, key, $0) } }) == 0 else {
                throw fetchPythonError() ?? .conversion("dict key \(key)")
            }
        }
        return dict
    }
}

func makeSwift(_ object: UnsafeMutablePointer<PyObject>) throws -> PythonValue {
    if object == CPythonShims_Py_None() { return .none }
    if CPythonShims_PyBool_Check(object) != 0 { return .bool(object == CPythonShims_Py_True()) }
    if CPythonShims_PyLong_Check(object) != 0 {
        var overflow: Int32 = 0
        let number = PyLong_AsLongLongAndOverflow(object, &overflow)
        guard overflow == 0 else { throw PythonError.conversion("a Python int does not fit in 64 bits") }
        if number == -1, let error = fetchPythonError() { throw error }
        return .int(Int(number))
    }
    if CPythonShims_PyFloat_Check(object) != 0 { return .float(PyFloat_AsDouble(object)) }
    if CPythonShims_PyBytes_Check(object) != 0 {
        var buffer: UnsafeMutablePointer<CChar>? = nil
        var length = 0
        guard PyBytes_AsStringAndSize(object, &buffer, &length) == 0, let buffer else {
            throw fetchPythonError() ?? .conversion("bytes")
        }
        return .bytes(Data(bytes: buffer, count: length))
    }
    if CPythonShims_PyUnicode_Check(object) != 0 {
        var length = 0
        guard let utf8 = PyUnicode_AsUTF8AndSize(object, &length) else {
            throw fetchPythonError() ?? .conversion("a str that is not valid UTF-8 (lone surrogates)")
        }
        return .string(String(decoding: UnsafeRawBufferPointer(start: utf8, count: length), as: UTF8.self))
    }
    if CPythonShims_PyList_Check(object) != 0 || CPythonShims_PyTuple_Check(object) != 0 {
        let count = PySequence_Size(object)
        var values: [PythonValue] = []
        for index in 0..<max(count, 0) {
            guard let item = PySequence_GetItem(object, index) else { throw fetchPythonError() ?? .conversion("sequence item") }
            values.append(try OwnedPyObject(consuming: item).borrow(makeSwift))
        }
        return .list(values)
    }
    if CPythonShims_PyDict_Check(object) != 0 {
        var fields: [String: PythonValue] = [:]
        var position = 0
        var key: UnsafeMutablePointer<PyObject>? = nil
        var value: UnsafeMutablePointer<PyObject>? = nil
        while PyDict_Next(object, &position, &key, &value) != 0 {
            guard let key, let value, case let .string(name) = try makeSwift(key) else {
                throw PythonError.conversion("a dict key that is not a str")
            }
            fields[name] = try makeSwift(value)
        }
        return .dict(fields)
    }
    let typeName = String(cString: object.pointee.ob_type.pointee.tp_name)
    throw PythonError.conversion("a Python \(typeName) has no Swift counterpart")
}

/// Takes the pending Python exception, if any, as a `PythonError.exception` with its traceback.
func fetchPythonError() -> PythonError? {
    guard PyErr_Occurred() != nil else { return nil }
    var type: UnsafeMutablePointer<PyObject>? = nil
    var value: UnsafeMutablePointer<PyObject>? = nil
    var traceback: UnsafeMutablePointer<PyObject>? = nil
    PyErr_Fetch(&type, &value, &traceback)
    PyErr_NormalizeException(&type, &value, &traceback)
    defer { CPythonShims_Py_DecRef(type); CPythonShims_Py_DecRef(value); CPythonShims_Py_DecRef(traceback) }

    func text(_ object: UnsafeMutablePointer<PyObject>?) -> String {
        guard let object, let string = PyObject_Str(object) else { PyErr_Clear(); return "" }
        defer { CPythonShims_Py_DecRef(string) }
        guard let utf8 = PyUnicode_AsUTF8(string) else { PyErr_Clear(); return "" }
        return String(cString: utf8)
    }
    var typeName = "Exception"
    if let type, let name = PyObject_GetAttrString(type, "__name__") {
        typeName = text(name)
        CPythonShims_Py_DecRef(name)
    } else { PyErr_Clear() }

    var tracebackText = ""
    if let traceback, let module = PyImport_ImportModule("traceback") {
        defer { CPythonShims_Py_DecRef(module) }
        if let format = PyObject_GetAttrString(module, "format_tb") {
            defer { CPythonShims_Py_DecRef(format) }
            if let lines = PyObject_CallOneArg(format, traceback) {
                defer { CPythonShims_Py_DecRef(lines) }
                if case let .list(items)? = try? makeSwift(lines) {
                    tracebackText = items.compactMap(\.stringValue).joined()
                }
            }
        }
    }
    PyErr_Clear()
    return .exception(type: typeName, message: text(value), traceback: tracebackText)
}
