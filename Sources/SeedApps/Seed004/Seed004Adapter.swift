// The adapter for seed 004 (not seed code): CryptoManager.shared sealing and opening real files.
// The app keeps its key in UserDefaults.standard ("encryptionKey", base64), made on first use.
import Foundation
import AppUnderTest

public final class Seed004Adapter: AppUnderTest, FileSealing {
    public let identifier = "seed-004"
    public let summary = "seed 004: CryptoKit AES.GCM file sealing (CryptoManager), the key as base64 in UserDefaults"
    public let aeadAlgorithm = "aes-gcm"

    public init() {}

    public func currentKey() throws -> Data {
        _ = CryptoManager.shared
        guard let value = UserDefaults.standard.string(forKey: KeyType.encryptionKey.name), let key = Data(base64Encoded: value) else {
            throw AppFailure("key", "the app has no key in UserDefaults")
        }
        return key
    }

    public func sealFile(at source: URL, to destination: URL) throws {
        guard let data = FileManager.default.contents(atPath: source.path) else { throw AppFailure("seal", "cannot read \(source.path)") }
        guard CryptoManager.shared.writeEncryptedData(to: destination.path, data: data) else {
            throw AppFailure("seal", "writeEncryptedData returned false")
        }
    }

    public func openFile(at source: URL, to destination: URL) throws {
        guard let data = FileManager.default.contents(atPath: source.path) else { throw AppFailure("open", "cannot read \(source.path)") }
        guard CryptoManager.shared.writeDecryptedData(to: destination.path, data: data) else {
            throw AppFailure("open", "writeDecryptedData returned false")
        }
    }
}
