internal import COpenSSL

/// One entry of OpenSSL's thread-local error queue, kept structured (library, reason, code) so a
/// caller can decide on the reason without parsing text.
public struct OpenSSLErrorEntry: Equatable, Sendable, CustomStringConvertible {
    /// The packed error code (`ERR_get_error`).
    public let code: UInt
    /// The library that raised it, e.g. "SSL routines", "DECODER routines".
    public let library: String
    /// The reason, e.g. "certificate verify failed", "unsupported".
    public let reason: String
    /// OpenSSL's one-line text, e.g. `error:0A000086:SSL routines::certificate verify failed`.
    public let text: String

    public init(code: UInt, library: String, reason: String, text: String) {
        self.code = code; self.library = library; self.reason = reason; self.text = text
    }

    public var description: String { text }
}

/// A failed OpenSSL call with the whole error queue it left, oldest first. The one place that reads
/// OpenSSL's error queue: WireCrypto and Transport both build their errors from it.
public struct OpenSSLError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call that failed, e.g. "EVP_PKEY_encrypt" or "SSL_CTX_new".
    public let function: String
    public let stack: [OpenSSLErrorEntry]

    public init(function: String, stack: [OpenSSLErrorEntry]) { self.function = function; self.stack = stack }

    /// Empties this thread's queue into an error for `function`. Called on every failure path, so
    /// one failure never leaks into the next call's error.
    public static func drain(after function: String) -> OpenSSLError {
        OpenSSLError(function: function, stack: drainQueue())
    }

    /// Empties this thread's queue and returns its entries, oldest first.
    @discardableResult
    public static func drainQueue() -> [OpenSSLErrorEntry] {
        var entries: [OpenSSLErrorEntry] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            entries.append(OpenSSLErrorEntry(code: UInt(code), library: text(ERR_lib_error_string(code)),
                                             reason: text(ERR_reason_error_string(code)),
                                             text: String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        return entries
    }

    /// True when any entry's reason is `reason` (e.g. "unexpected eof while reading").
    public func hasReason(_ reason: String) -> Bool { stack.contains { $0.reason == reason } }

    /// The stack as one line, or `fallback` when the queue was empty.
    public func stackText(or fallback: String = "no details from OpenSSL") -> String {
        stack.isEmpty ? fallback : stack.map(\.text).joined(separator: "; ")
    }

    public var description: String { "OpenSSL \(function) failed: \(stackText())" }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
}
