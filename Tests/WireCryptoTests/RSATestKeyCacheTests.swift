import Foundation
import XCTest
@testable import WireCrypto

/// `make test`'s cache of generated RSA keys (CROSSCHECK_TEST_KEY_CACHE): distinct keys within a
/// process, the cached key for a later one, a damaged or wrong-sized file made again, and no cache
/// at all when none is set.
final class RSATestKeyCacheTests: XCTestCase {
    /// A kind no other test uses, so that this process's count for it starts at 0.
    private func freshKind() -> String { "test-\(UUID().uuidString.prefix(8))" }

    private func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("key-cache-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    private func modulus(_ key: RSAPrivateKey) -> String { key.info.modulusHex }

    func testEachCallInAProcess_getsItsOwnKey_andWritesItForTheNextProcess() throws {
        let directory = try folder(), kind = freshKind()
        var made = 0
        let make: () throws -> RSAPrivateKey = { made += 1; return try RSAPrivateKey(appleGeneratorBits: 1024) }
        let first = try RSATestKeyCache.key(bits: 1024, kind: kind, in: directory, make: make)
        let second = try RSATestKeyCache.key(bits: 1024, kind: kind, in: directory, make: make)
        XCTAssertEqual(made, 2)
        XCTAssertNotEqual(modulus(first), modulus(second), "two keys asked for in one process are two keys")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        XCTAssertEqual(files, ["rsa-\(kind)-1024-0.der", "rsa-\(kind)-1024-1.der"])
        let written = try RSAPrivateKey(importing: Data(contentsOf: directory.appendingPathComponent("rsa-\(kind)-1024-1.der")))
        XCTAssertEqual(modulus(written), modulus(second))
    }

    func testACachedKey_isTheOneAProcessGets_withoutMakingOne() throws {
        let directory = try folder(), kind = freshKind()
        let cached = try RSAPrivateKey(appleGeneratorBits: 1024)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try cached.exported(.pkcs8DER).write(to: directory.appendingPathComponent("rsa-\(kind)-1024-0.der"))
        let key = try RSATestKeyCache.key(bits: 1024, kind: kind, in: directory) {
            XCTFail("a cached key was made again"); return try RSAPrivateKey(appleGeneratorBits: 1024)
        }
        XCTAssertEqual(modulus(key), modulus(cached))
    }

    func testADamagedOrWrongSizedFile_isMadeAgain_andReplaced() throws {
        let directory = try folder(), kind = freshKind()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let damaged = directory.appendingPathComponent("rsa-\(kind)-1024-0.der")
        let wrongSize = directory.appendingPathComponent("rsa-\(kind)-1024-1.der")
        try Data("not a key".utf8).write(to: damaged)
        try RSAPrivateKey(appleGeneratorBits: 512).exported(.pkcs8DER).write(to: wrongSize)
        var made = 0
        for file in [damaged, wrongSize] {
            let key = try RSATestKeyCache.key(bits: 1024, kind: kind, in: directory) { made += 1; return try RSAPrivateKey(appleGeneratorBits: 1024) }
            XCTAssertEqual(key.bits, 1024)
            XCTAssertEqual(modulus(try RSAPrivateKey(importing: Data(contentsOf: file))), modulus(key), "\(file.lastPathComponent) now holds the new key")
        }
        XCTAssertEqual(made, 2)
    }

    func testNoCache_everyKeyIsMade_andNothingIsWritten() throws {
        var made = 0
        for _ in 0..<2 {
            _ = try RSATestKeyCache.key(bits: 1024, kind: freshKind(), in: nil) { made += 1; return try RSAPrivateKey(appleGeneratorBits: 1024) }
        }
        XCTAssertEqual(made, 2)
    }
}
