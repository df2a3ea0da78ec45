import Foundation
import Glibc
import WireCrypto
internal import COpenSSL
internal import COpenSSLShims

/// The certificate and private key a TLS server presents (PEM files).
public struct TLSServerIdentity: Equatable, Sendable {
    /// A PEM certificate (optionally followed by its chain).
    public var certificatePath: String
    /// The matching PEM private key, unencrypted.
    public var privateKeyPath: String

    public init(certificatePath: String, privateKeyPath: String) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }
}

/// Owns one `SSL_CTX`, configured once and then shared read-only by connection threads
/// (OpenSSL allows `SSL_new` on one context from many threads).
final class SSLContext: @unchecked Sendable {
    let pointer: OpaquePointer

    init(takingOwnershipOf pointer: OpaquePointer) { self.pointer = pointer }
    deinit { SSL_CTX_free(pointer) }

    /// A server context: TLS 1.2 or later, the identity's certificate chain and key (checked to match).
    static func server(_ identity: TLSServerIdentity) throws -> SSLContext {
        ERR_clear_error()
        guard let raw = SSL_CTX_new(TLS_server_method()) else {
            throw TransportError.openSSL(.drain(after: "SSL_CTX_new"))
        }
        let context = SSLContext(takingOwnershipOf: raw)
        guard COpenSSLShims_SSL_CTX_set_min_proto_version(raw, TLS1_2_VERSION) == 1 else {
            throw TransportError.openSSL(.drain(after: "SSL_CTX_set_min_proto_version"))
        }
        // An encrypted key must fail, not prompt on the terminal.
        SSL_CTX_set_default_passwd_cb(raw, COpenSSLShims_refuse_passphrase)
        for path in [identity.certificatePath, identity.privateKeyPath] where !FileManager.default.isReadableFile(atPath: path) {
            throw TransportError.tlsConfiguration(path: path, reason: "no such file, or not readable")
        }
        guard SSL_CTX_use_certificate_chain_file(raw, identity.certificatePath) == 1 else {
            throw TransportError.tlsConfiguration(path: identity.certificatePath,
                                                  reason: "not a PEM certificate (\(OpenSSLError.drain(after: "SSL_CTX_use_certificate_chain_file").stackText(or: "unreadable")))")
        }
        guard SSL_CTX_use_PrivateKey_file(raw, identity.privateKeyPath, SSL_FILETYPE_PEM) == 1 else {
            let error = OpenSSLError.drain(after: "SSL_CTX_use_PrivateKey_file")
            // OpenSSL checks the key against the certificate already loaded.
            let reason = error.hasReason("key values mismatch")
                ? "does not match the certificate in \(identity.certificatePath)"
                : "not an unencrypted PEM private key (\(error.stackText(or: "unreadable")))"
            throw TransportError.tlsConfiguration(path: identity.privateKeyPath, reason: reason)
        }
        guard SSL_CTX_check_private_key(raw) == 1 else {
            throw TransportError.tlsConfiguration(path: identity.privateKeyPath,
                                                  reason: "does not match the certificate in \(identity.certificatePath)")
        }
        return context
    }
}

/// Owns one `SSL` (a TLS connection's state). Used by one thread at a time.
final class SSLHandle {
    let pointer: OpaquePointer
    init(takingOwnershipOf pointer: OpaquePointer) { self.pointer = pointer }
    deinit { SSL_free(pointer) }
}

/// One side of a TLS connection over a `TCPConnection`, every operation under a deadline: the
/// server side (`handshake`) for the TLS servers, the client side (`clientHandshake`) for the TLS probe.
/// Keeps the context alive as long as the connection (an `SSL` references its `SSL_CTX`).
final class TLSConnection {
    let tcp: TCPConnection
    private let context: SSLContext
    let ssl: SSLHandle

    init(context: SSLContext, over tcp: TCPConnection) throws {
        self.tcp = tcp
        self.context = context
        ERR_clear_error()
        guard let raw = SSL_new(context.pointer) else {
            throw TransportError.openSSL(.drain(after: "SSL_new"))
        }
        ssl = SSLHandle(takingOwnershipOf: raw)
        let attached = try tcp.descriptor.use("connection to \(tcp.peerDescription)") { fd in SSL_set_fd(raw, fd) }
        guard attached == 1 else {
            throw TransportError.openSSL(.drain(after: "SSL_set_fd"))
        }
    }

    /// Runs the server handshake by the deadline.
    /// - Throws: `.tlsHandshakeFailed` with OpenSSL's reason (a client refusing our certificate shows
    ///   up here as an alert, e.g. "tlsv1 alert unknown ca"), `.timedOut`, `.connectionClosed`.
    func handshake(by deadline: Deadline) throws {
        _ = try drive("TLS handshake with \(tcp.peerDescription)", by: deadline, handshake: true) { SSL_accept($0) }
    }

    /// Runs the client handshake by the deadline (SNI, versions and suites are set on the `SSL` first).
    /// - Throws: as `handshake`; a server refusing what was offered shows up as an alert in `.tlsHandshakeFailed`.
    func clientHandshake(by deadline: Deadline) throws {
        _ = try drive("TLS handshake with \(tcp.peerDescription)", by: deadline, handshake: true) { SSL_connect($0) }
    }

    /// Reads decrypted bytes; empty `Data` at close_notify or end of stream.
    func read(upTo maxBytes: Int, by deadline: Deadline) throws -> Data {
        var buffer = [UInt8](repeating: 0, count: max(1, min(maxBytes, Int(Int32.max))))
        let count = try buffer.withUnsafeMutableBytes { raw in
            try drive("TLS read from \(tcp.peerDescription)", by: deadline, handshake: false) {
                SSL_read($0, raw.baseAddress, Int32(raw.count))
            }
        }
        return Data(buffer[0..<Int(count)])
    }

    func write(_ data: Data, by deadline: Deadline) throws {
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                // The same pointer and length on every retry, as SSL_write requires.
                let chunk = min(bytes.count - offset, 1 << 30)
                let written = try drive("TLS write to \(tcp.peerDescription)", by: deadline, handshake: false) {
                    SSL_write($0, bytes.baseAddress! + offset, Int32(chunk))
                }
                guard written > 0 else { throw TransportError.connectionClosed(peer: tcp.peerDescription, detail: "during a TLS write") }
                offset += Int(written)
            }
        }
    }

    /// Sends close_notify (best effort, not waiting for the peer's).
    func sendCloseNotify(by deadline: Deadline) {
        _ = try? drive("TLS shutdown with \(tcp.peerDescription)", by: deadline, handshake: false) { ssl in
            let result = SSL_shutdown(ssl)
            return result >= 0 ? 1 : result
        }
    }

    /// Calls `call` until it succeeds, waiting on the socket for WANT_READ/WANT_WRITE by the deadline.
    /// Returns its positive result, or 0 at an orderly end of stream.
    private func drive(_ operation: String, by deadline: Deadline, handshake: Bool,
                       _ call: (OpaquePointer) -> Int32) throws -> Int32 {
        try tcp.descriptor.use("connection to \(tcp.peerDescription)") { fd in
            while true {
                ERR_clear_error()
                errno = 0
                let result = call(ssl.pointer)
                if result > 0 { return result }
                let reason = SSL_get_error(ssl.pointer, result)
                let savedErrno = errno
                switch reason {
                case SSL_ERROR_WANT_READ:
                    try waitUntil(fd, is: .readable, by: deadline, operation: operation)
                case SSL_ERROR_WANT_WRITE:
                    try waitUntil(fd, is: .writable, by: deadline, operation: operation)
                case SSL_ERROR_ZERO_RETURN:
                    if handshake { throw TransportError.connectionClosed(peer: tcp.peerDescription, detail: "during the TLS handshake") }
                    return 0
                case SSL_ERROR_SYSCALL:
                    OpenSSLError.drainQueue()  // nothing useful for a system-call failure; leave the queue empty
                    if savedErrno == ECONNRESET || savedErrno == EPIPE {
                        throw TransportError.connectionReset(peer: tcp.peerDescription)
                    }
                    if savedErrno == 0 || savedErrno == EAGAIN {
                        if handshake { throw TransportError.connectionClosed(peer: tcp.peerDescription, detail: "during the TLS handshake") }
                        return 0  // end of stream without close_notify
                    }
                    throw TransportError.io(operation: operation, errno: savedErrno, message: errnoText(savedErrno))
                case SSL_ERROR_SSL:
                    let error = OpenSSLError.drain(after: operation)
                    if handshake { throw TransportError.tlsHandshakeFailed(detail: error.stackText(or: "unknown TLS error")) }
                    // OpenSSL 3 reports a TCP close without close_notify as an error; that is an end of stream.
                    if error.hasReason("unexpected eof while reading") { return 0 }
                    throw TransportError.openSSL(error)
                default:
                    throw TransportError.openSSL(.drain(after: "\(operation) (SSL_get_error \(reason))"))
                }
            }
        }
    }
}
