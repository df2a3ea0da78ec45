import Foundation
import XCTest
import CryptoKit
@testable import WireCrypto
import TestSupport

/// CryptoKit's SecureEnclave.P256 on the software enclave: available, signs (pyca verifies),
/// agrees keys with an ordinary P256 key, and its dataRepresentation loads back only with this
/// machine's enclave key.
final class SecureEnclaveTests: XCTestCase {
    private func keyFile() -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-ck-enclave-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder.appendingPathComponent("Library/crosscheck-secure-enclave.key")
    }

    func testSigning_pycaVerifies_andTheBlobLoadsOnlyHere() throws {
        XCTAssertTrue(SecureEnclave.isAvailable)
        let here = keyFile(), elsewhere = keyFile()
        try SoftwareEnclave.withKeyFile(here) {
            let key = try SecureEnclave.P256.Signing.PrivateKey()
            let message = Data("signed inside the enclave \(UUID())".utf8)
            let signature = try key.signature(for: message)
            XCTAssertTrue(key.publicKey.isValidSignature(signature, for: message))
            let verdict = try python("""
                from cryptography.hazmat.primitives import hashes
                from cryptography.hazmat.primitives.asymmetric import ec
                k = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex('\(key.publicKey.x963Representation.map { String(format: "%02x", $0) }.joined())'))
                k.verify(bytes.fromhex('\(signature.derRepresentation.map { String(format: "%02x", $0) }.joined())'), bytes.fromhex('\(message.map { String(format: "%02x", $0) }.joined())'), ec.ECDSA(hashes.SHA256()))
                print('ok')
                """)
            XCTAssertEqual(verdict, "ok")
            // The blob is opaque (not the key's bytes) and loads back into the same key.
            let blob = key.dataRepresentation
            let loaded = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: blob)
            XCTAssertEqual(loaded.publicKey.x963Representation, key.publicKey.x963Representation)
            XCTAssertTrue(key.publicKey.isValidSignature(try loaded.signature(for: message), for: message))
            XCTAssertThrowsError(try SoftwareEnclave.withKeyFile(elsewhere) { try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: blob) },
                                 "another machine's enclave cannot load it")
            XCTAssertThrowsError(try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: Data(blob.dropLast())))
        }
    }

    func testKeyAgreement_matchesAnOrdinaryP256Key() throws {
        try SoftwareEnclave.withKeyFile(keyFile()) {
            let enclave = try SecureEnclave.P256.KeyAgreement.PrivateKey()
            let peer = P256.KeyAgreement.PrivateKey()
            let ours = try enclave.sharedSecretFromKeyAgreement(with: peer.publicKey)
            let theirs = try peer.sharedSecretFromKeyAgreement(with: enclave.publicKey)
            XCTAssertEqual(ours, theirs)
            let reloaded = try SecureEnclave.P256.KeyAgreement.PrivateKey(dataRepresentation: enclave.dataRepresentation)
            XCTAssertEqual(try reloaded.sharedSecretFromKeyAgreement(with: peer.publicKey), theirs)
        }
    }
}
