import Foundation
import XCTest
import CryptoKit
@testable import WireCrypto

// Apple's sample "Storing CryptoKit Keys in the Keychain", as apps copy it: a protocol with an
// inherited requirement (CustomStringConvertible) that Apple's key types adopt in plain extensions.
// It compiles only when each key name is a concrete type (an extension of a typealias of a generic
// specialisation is a conditional conformance, which cannot imply the inherited protocol). As in
// the apps, `description` is `public`: it witnesses a public protocol for a public type.

protocol GenericPasswordConvertible: CustomStringConvertible {
    init<D>(rawRepresentation data: D) throws where D: ContiguousBytes
    var rawRepresentation: Data { get }
}

extension GenericPasswordConvertible {
    public var description: String {
        return self.rawRepresentation.withUnsafeBytes { bytes in
            return "Key representation contains \(bytes.count) bytes."
        }
    }
}

extension P256.Signing.PrivateKey: GenericPasswordConvertible {}
extension P256.KeyAgreement.PrivateKey: GenericPasswordConvertible {}
extension P384.Signing.PrivateKey: GenericPasswordConvertible {}
extension P384.KeyAgreement.PrivateKey: GenericPasswordConvertible {}
extension P521.Signing.PrivateKey: GenericPasswordConvertible {}
extension P521.KeyAgreement.PrivateKey: GenericPasswordConvertible {}
extension Curve25519.Signing.PrivateKey: GenericPasswordConvertible {}
extension Curve25519.KeyAgreement.PrivateKey: GenericPasswordConvertible {}

extension SecureEnclave.P256.Signing.PrivateKey: GenericPasswordConvertible {
    init<D>(rawRepresentation data: D) throws where D: ContiguousBytes {
        try self.init(dataRepresentation: data.withUnsafeBytes { Data($0) })
    }

    var rawRepresentation: Data {
        return dataRepresentation
    }
}

final class KeychainSampleConformanceTests: XCTestCase {
    /// What the sample's keychain code does: describe the key, store its rawRepresentation, read it
    /// back through the protocol's init.
    private func roundTrip<K: GenericPasswordConvertible>(_ key: K, bytes: Int) throws -> K {
        XCTAssertEqual(key.description, "Key representation contains \(bytes) bytes.", "\(K.self)")
        XCTAssertEqual("\(key)", "Key representation contains \(bytes) bytes.", "\(K.self)")
        let stored = key.rawRepresentation
        XCTAssertEqual(stored.count, bytes, "\(K.self)")
        let loaded = try K(rawRepresentation: stored)
        XCTAssertEqual(loaded.rawRepresentation, stored, "\(K.self)")
        XCTAssertThrowsError(try K(rawRepresentation: Data(stored.dropLast())), "\(K.self): a truncated key must not load")
        return loaded
    }

    func testNISTAndCurve25519Keys_adoptTheSampleProtocol_andRoundTrip() throws {
        let p256 = P256.Signing.PrivateKey()
        let loaded256 = try roundTrip(p256, bytes: 32)
        XCTAssertEqual(loaded256.publicKey.x963Representation, p256.publicKey.x963Representation)
        let message = Data("stored in the keychain".utf8)
        XCTAssertTrue(p256.publicKey.isValidSignature(try loaded256.signature(for: message), for: message))

        let agreement = P256.KeyAgreement.PrivateKey()
        let loadedAgreement = try roundTrip(agreement, bytes: 32)
        let peer = P256.KeyAgreement.PrivateKey()
        XCTAssertEqual(try loadedAgreement.sharedSecretFromKeyAgreement(with: peer.publicKey),
                       try peer.sharedSecretFromKeyAgreement(with: agreement.publicKey))

        _ = try roundTrip(P384.Signing.PrivateKey(), bytes: 48)
        _ = try roundTrip(P384.KeyAgreement.PrivateKey(), bytes: 48)
        _ = try roundTrip(P521.Signing.PrivateKey(), bytes: 66)
        _ = try roundTrip(P521.KeyAgreement.PrivateKey(), bytes: 66)

        let ed = Curve25519.Signing.PrivateKey()
        XCTAssertEqual(try roundTrip(ed, bytes: 32).publicKey.rawRepresentation, ed.publicKey.rawRepresentation)
        let x = Curve25519.KeyAgreement.PrivateKey()
        XCTAssertEqual(try roundTrip(x, bytes: 32).publicKey.rawRepresentation, x.publicKey.rawRepresentation)
    }

    func testSecureEnclaveKey_adoptsTheSampleProtocol_throughItsDataRepresentation() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-ck-sample-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try SoftwareEnclave.withKeyFile(folder.appendingPathComponent("Library/crosscheck-secure-enclave.key")) {
            let key = try SecureEnclave.P256.Signing.PrivateKey()
            let blob = key.dataRepresentation
            XCTAssertEqual(key.rawRepresentation, blob)
            XCTAssertEqual(key.description, "Key representation contains \(blob.count) bytes.")
            let loaded = try SecureEnclave.P256.Signing.PrivateKey(rawRepresentation: blob)
            XCTAssertEqual(loaded.publicKey.x963Representation, key.publicKey.x963Representation)
            let message = Data("enclave key from the keychain".utf8)
            XCTAssertTrue(key.publicKey.isValidSignature(try loaded.signature(for: message), for: message))
            XCTAssertThrowsError(try SecureEnclave.P256.Signing.PrivateKey(rawRepresentation: Data(blob.dropLast())))
        }
    }
}
