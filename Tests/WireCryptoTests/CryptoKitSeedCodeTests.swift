// The seed code of 003 and 004, written exactly as it is written for CryptoKit: the only change
// is `import WireCrypto` in place of `import CryptoKit`. If this file compiles and passes, seed-style
// CryptoKit code runs against crosscheck's Swift side unchanged.
import Foundation
import XCTest
import WireCrypto

// Seed 004: SymmetricKey+Initializer.swift
extension SymmetricKey {
    init?(base64EncodedString string: String) {
        guard let data = Data(base64Encoded: string) else {
            return nil
        }
        self.init(data: data)
    }

    func serialize() -> String {
        return self.withUnsafeBytes { body in
            Data(body).base64EncodedString()
        }
    }
}

enum AppError: Error {
    case error
}

// Seed 004: CryptoManager's encrypt/decrypt, without UserDefaults and files.
final class SeedCryptoManager {
    private var symmetricKey: SymmetricKey!

    init(serializedKey: String?) {
        if let value = serializedKey, let key = SymmetricKey(base64EncodedString: value) {
            symmetricKey = key
            return
        }
        symmetricKey = SymmetricKey(size: .bits256)
    }

    var serializedKey: String { symmetricKey.serialize() }

    func encrypt(data: Data) throws -> Data {
        do {
            let sealedBox = try AES.GCM.seal(data, using: symmetricKey)
            guard let data = sealedBox.combined else {
                throw AppError.error
            }
            return data
        } catch _ {
            throw AppError.error
        }
    }

    func decrypt(data: Data) throws -> Data {
        do {
            let sealedBox = try AES.GCM.SealedBox(combined: data)
            return try AES.GCM.open(sealedBox, using: symmetricKey)
        } catch _ {
            throw AppError.error
        }
    }
}

final class CryptoKitSeedCodeTests: XCTestCase {
    // Seed 003: computeSymmetricKey, keyData via withUnsafeBytes, seal/combined!/SealedBox/open.
    func testSeed003_sealAndReopenWithARestoredKey() throws {
        func computeSymmetricKey() -> SymmetricKey {
            return SymmetricKey(size: .bits256)
        }
        let secretKey = computeSymmetricKey()
        let keyData = secretKey.withUnsafeBytes { Data($0) }
        XCTAssertEqual(keyData.count, 32)
        let restored = SymmetricKey(data: keyData)

        let plainText = "this is our golden secret. Encrypt it!".data(using: .utf8)!
        let sealedBox = try AES.GCM.seal(plainText, using: secretKey)
        let cipherText = sealedBox.combined!   // nonce + ciphertext + tag
        XCTAssertEqual(cipherText.count, 12 + plainText.count + 16)

        let reopened = try AES.GCM.SealedBox(combined: cipherText)
        let decrypted = try AES.GCM.open(reopened, using: restored)
        XCTAssertEqual(decrypted, plainText)
    }

    func testSeed004_managerPersistsItsKeyAsBase64AndOpensWhatItSealed() throws {
        let first = SeedCryptoManager(serializedKey: nil)
        let file = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0) })
        let sealed = try first.encrypt(data: file)
        let second = SeedCryptoManager(serializedKey: first.serializedKey)
        XCTAssertEqual(try second.decrypt(data: sealed), file)
        XCTAssertEqual(Data(base64Encoded: first.serializedKey)?.count, 32)
        let stranger = SeedCryptoManager(serializedKey: nil)
        XCTAssertThrowsError(try stranger.decrypt(data: sealed))
    }
}
