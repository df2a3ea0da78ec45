import Foundation
import XCTest
import CommonCrypto
import TestSupport

/// CommonDigest's MD2 and MD4 (deprecated on Apple's side, still declared), called as app code
/// calls them: the RFCs' own test suites, pieces and copies equal to the one-shot, and MD4 against
/// the openssl command (its legacy provider). No tool here has MD2 (Debian's OpenSSL 3 is built
/// without it, pyca has none), so RFC 1319's suite is MD2's only peer.
final class LegacyDigestTests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    private func oneShot(_ function: (UnsafeRawPointer?, CC_LONG, UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>?,
                         _ data: Data) -> String {
        var digest = [UInt8](repeating: 0xAA, count: 16)
        data.withUnsafeBytes { _ = function($0.baseAddress, CC_LONG(data.count), &digest) }
        return hex(digest)
    }

    /// RFC 1319 A.5 and RFC 1320 A.5 ("Test suite"): the same seven messages for both.
    private static let suite = [
        "", "a", "abc", "message digest", "abcdefghijklmnopqrstuvwxyz",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
    ]

    func testMD2_RFC1319TestSuite() {
        let expected = [
            "8350e5a3e24c153df2275c9f80692773", "32ec01ec4a6dac72c0ab96fb34c0b5d1", "da853b0d3f88d99b30283a69e6ded6bb",
            "ab4f496bfb2a530b219ff33031fe06b0", "4e8ddff3650292ab5a4108c3aa47940b", "da33def2a42df13975352846c30338cd",
            "d5976f79d83d3a0dc9806c3c66f3efd8",
        ]
        for (message, digest) in zip(Self.suite, expected) {
            XCTAssertEqual(oneShot(CC_MD2, Data(message.utf8)), digest, "MD2(\"\(message)\")")
        }
        XCTAssertEqual(CC_MD2_DIGEST_LENGTH, 16)
        XCTAssertEqual(CC_MD2_BLOCK_BYTES, 64)  // Apple's header's value
    }

    func testMD4_RFC1320TestSuite() {
        let expected = [
            "31d6cfe0d16ae931b73c59d7e0c089c0", "bde52cb31de33e46245e05fbdbd6fb24", "a448017aaf21d8525fc10ae87aa6729d",
            "d9130a8164549fe818874806e1c7014b", "d79e1c308aa5bbcdeea8ed63df412da9", "043f8582f241db351ce627e153e7f0e4",
            "e33b4ddc9c38f2199c3e7b164fcc0536",
        ]
        for (message, digest) in zip(Self.suite, expected) {
            XCTAssertEqual(oneShot(CC_MD4, Data(message.utf8)), digest, "MD4(\"\(message)\")")
        }
        XCTAssertEqual(CC_MD4_DIGEST_LENGTH, 16)
        XCTAssertEqual(CC_MD4_BLOCK_BYTES, 64)
    }

    /// Init/Update/Final in uneven pieces (across block ends: 16 bytes for MD2, 64 for MD4) equals the
    /// one-shot; a context copied mid-stream goes on alone; a finished context starts again; the
    /// one-shot returns its md argument, and nil md gives nil, as Apple's header says.
    func testContexts_piecesCopiesRestartAndNilOutput() {
        let message = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let cuts = [0, 1, 15, 16, 17, 63, 64, 65, 200, 999, 1000]
        var md2 = CC_MD2_CTX(), md4 = CC_MD4_CTX()
        for round in 0..<2 {
            XCTAssertEqual(CC_MD2_Init(&md2), 1); XCTAssertEqual(CC_MD4_Init(&md4), 1)
            var md2Branch = CC_MD2_CTX(), md4Branch = CC_MD4_CTX()
            for (start, end) in zip(cuts, cuts.dropFirst()) {
                message[start..<end].withUnsafeBytes {
                    XCTAssertEqual(CC_MD2_Update(&md2, $0.baseAddress, CC_LONG($0.count)), 1)
                    XCTAssertEqual(CC_MD4_Update(&md4, $0.baseAddress, CC_LONG($0.count)), 1)
                }
                if end == 65 { md2Branch = md2; md4Branch = md4 }
            }
            var out2 = [UInt8](repeating: 0, count: 16), out4 = [UInt8](repeating: 0, count: 16)
            XCTAssertEqual(CC_MD2_Final(&out2, &md2), 1); XCTAssertEqual(CC_MD4_Final(&out4, &md4), 1)
            XCTAssertEqual(hex(out2), oneShot(CC_MD2, message), "round \(round)")
            XCTAssertEqual(hex(out4), oneShot(CC_MD4, message), "round \(round)")
            CC_MD2_Final(&out2, &md2Branch); CC_MD4_Final(&out4, &md4Branch)
            XCTAssertEqual(hex(out2), oneShot(CC_MD2, message.prefix(65)))
            XCTAssertEqual(hex(out4), oneShot(CC_MD4, message.prefix(65)))
        }
        var out = [UInt8](repeating: 0, count: 16)
        out.withUnsafeMutableBufferPointer { buffer in
            XCTAssertEqual(CC_MD2("x", 1, buffer.baseAddress), buffer.baseAddress)
            XCTAssertEqual(CC_MD4("x", 1, buffer.baseAddress), buffer.baseAddress)
        }
        XCTAssertNil(CC_MD2("x", 1, nil))
        XCTAssertNil(CC_MD4("x", 1, nil))
    }

    /// The sweep's cheap names (issue 34): header constants app code sizes buffers with, Apple's values.
    func testHeaderConstants_haveApplesValues() {
        XCTAssertEqual(CC_HMAC_CONTEXT_SIZE, 96)
        XCTAssertEqual([CC_MD2_DIGEST_LENGTH, CC_MD4_DIGEST_LENGTH, CC_MD5_DIGEST_LENGTH], [16, 16, 16])
        XCTAssertEqual([CC_MD2_BLOCK_BYTES, CC_MD4_BLOCK_BYTES, CC_MD5_BLOCK_BYTES], [64, 64, 64])
    }

    /// MD4 of random messages (lengths around the 55/56/64-byte padding edges) equals
    /// `openssl dgst -md4` with OpenSSL 3's legacy provider.
    func testMD4_matchesOpenSSL() throws {
        let probe = try runProgram("/usr/bin/openssl", ["dgst", "-md4", "-provider", "legacy", "-provider", "default"], input: Data("abc".utf8))
        try XCTSkipUnless(probe.status == 0, "openssl's legacy provider (MD4) is not installed: \(probe.errorText)")
        let scratch = try Scratch()
        for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 1000, 4099] {
            let message = Data((0..<length).map { _ in UInt8.random(in: 0...255) })
            try scratch.write("message", message)
            let line = String(decoding: try scratch.openssl(["dgst", "-md4", "-provider", "legacy", "-provider", "default", "-r", "message"]),
                              as: UTF8.self)
            XCTAssertEqual(oneShot(CC_MD4, message), String(line.prefix(32)), "length \(length)")
        }
    }
}
