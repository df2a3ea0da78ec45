import Foundation
internal import COpenSSL

/// One AES cipher context (an `EVP_CIPHER_CTX`) kept across calls, for APIs that feed data in pieces
/// and carry the chaining value or counter from one call to the next (CommonCrypto's `CCCryptor`).
/// OpenSSL never pads here: ECB and CBC take whole blocks only (the caller pads and buffers by its
/// own rules); the stream modes (CTR, CFB, CFB8, OFB) take any length and keep their position.
public final class AESCipherContext: @unchecked Sendable {
    public enum Mode: Sendable, CaseIterable {
        case ecb, cbc
        /// Counter mode: the IV is a 128-bit big-endian counter, incremented whole (SP 800-38A §B.1).
        case ctr
        /// CFB with 128-bit feedback, CFB with 8-bit feedback, OFB (SP 800-38A §6.3, §6.4).
        case cfb, cfb8, ofb

        /// Whether input must be whole 16-byte blocks.
        public var isBlockMode: Bool { self == .ecb || self == .cbc }
    }

    public static let blockSize = 16
    public static let allowedKeySizes = [16, 24, 32]

    public let mode: Mode
    private let context: OpaquePointer

    /// A context for `mode` under `key` (16, 24 or 32 bytes). A nil `iv` is 16 zero bytes; ECB
    /// ignores it; any other IV must be 16 bytes.
    public init(mode: Mode, encrypt: Bool, key: UnsafeRawBufferPointer, iv: [UInt8]?) throws {
        let cipher = try Self.cipher(mode, keyBytes: key.count)
        let iv = try Self.checkedIV(iv, mode: mode)
        guard let context = EVP_CIPHER_CTX_new() else { throw openSSLFailure("EVP_CIPHER_CTX_new") }
        self.mode = mode
        self.context = context
        let initialised = iv.withUnsafeBufferPointer { v in
            EVP_CipherInit_ex2(context, cipher.pointer, key.uint8, mode == .ecb ? nil : v.baseAddress, encrypt ? 1 : 0, nil)
        }
        guard initialised == 1 else { throw openSSLFailure("EVP_CipherInit_ex2(AES \(mode))") }
        guard EVP_CIPHER_CTX_set_padding(context, 0) == 1 else { throw openSSLFailure("EVP_CIPHER_CTX_set_padding") }
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// Encrypts or decrypts `input` into `output` (room for `input.count` bytes), continuing from
    /// where the previous call stopped; returns the number of bytes written (always `input.count`).
    @discardableResult
    public func update(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer) throws -> Int {
        if mode.isBlockMode && input.count % Self.blockSize != 0 {
            throw WireCryptoError.invalidLength(what: "AES-\(mode) input", length: input.count, expected: "a multiple of 16")
        }
        guard input.count > 0 else { return 0 }
        guard input.count <= Int(Int32.max) else {
            throw WireCryptoError.invalidLength(what: "AES-\(mode) input", length: input.count, expected: "at most 2 GiB per call")
        }
        var written: Int32 = 0
        guard EVP_CipherUpdate(context, output.assumingMemoryBound(to: UInt8.self), &written, input.uint8, Int32(input.count)) == 1 else {
            throw openSSLFailure("EVP_CipherUpdate(AES \(mode))")
        }
        return Int(written)
    }

    /// `input` through a fresh context in one call: a stream mode (CTR, CFB, CFB8, OFB) takes any
    /// length, ECB and CBC whole blocks. For code that has the whole message at once.
    public static func process(_ input: Data, mode: Mode, encrypt: Bool, key: Data, iv: Data?) throws -> Data {
        let context = try key.withUnsafeBytes { try AESCipherContext(mode: mode, encrypt: encrypt, key: $0, iv: iv.map { [UInt8]($0) }) }
        var output = Data(count: input.count)
        if input.isEmpty { return output }
        try input.withUnsafeBytes { source in
            try output.withUnsafeMutableBytes { _ = try context.update(source, into: $0.baseAddress!) }
        }
        return output
    }

    /// Starts again from `iv` (nil: zeros) under the same key: the chaining value, the counter and
    /// any position inside a stream-mode block are reset.
    public func reset(iv: [UInt8]?) throws {
        let iv = try Self.checkedIV(iv, mode: mode)
        let status = iv.withUnsafeBufferPointer { EVP_CipherInit_ex2(context, nil, nil, $0.baseAddress, -1, nil) }
        guard status == 1 else { throw openSSLFailure("EVP_CipherInit_ex2(AES \(mode) new IV)") }
        guard EVP_CIPHER_CTX_set_padding(context, 0) == 1 else { throw openSSLFailure("EVP_CIPHER_CTX_set_padding") }
    }

    private static func checkedIV(_ iv: [UInt8]?, mode: Mode) throws -> [UInt8] {
        guard let iv else { return [UInt8](repeating: 0, count: blockSize) }
        guard iv.count == blockSize || mode == .ecb else {
            throw WireCryptoError.invalidLength(what: "AES-\(mode) IV", length: iv.count, expected: "16")
        }
        return iv
    }

    static func cipher(_ mode: Mode, keyBytes: Int) throws -> FetchedCipher {
        guard let index = allowedKeySizes.firstIndex(of: keyBytes) else {
            throw WireCryptoError.incorrectKeySize(bytes: keyBytes, allowed: allowedKeySizes)
        }
        let ciphers: [FetchedCipher]
        switch mode {
        case .ecb: ciphers = [.aes128ECB, .aes192ECB, .aes256ECB]
        case .cbc: ciphers = [.aes128CBC, .aes192CBC, .aes256CBC]
        case .ctr: ciphers = [.aes128CTR, .aes192CTR, .aes256CTR]
        case .cfb: ciphers = [.aes128CFB, .aes192CFB, .aes256CFB]
        case .cfb8: ciphers = [.aes128CFB8, .aes192CFB8, .aes256CFB8]
        case .ofb: ciphers = [.aes128OFB, .aes192OFB, .aes256OFB]
        }
        return ciphers[index]
    }
}
