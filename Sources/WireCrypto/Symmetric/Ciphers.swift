import Foundation
internal import COpenSSL

/// An `EVP_CIPHER` fetched once. Fetching by name per call costs a provider look-up each time
/// (OpenSSL 3's implicit fetch), which shows up when sealing many small messages.
final class FetchedCipher: @unchecked Sendable {
    let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_CIPHER_free(pointer) }

    private static func fetch(_ name: String) -> FetchedCipher {
        guard let pointer = EVP_CIPHER_fetch(nil, name, nil) else {
            // The default provider always has these; without it no crypto can run at all.
            preconditionFailure("OpenSSL has no \(name): \(OpenSSLError.drainQueue())")
        }
        return FetchedCipher(pointer)
    }

    static let aes128CBC = fetch("AES-128-CBC")
    static let aes192CBC = fetch("AES-192-CBC")
    static let aes256CBC = fetch("AES-256-CBC")
    static let aes128ECB = fetch("AES-128-ECB")
    static let aes192ECB = fetch("AES-192-ECB")
    static let aes256ECB = fetch("AES-256-ECB")
    static let aes128GCM = fetch("AES-128-GCM")
    static let aes192GCM = fetch("AES-192-GCM")
    static let aes256GCM = fetch("AES-256-GCM")
    static let chaCha20Poly1305 = fetch("ChaCha20-Poly1305")
    static let chaCha20 = fetch("ChaCha20")
    static let aes128CTR = fetch("AES-128-CTR")
    static let aes192CTR = fetch("AES-192-CTR")
    static let aes256CTR = fetch("AES-256-CTR")
    static let aes128CFB = fetch("AES-128-CFB")
    static let aes192CFB = fetch("AES-192-CFB")
    static let aes256CFB = fetch("AES-256-CFB")
    static let aes128CFB8 = fetch("AES-128-CFB8")
    static let aes192CFB8 = fetch("AES-192-CFB8")
    static let aes256CFB8 = fetch("AES-256-CFB8")
    static let aes128OFB = fetch("AES-128-OFB")
    static let aes192OFB = fetch("AES-192-OFB")
    static let aes256OFB = fetch("AES-256-OFB")
    static let aes128Wrap = fetch("AES-128-WRAP")
    static let aes192Wrap = fetch("AES-192-WRAP")
    static let aes256Wrap = fetch("AES-256-WRAP")
}

/// Owns one `EVP_CIPHER_CTX` for the length of `body`.
func withCipherContext<R>(_ body: (OpaquePointer) throws -> R) throws -> R {
    guard let context = EVP_CIPHER_CTX_new() else { throw openSSLFailure("EVP_CIPHER_CTX_new") }
    defer { EVP_CIPHER_CTX_free(context) }
    return try body(context)
}

/// Pointer helpers: OpenSSL takes `unsigned char *`, Swift buffers hand raw pointers.
extension UnsafeRawBufferPointer {
    var uint8: UnsafePointer<UInt8>? { baseAddress?.assumingMemoryBound(to: UInt8.self) }
}
extension UnsafeMutableRawBufferPointer {
    var uint8: UnsafeMutablePointer<UInt8>? { baseAddress?.assumingMemoryBound(to: UInt8.self) }
}
