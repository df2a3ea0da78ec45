// Vectors — the `vectors` and `wycheproof` suites: fixed inputs from outside crosscheck. Keys and
// ciphertexts made with the OpenSSL command line (Vectors/openssl/, with a manifest; `crosscheck
// vectors generate|check`) into both implementations and theirs back through `openssl pkeyutl`;
// the vendored Project Wycheproof files on both implementations. (OpenSSLTool, the CLI runner, is
// in the core: the app checks use it too.)
// May import: Conformance (the core), WireCrypto; runs the `openssl` executable, nothing else.
import Foundation
import Conformance

public enum VectorSuites {
    public static let vectorsName = "vectors"
    public static let vectorsSummary = "Vectors/openssl/: the CLI's keys and ciphertexts into both implementations, theirs into openssl pkeyutl"
    public static let wycheproofName = "wycheproof"
    public static let wycheproofSummary = "the vendored Wycheproof files (RSA PKCS#1/OAEP, AES-GCM, ChaCha20-Poly1305, AES-CBC; RSA, ECDSA and Ed25519 signatures, ECDH, X25519, HKDF) on both implementations"

    /// `crosscheck run --suite vectors`: the committed `Vectors/openssl/` against both implementations and the CLI.
    public static func vectors(_ context: SuiteContext) -> [Check] {
        VectorChecks.checks(directory: context.files.openSSL, peers: [context.swift, context.python],
                            openssl: Result { try OpenSSLTool.locate() }.mapError { $0 as? OpenSSLToolError ?? .notFound("\($0)") },
                            seed: context.seed)
    }

    /// `crosscheck run --suite wycheproof`: the vendored Wycheproof files on both implementations.
    public static func wycheproof(_ context: SuiteContext) -> [Check] {
        let directory = context.files.wycheproof
        do {
            return WycheproofChecks.checks(files: try wycheproofTestFiles(in: directory), peers: [context.swift, context.python])
        } catch {
            return [WycheproofChecks.loadFailure(directory.lastPathComponent, error)]
        }
    }

    /// The Wycheproof test files in `directory` (`*_test.json`; the schemas live in `schemas/`), by name.
    public static func wycheproofTestFiles(in directory: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent.hasSuffix("_test.json") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }
}
