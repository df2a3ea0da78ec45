import Foundation
import WireCrypto

/// Every error Transport throws: TCP, TLS, HTTP and the pinned HTTPS client.
///
/// Each case carries what a person needs to act on it: which host and port, which operation,
/// which limit, why a certificate was refused. Codes Transport does not know (a new libcurl or
/// OpenSSL error) become `.unexpected`, never a crash.
public enum TransportError: Error, Equatable, Sendable {
    /// Nothing listens at `host`:`port` (the peer answered the connection attempt with a reset).
    case connectionRefused(host: String, port: UInt16)
    /// `operation` did not complete within `seconds`.
    case timedOut(operation: String, seconds: Double)
    /// An in-process peer (`watchPeerReads`) is blocked reading and has read everything sent:
    /// nothing can arrive until this side writes (said at once, instead of waiting out a timeout).
    case peerAwaitsInput(peer: String)
    /// The peer reset the connection (ECONNRESET, EPIPE): it crashed, or closed with unread data.
    case connectionReset(peer: String)
    /// The peer closed the connection in an orderly way before the operation could complete.
    case connectionClosed(peer: String, detail: String)
    /// A message (or a part of one) exceeded a configured size limit.
    case tooLarge(LimitedPart, limit: Int)
    /// The client refused the server's certificate (pinning or name check). No request was sent.
    case certificateRefused(CertificateRefusal, detail: String)
    /// The TLS handshake failed for a reason other than the certificate check.
    case tlsHandshakeFailed(detail: String)
    /// A certificate or private key file that cannot be used (missing, unreadable, not PEM,
    /// key not matching the certificate).
    case tlsConfiguration(path: String, reason: String)
    /// The client speaks only https and was asked to use another scheme (`http://`): nothing was sent.
    case plainHTTPRefused(url: String)
    /// The peer's HTTP is malformed or unsupported.
    case httpProtocol(detail: String)
    /// A request body with a Transfer-Encoding (chunked): only Content-Length bodies are accepted.
    case transferEncodingRefused(encoding: String)
    /// A system call failed; `message` is the errno text.
    case io(operation: String, errno: Int32, message: String)
    /// A host name that did not resolve (no such name, no answer within the deadline).
    case cannotResolve(host: String, reason: String)
    /// A host or URL that is not usable (not an IP literal or `localhost`, malformed URL).
    case invalidAddress(String, reason: String)
    /// The connection, listener or server was closed before or during the operation.
    case closed(String)
    /// An OpenSSL call failed outside the cases above; the error keeps OpenSSL's whole queue.
    case openSSL(OpenSSLError)
    /// A library (libcurl) failed with a code Transport does not map to a case above.
    case unexpected(library: String, code: Int, detail: String)

    /// The part of a message a size limit applies to.
    public enum LimitedPart: String, Equatable, Sendable {
        case requestHead = "request line and headers"
        case requestBody = "request body"
        case responseHeaders = "response headers"
        case responseBody = "response body"
    }

    /// Why a client refused the server's certificate.
    public enum CertificateRefusal: Equatable, Sendable, CustomStringConvertible {
        /// Not the pinned certificate and not issued by it: a self-signed impostor or an unknown CA
        /// (X509_V_ERR 2, 18, 19, 20, 21).
        case unknownIssuer
        /// The certificate's notAfter is in the past (X509_V_ERR 10).
        case expired
        /// The certificate's notBefore is in the future (X509_V_ERR 9).
        case notYetValid
        /// The certificate is trusted but names another host (X509_V_ERR 62 or libcurl's name check).
        case hostNameMismatch
        /// Another verification failure; `code` is the X509_V_ERR number (0 when unknown).
        case other(code: Int)

        public var description: String {
            switch self {
            case .unknownIssuer: return "not the pinned certificate nor issued by it (self-signed or unknown issuer)"
            case .expired: return "the certificate has expired"
            case .notYetValid: return "the certificate is not yet valid"
            case .hostNameMismatch: return "the certificate does not name the host in the URL"
            case .other(let code): return "verification failed (X509_V_ERR \(code))"
            }
        }
    }
}

extension TransportError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .connectionRefused(host, port):
            return "connection refused by \(hostPort(host, port)): is the server running and listening on that address and port?"
        case let .timedOut(operation, seconds):
            return "\(operation) timed out after \(formatSeconds(seconds)) s"
        case let .peerAwaitsInput(peer):
            return "\(peer) is waiting for input: it has read everything sent and is blocked reading, so nothing can arrive until this side writes"
        case let .connectionReset(peer):
            return "connection reset by \(peer)"
        case let .connectionClosed(peer, detail):
            return "\(peer) closed the connection \(detail)"
        case let .tooLarge(part, limit):
            return "\(part.rawValue) exceeds the limit of \(limit) bytes"
        case let .certificateRefused(reason, detail):
            return "refused the server's certificate: \(reason)" + (detail.isEmpty ? "" : " (\(detail))")
                + ". The client trusts only its pinned certificate, for the host name in the URL."
        case let .tlsHandshakeFailed(detail):
            return "TLS handshake failed: \(detail)"
        case let .tlsConfiguration(path, reason):
            return "cannot use '\(path)' for TLS: \(reason)"
        case let .plainHTTPRefused(url):
            return "refused to send to \(url): this client speaks only https://"
        case let .httpProtocol(detail):
            return "HTTP protocol error: \(detail)"
        case let .transferEncodingRefused(encoding):
            return "Transfer-Encoding '\(encoding)' refused: send the request body with Content-Length"
        case let .io(operation, code, message):
            return "\(operation) failed: \(message) (errno \(code))"
        case let .cannotResolve(host, reason):
            return "cannot resolve \(host): \(reason); check the name, or pass its IP address"
        case let .invalidAddress(address, reason):
            return "invalid address '\(address)': \(reason)"
        case let .closed(what):
            return "\(what) is closed"
        case let .openSSL(error):
            return "\(error)"
        case let .unexpected(library, code, detail):
            return "\(library) error \(code)" + (detail.isEmpty ? "" : ": \(detail)")
        }
    }
}

/// `host:port`, with brackets around IPv6 literals.
func hostPort(_ host: String, _ port: UInt16) -> String {
    host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
}

private func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() && abs(seconds) < 1e9 ? String(Int(seconds)) : String(format: "%.3g", seconds)
}

/// The errno text for `code`.
func errnoText(_ code: Int32) -> String {
    String(cString: strerror(code))
}
