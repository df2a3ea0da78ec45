import Foundation
internal import COpenSSL

/// HKDF (RFC 5869) over OpenSSL's `EVP_KDF` "HKDF", with any SHA-1/SHA-2 hash: extract, expand, or
/// both. What CryptoKit's `HKDF<H>` and `SharedSecret.hkdfDerivedSymmetricKey` compute.
public enum HKDF {
    /// Extract then expand (RFC 5869 §2): `outputByteCount` bytes of OKM.
    /// An empty salt is the same as no salt (a string of HashLen zeros, §2.2).
    public static func deriveKey<IKM: DataProtocol, Salt: DataProtocol, Info: DataProtocol>(
        digest: Digest, inputKeyMaterial: IKM, salt: Salt, info: Info, outputByteCount: Int
    ) throws -> [UInt8] {
        try checkOutputLength(outputByteCount, digest: digest)
        return try run(.extractAndExpand, digest: digest, key: inputKeyMaterial, salt: salt, info: info, length: outputByteCount)
    }

    /// HKDF-Extract (§2.2): the pseudorandom key, HashLen bytes, HMAC-Hash(salt, IKM).
    public static func extract<IKM: DataProtocol, Salt: DataProtocol>(
        digest: Digest, inputKeyMaterial: IKM, salt: Salt
    ) throws -> [UInt8] {
        try run(.extractOnly, digest: digest, key: inputKeyMaterial, salt: salt, info: [UInt8](), length: digest.byteCount)
    }

    /// HKDF-Expand (§2.3): `outputByteCount` bytes from a pseudorandom key (at least HashLen bytes
    /// in the RFC; OpenSSL, like Apple's CryptoKit, takes any length).
    public static func expand<PRK: DataProtocol, Info: DataProtocol>(
        digest: Digest, pseudoRandomKey: PRK, info: Info, outputByteCount: Int
    ) throws -> [UInt8] {
        try checkOutputLength(outputByteCount, digest: digest)
        return try run(.expandOnly, digest: digest, key: pseudoRandomKey, salt: [UInt8](), info: info, length: outputByteCount)
    }

    /// The longest output RFC 5869 allows: 255 blocks of the hash.
    public static func maximumOutputByteCount(_ digest: Digest) -> Int { 255 * digest.byteCount }

    private static func checkOutputLength(_ count: Int, digest: Digest) throws {
        guard count >= 1, count <= maximumOutputByteCount(digest) else {
            throw WireCryptoError.invalidLength(what: "HKDF-\(digest.rawValue) output", length: count,
                                                expected: "1…\(maximumOutputByteCount(digest)) (255 × \(digest.byteCount), RFC 5869 §2.3)")
        }
    }

    /// OpenSSL's `EVP_KDF_HKDF_MODE_*` values.
    private enum Mode: Int32 {
        case extractAndExpand = 0, extractOnly = 1, expandOnly = 2
    }

    private static func run<Key: DataProtocol, Salt: DataProtocol, Info: DataProtocol>(
        _ mode: Mode, digest: Digest, key: Key, salt: Salt, info: Info, length: Int
    ) throws -> [UInt8] {
        guard let context = EVP_KDF_CTX_new(FetchedKDF.hkdf.pointer) else { throw openSSLFailure("EVP_KDF_CTX_new(HKDF)") }
        defer { EVP_KDF_CTX_free(context) }
        var modeValue = mode.rawValue
        var output = [UInt8](repeating: 0, count: length)
        let status = withContiguousBytes(key) { keyBytes in
            withContiguousBytes(salt) { saltBytes in
                withContiguousBytes(info) { infoBytes in
                    digest.rawValue.withCString { digestName in
                        withUnsafeMutablePointer(to: &modeValue) { modePointer in
                            var params = [
                                OSSL_PARAM_construct_utf8_string(KDFParameter.digest, UnsafeMutablePointer(mutating: digestName), 0),
                                OSSL_PARAM_construct_int(KDFParameter.mode, modePointer),
                                KDFParameter.octets(KDFParameter.key, keyBytes),
                                KDFParameter.octets(KDFParameter.salt, saltBytes),
                                KDFParameter.octets(KDFParameter.info, infoBytes),
                                OSSL_PARAM_construct_end(),
                            ]
                            return EVP_KDF_derive(context, &output, length, &params)
                        }
                    }
                }
            }
        }
        guard status == 1 else { throw openSSLFailure("EVP_KDF_derive(HKDF-\(digest.rawValue))") }
        return output
    }
}

/// An `EVP_KDF` fetched once for the life of the process.
final class FetchedKDF: @unchecked Sendable {
    let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_KDF_free(pointer) }

    static func fetch(_ name: String) -> FetchedKDF {
        guard let pointer = EVP_KDF_fetch(nil, name, nil) else {
            // The default provider always has these; without it no crypto can run at all.
            preconditionFailure("OpenSSL has no KDF \(name): \(OpenSSLError.drainQueue())")
        }
        return FetchedKDF(pointer)
    }

    static let hkdf = fetch("HKDF")
}

/// `OSSL_PARAM` names for KDFs, from static storage: an `OSSL_PARAM` keeps the name's pointer, so
/// it must outlive the call that builds the array (a Swift string's temporary C copy does not).
enum KDFParameter {
    static var digest: UnsafePointer<CChar> { name("digest") }
    static var mode: UnsafePointer<CChar> { name("mode") }
    static var key: UnsafePointer<CChar> { name("key") }
    static var salt: UnsafePointer<CChar> { name("salt") }
    static var info: UnsafePointer<CChar> { name("info") }

    private static func name(_ text: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// An octet-string parameter over `bytes`. An empty buffer may have no address; OpenSSL reads a
    /// NULL octet string as a failure, so an empty one points at a static byte instead.
    static func octets(_ name: UnsafePointer<CChar>, _ bytes: UnsafeRawBufferPointer) -> OSSL_PARAM {
        let address = bytes.baseAddress ?? UnsafeRawPointer(emptyByte.utf8Start)
        return OSSL_PARAM_construct_octet_string(name, UnsafeMutableRawPointer(mutating: address), bytes.count)
    }

    private static var emptyByte: StaticString { "\0" }
}
