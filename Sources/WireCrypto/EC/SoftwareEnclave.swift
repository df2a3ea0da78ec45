import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The software Secure Enclave's one secret: a per-machine AES-256 key in a file of the app's home
/// (`Library/crosscheck-secure-enclave.key`, mode 0600, made on first use), which seals enclave
/// private keys into opaque blobs. A device's enclave never lets a private key out; here the key
/// lives in this process's memory, and what leaves (a CryptoKit `dataRepresentation`, a keychain
/// item) is the sealed blob, which only a process with the same key file can open: the same
/// machine and container, as a device's blob loads back only on that device.
public enum SoftwareEnclave {
    /// "CCSE" and a version: the blob's header, also its authenticated data.
    static let magic = Data("CCSE\u{1}".utf8)
    static let nonceLength = 12
    static let tagLength = 16

    /// The key file, in the home of the process (an app's container under crosscheck).
    public static var keyFile: URL {
        keyFileOverride ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent("Library/crosscheck-secure-enclave.key")
    }

    @TaskLocal static var keyFileOverride: URL?

    /// Runs `body` with the machine key in `file` instead (tests: "another machine").
    public static func withKeyFile<R>(_ file: URL, _ body: () throws -> R) rethrows -> R {
        try $keyFileOverride.withValue(file) { try body() }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var cached: (path: String, key: Data)?

    /// The machine key: read from the key file, or made and written there (exclusively, so two
    /// processes starting together agree on one).
    static func machineKey() throws -> Data {
        lock.lock(); defer { lock.unlock() }
        let file = keyFile
        if let cached, cached.path == file.path { return cached.key }
        let key: Data
        if let existing = FileManager.default.contents(atPath: file.path), existing.count == 32 {
            key = existing
        } else {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            let fresh = secureRandomBytes(32)
            let descriptor = Glibc.open(file.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            if descriptor >= 0 {
                let written = fresh.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, 32) }
                Glibc.close(descriptor)
                guard written == 32 else { throw WireCryptoError.unsupported("cannot write the enclave key file \(file.path)") }
                key = fresh
            } else {
                guard let existing = FileManager.default.contents(atPath: file.path), existing.count == 32 else {
                    throw WireCryptoError.unsupported("the enclave key file \(file.path) cannot be made or read (errno \(errno))")
                }
                key = existing
            }
        }
        cached = (file.path, key)
        return key
    }

    /// `secret` (a private scalar) sealed for this machine: header ‖ nonce ‖ ciphertext ‖ tag.
    public static func seal(_ secret: Data) throws -> Data {
        let sealed = try AES.GCM.seal(secret, using: SymmetricKey(data: try machineKey()), authenticating: magic)
        return magic + Data(sealed.nonce) + sealed.ciphertext + sealed.tag
    }

    /// The secret in a blob `seal` made on this machine; anything else (another machine's blob,
    /// changed bytes, not a blob) is `WireCryptoError.authenticationFailure` or a length error.
    public static func open(_ blob: Data) throws -> Data {
        let bytes = Data(blob)
        guard bytes.count > magic.count + nonceLength + tagLength, bytes.prefix(magic.count) == magic else {
            throw WireCryptoError.invalidLength(what: "enclave key blob", length: bytes.count, expected: "a blob this machine's enclave sealed")
        }
        let body = bytes.dropFirst(magic.count)
        let box = try AES.GCM.SealedBox(combined: body)
        return try AES.GCM.open(box, using: SymmetricKey(data: try machineKey()), authenticating: magic)
    }
}
