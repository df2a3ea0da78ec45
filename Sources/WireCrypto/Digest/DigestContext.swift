import Foundation
internal import COpenSSL

/// A running hash (`EVP_MD_CTX`) that can be fed in pieces and copied mid-stream. CryptoKit's
/// `HashFunction` values are structs whose copies hash independently; `copy()` gives that.
public final class DigestContext: @unchecked Sendable {
    private let context: OpaquePointer

    /// A fresh context for `digest`. The default provider always has the SHA-1/SHA-2 family.
    public convenience init(_ digest: Digest) { self.init(openSSLName: digest.rawValue) }

    /// MD5 (RFC 1321), broken for collisions: only for apps that still checksum with it
    /// (CommonCrypto's `CC_MD5`, CryptoKit's `Insecure.MD5`), never for the protocol.
    public static func _WEAK_AND_INSECURE_MD5() -> DigestContext { DigestContext(openSSLName: "MD5") }

    /// The digest of `bytes` in one EVP_Digest call, written to `output` (room for the digest),
    /// returning its length: no context to allocate, and the hash fetched once per process
    /// (OpenSSL 3 fetches an implementation on every init by name otherwise). `digest` nil: MD5.
    @discardableResult
    public static func hash(_ bytes: UnsafeRawBufferPointer, digest: Digest?, into output: UnsafeMutablePointer<UInt8>) -> Int {
        var length: UInt32 = 0
        let status = EVP_Digest(bytes.baseAddress, bytes.count, output, &length, FetchedDigests.md(digest?.rawValue ?? "MD5"), nil)
        precondition(status == 1, "EVP_Digest failed: \(OpenSSLError.drainQueue())")
        return Int(length)
    }

    private init(openSSLName name: String) {
        guard let context = EVP_MD_CTX_new() else {
            preconditionFailure("EVP_MD_CTX_new failed (out of memory): \(OpenSSLError.drainQueue())")
        }
        guard EVP_DigestInit_ex(context, EVP_get_digestbyname(name), nil) == 1 else {
            preconditionFailure("EVP_DigestInit_ex(\(name)) failed: \(OpenSSLError.drainQueue())")
        }
        self.context = context
    }

    private init(copying other: DigestContext) {
        guard let context = EVP_MD_CTX_new(), EVP_MD_CTX_copy_ex(context, other.context) == 1 else {
            preconditionFailure("EVP_MD_CTX_copy_ex failed (out of memory): \(OpenSSLError.drainQueue())")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// An independent context in the same state.
    public func copy() -> DigestContext { DigestContext(copying: self) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        // EVP_DigestUpdate fails only on a context that was never initialised, which cannot happen here.
        _ = EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
    }

    /// The digest of everything fed so far; the context itself is left as it was (a copy is finished).
    public func finalize() -> [UInt8] {
        let finishing = copy()
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = EVP_DigestFinal_ex(finishing.context, &output, &length)
        return Array(output.prefix(Int(length)))
    }

    /// The digest's length in bytes.
    public var byteCount: Int { Int(EVP_MD_get_size(EVP_MD_CTX_get0_md(context))) }

    /// The hash function's block size in bytes (HMAC pads its key to this).
    public var blockByteCount: Int { Int(EVP_MD_get_block_size(EVP_MD_CTX_get0_md(context))) }
}

/// Hash implementations fetched once (EVP_MD_fetch) and kept for the life of the process.
private enum FetchedDigests {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var fetched: [String: OpaquePointer] = [:]

    static func md(_ name: String) -> OpaquePointer {
        lock.lock(); defer { lock.unlock() }
        if let md = fetched[name] { return md }
        guard let md = EVP_MD_fetch(nil, name, nil) else { preconditionFailure("EVP_MD_fetch(\(name)) failed: \(OpenSSLError.drainQueue())") }
        fetched[name] = md
        return md
    }
}
