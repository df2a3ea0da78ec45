import Foundation
import XCTest
import Conformance
import WireCrypto

final class RoundTripSuiteTests: XCTestCase {
    func testRoundTrip_swiftAndPythonAgreeOnEveryCheck() throws {
        let results = try runRoundTrip(swift: SwiftPeer(), filter: nil)
        XCTAssertGreaterThan(results.count, 400)
        let failures = results.filter(\.failed).map { "\($0.check.fullName): \($0.message)" }
        XCTAssertEqual(failures, [])
        let suites = Set(results.map(\.check.suite))
        XCTAssertEqual(suites, ["roundtrip.swift_to_python", "roundtrip.python_to_swift", "roundtrip.swift_vs_python"])
        let names = results.map(\.check.fullName)
        XCTAssertEqual(Set(names).count, names.count, "testcase names are unique")
        for expected in ["crosscheck.rsa-socket.swift_to_python.rsa4096.oaep-sha256.len446-max",
                         "crosscheck.rsa-socket.python_to_swift.rsa1024.pkcs1.len0",
                         "crosscheck.aes-https.python_to_swift.cbc256.envelope.len65536",
                         "crosscheck.sealed.swift_to_python.chachapoly.len1027",
                         "crosscheck.keys.python_to_swift.rsa2048.private.pkcs8-pem-encrypted",
                         "crosscheck.sealed.swift_vs_python.aes-gcm256.fixed-nonce.len17"] {
            XCTAssertTrue(names.contains(expected), expected)
        }
    }

    func testPlantedOAEPWithWrongMGFHash_failsTheOAEPSHA256ChecksAndNamesThem() throws {
        let results = try runRoundTrip(swift: DeliberatelyBrokenSwiftPeer(flaw: .oaepSHA256WithMGF1SHA1), filter: "rsa2048.oaep-sha256")
        let failed = results.filter(\.failed)
        XCTAssertFalse(failed.isEmpty)
        let swiftToPython = failed.first { $0.check.fullName == "crosscheck.rsa-socket.swift_to_python.rsa2048.oaep-sha256.len16" }
        XCTAssertEqual(swiftToPython?.message, "python failed to decrypt swift's ciphertext: DecryptFailed")
        let pythonToSwift = failed.first { $0.check.fullName == "crosscheck.rsa-socket.python_to_swift.rsa2048.oaep-sha256.len16" }
        XCTAssertEqual(pythonToSwift?.message, "swift failed to decrypt python's ciphertext: DecryptFailed")
        // The other paddings are untouched by this flaw and still pass.
        let others = try runRoundTrip(swift: DeliberatelyBrokenSwiftPeer(flaw: .oaepSHA256WithMGF1SHA1), filter: "rsa2048.oaep-sha1.len")
        XCTAssertFalse(others.isEmpty)
        XCTAssertEqual(others.filter(\.failed).count, 0)
    }

    func testPlantedZeroIVCBC_failsEnvelopesAndFixedIVComparisons() throws {
        let results = try runRoundTrip(swift: DeliberatelyBrokenSwiftPeer(flaw: .cbcWithZeroIV), filter: "cbc128")
        let failedNames = Set(results.filter(\.failed).map(\.check.fullName))
        XCTAssertTrue(failedNames.contains("crosscheck.aes-https.swift_to_python.cbc128.envelope.len1027"), "\(failedNames)")
        XCTAssertTrue(failedNames.contains("crosscheck.aes-https.swift_vs_python.cbc128.fixed-iv.len16"), "\(failedNames)")
        let comparison = results.first { $0.check.fullName == "crosscheck.aes-https.swift_vs_python.cbc128.fixed-iv.len16" }
        guard case let .failed(message, details)? = comparison?.outcome else { return XCTFail("expected a failure") }
        XCTAssertTrue(message.hasPrefix("swift and python AES-CBC ciphertext: "), message)
        XCTAssertTrue(message.contains(" of 32 bytes differ (first at offset 0, last at offset ") && message.hasSuffix("; expected 32 bytes, actual 32 bytes"), message)
        XCTAssertTrue(details.hasPrefix("byte diff: "), details)
        XCTAssertTrue(details.contains("expected: 32 bytes "), details)
        // Envelopes the broken side only opens (python → swift) are unaffected.
        XCTAssertFalse(failedNames.contains("crosscheck.aes-https.python_to_swift.cbc128.envelope.len1027"))
    }

    func testPlantedGCMThatIgnoresAAD_failsOnlyTheAADChecks() throws {
        let results = try runRoundTrip(swift: DeliberatelyBrokenSwiftPeer(flaw: .gcmDropsAAD), filter: "aes-gcm256")
        let failedNames = Set(results.filter(\.failed).map(\.check.name))
        XCTAssertTrue(failedNames.contains("aes-gcm256.aad.len31"))
        XCTAssertTrue(failedNames.contains("aes-gcm256.fixed-nonce.len17"), "odd lengths carry associated data")
        XCTAssertFalse(failedNames.contains("aes-gcm256.fixed-nonce.len16"))
        XCTAssertFalse(failedNames.contains("aes-gcm256.len1027"))
    }
}

final class RunnerTests: XCTestCase {
    func testRunner_turnsThrownErrorsIntoVerdictsAndHonoursStop() {
        let checks = [
            Check(suite: "s", classname: "c", name: "passes") { .passed },
            Check(suite: "s", classname: "c", name: "mismatch") { throw CheckFailure("differs", details: "hex") },
            Check(suite: "s", classname: "c", name: "refused") { throw PeerFailure(.badKey, "no key") },
            Check(suite: "s", classname: "c", name: "skips") { .skipped(reason: "not here") },
        ]
        let results = Runner().run(checks)
        XCTAssertEqual(results.map(\.outcome), [
            .passed, .failed(message: "differs", details: "hex"),
            .error(message: "unexpected refusal: BadKey", details: "no key"), .skipped(reason: "not here"),
        ])
        var calls = 0
        let stopped = Runner().run(checks, shouldStop: { calls += 1; return calls > 2 })
        XCTAssertEqual(stopped.count, 2)
        XCTAssertEqual(Runner(filter: "MISMATCH").selected(checks).map(\.name), ["mismatch"])
    }

    func testSeededGenerator_isReproduciblePerCheckName() {
        var a = SeededGenerator.forCheck("x", seed: 5), b = SeededGenerator.forCheck("x", seed: 5)
        var c = SeededGenerator.forCheck("y", seed: 5)
        let first = a.bytes(40)
        XCTAssertEqual(first, b.bytes(40))
        XCTAssertNotEqual(first, c.bytes(40))
        XCTAssertEqual(first.count, 40)
    }

    /// The bytes are the words' little-endian bytes in order, the last word cut short: seeds in
    /// reports and fuzz reproducers regenerate their inputs from this stream, so it may not change.
    func testSeededGenerator_bytesAreTheWordsLittleEndian_whateverTheCount() {
        for count in 0...20 {
            var generator = SeededGenerator(seed: 7), words = SeededGenerator(seed: 7)
            var expected: [UInt8] = []
            while expected.count < count { expected += withUnsafeBytes(of: words.next().littleEndian, Array.init) }
            XCTAssertEqual(generator.bytes(count), Data(expected.prefix(count)), "count \(count)")
            var after = SeededGenerator(seed: 7).skipping((count + 7) / 8)
            XCTAssertEqual(generator.next(), after.next(), "count \(count): one word per 8 bytes or part")
        }
    }

    func testKeyCache_remembersAFailedGeneration() throws {
        let cache = KeyCache()
        let peer = try pythonPeer()
        XCTAssertThrowsError(try cache.key(of: peer, bits: 100)) { XCTAssertEqual(($0 as? PeerFailure)?.kind, .badInput) }
        XCTAssertThrowsError(try cache.key(of: peer, bits: 100))
        let key = try cache.key(of: peer, bits: 1024)
        XCTAssertEqual(try cache.key(of: peer, bits: 1024), key, "generated once, then served from the cache")
    }
}

private extension SeededGenerator {
    func skipping(_ words: Int) -> SeededGenerator {
        var generator = self
        for _ in 0..<words { _ = generator.next() }
        return generator
    }
}
