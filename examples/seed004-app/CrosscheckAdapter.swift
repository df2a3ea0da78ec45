// The adapter (not app code): maps seed 004's CryptoManager onto AppUnderTest's FileSealing, so
// `crosscheck run --app examples/seed004-app` checks the app's own file sealing against PythonRef.
// CryptManager.swift and SymmetricKey+Initializer.swift next to it are seed 004's two files exactly
// as the seed prints them (lines 146–273 of 004_c5628d83a3ef37cf.txt), unchanged.
import Foundation
import AppUnderTest

final class Seed004ExampleAdapter: AppUnderTest, FileSealing {
    let identifier = "example-seed004"
    let summary = "examples/seed004-app: seed 004's CryptoManager (CryptoKit AES.GCM file sealing, the key in UserDefaults), built and hosted by crosscheck"
    let aeadAlgorithm = "aes-gcm"

    /// The key as the app keeps it: base64 in UserDefaults.standard under "encryptionKey", made on first use.
    func currentKey() throws -> Data {
        _ = CryptoManager.shared
        guard let value = UserDefaults.standard.string(forKey: KeyType.encryptionKey.name), let key = Data(base64Encoded: value) else {
            throw AppFailure("key", "the app has no key in UserDefaults")
        }
        return key
    }

    func sealFile(at source: URL, to destination: URL) throws {
        guard let data = FileManager.default.contents(atPath: source.path) else { throw AppFailure("seal", "cannot read \(source.path)") }
        guard CryptoManager.shared.writeEncryptedData(to: destination.path, data: data) else {
            throw AppFailure("seal", "writeEncryptedData returned false")
        }
    }

    func openFile(at source: URL, to destination: URL) throws {
        guard let data = FileManager.default.contents(atPath: source.path) else { throw AppFailure("open", "cannot read \(source.path)") }
        guard CryptoManager.shared.writeDecryptedData(to: destination.path, data: data) else {
            throw AppFailure("open", "writeDecryptedData returned false")
        }
    }
}

/// The entry point crosscheck's host calls.
func makeAppUnderTest() -> AppUnderTest { Seed004ExampleAdapter() }
