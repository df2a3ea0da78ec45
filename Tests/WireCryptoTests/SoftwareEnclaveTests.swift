import Foundation
import XCTest
@testable import WireCrypto

/// The software enclave's machine key and blobs: a blob opens only with the key file that sealed
/// it (this machine), and any changed byte is refused.
final class SoftwareEnclaveTests: XCTestCase {
    private func scratchFile() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-enclave-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder.appendingPathComponent("Library/crosscheck-secure-enclave.key")
    }

    func testBlob_opensOnlyOnItsMachine_andRefusesChanges() throws {
        let here = try scratchFile(), elsewhere = try scratchFile()
        let scalar = secureRandomBytes(32)
        let blob = try SoftwareEnclave.withKeyFile(here) { try SoftwareEnclave.seal(scalar) }
        XCTAssertEqual(blob.count, 5 + 12 + 32 + 16)
        XCTAssertNil(blob.range(of: scalar), "the blob does not hold the key in the clear")
        XCTAssertEqual(try SoftwareEnclave.withKeyFile(here) { try SoftwareEnclave.open(blob) }, scalar)
        // The key file: 32 bytes, readable by its owner only.
        let attributes = try FileManager.default.attributesOfItem(atPath: here.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual((attributes[.size] as? NSNumber)?.intValue, 32)
        XCTAssertThrowsError(try SoftwareEnclave.withKeyFile(elsewhere) { try SoftwareEnclave.open(blob) }, "another machine's enclave")
        for index in [0, 6, 20, blob.count - 1] {
            var changed = blob
            changed[index] ^= 0x01
            XCTAssertThrowsError(try SoftwareEnclave.withKeyFile(here) { try SoftwareEnclave.open(changed) }, "byte \(index)")
        }
        XCTAssertThrowsError(try SoftwareEnclave.withKeyFile(here) { try SoftwareEnclave.open(scalar) }, "not a blob")
    }
}
