import Foundation
import XCTest
import CryptoKit
import TestSupport

/// `Insecure.MD5` as apps use it for checksums: RFC 1321's test suite, pieces and copies, and pyca.
final class InsecureMD5Tests: XCTestCase {
    func testRFC1321Suite() {
        let suite = [("", "d41d8cd98f00b204e9800998ecf8427e"), ("a", "0cc175b9c0f1b6a831c399e269772661"),
                     ("abc", "900150983cd24fb0d6963f7d28e17f72"), ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
                     ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
                     (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a")]
        for (text, expected) in suite {
            let digest = Insecure.MD5.hash(data: Data(text.utf8))
            XCTAssertEqual(digest.map { String(format: "%02hhx", $0) }.joined(), expected, text)
            XCTAssertEqual(digest.description, "MD5 digest: \(expected)")
        }
        XCTAssertEqual(Insecure.MD5.byteCount, 16)
        XCTAssertEqual(Insecure.MD5Digest.byteCount, 16)
    }

    func testPiecesAndCopies_matchPyca() throws {
        let message = Data((0..<777).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var hasher = Insecure.MD5()
        hasher.update(data: message.prefix(100))
        let branch = hasher
        hasher.update(data: message.dropFirst(100))
        XCTAssertEqual(Data(hasher.finalize()), Data(Insecure.MD5.hash(data: message)))
        XCTAssertEqual(Data(branch.finalize()), Data(Insecure.MD5.hash(data: message.prefix(100))))
        let pyca = try python("""
            import sys
            from cryptography.hazmat.primitives import hashes
            h = hashes.Hash(hashes.MD5()); h.update(bytes.fromhex(sys.stdin.read().strip())); print(h.finalize().hex())
            """, input: message.map { String(format: "%02x", $0) }.joined())
        XCTAssertEqual(Insecure.MD5.hash(data: message).map { String(format: "%02x", $0) }.joined(), pyca)
    }
}
