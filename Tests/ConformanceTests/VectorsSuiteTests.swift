import Foundation
import XCTest
import Conformance
@testable import Vectors
import WireCrypto

/// The OpenSSL command-line vectors: the committed folder passes on both implementations and the
/// CLI; edits, planted flaws and a missing CLI are reported; regeneration keeps AES-CBC identical.
final class VectorsSuiteTests: XCTestCase {
    static let committed = URL(fileURLWithPath: repositoryRoot).appendingPathComponent("Vectors/openssl")

    func openssl() throws -> OpenSSLTool { try OpenSSLTool.locate() }

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-vectors-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func copyOfCommitted() throws -> URL {
        let copy = try temporaryDirectory().appendingPathComponent("openssl")
        try FileManager.default.copyItem(at: Self.committed, to: copy)
        return copy
    }

    func run(_ directory: URL, peers: [CryptoPeer], openssl: Result<OpenSSLTool, OpenSSLToolError>? = nil) throws -> [CheckResult] {
        let tool = try openssl ?? .success(self.openssl())
        return Runner().run(VectorChecks.checks(directory: directory, peers: peers, openssl: tool, seed: 5))
    }

    // MARK: SHA-256 of the manifest

    func testManifestDigest_agreesWithOpenSSLDgstAtEveryPaddingBoundary() throws {
        let directory = try temporaryDirectory()
        let lengths = [1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000]
        var generator = SeededGenerator(seed: 42)
        var expected: [String: String] = [:]
        for length in lengths {
            let data = generator.bytes(length)
            try data.write(to: directory.appendingPathComponent("f\(length)"))
            expected["f\(length)"] = VectorManifest.digest(data)
        }
        let outcome = try openssl().run(["dgst", "-sha256", "-r"] + lengths.map { "f\($0)" }, in: directory)
        XCTAssertTrue(outcome.succeeded, outcome.stderr)
        var printed: [String: String] = [:]
        for line in String(decoding: outcome.stdout, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ")
            printed[String(parts[1].drop { $0 == "*" })] = String(parts[0])
        }
        XCTAssertEqual(printed, expected)
    }

    // MARK: the committed folder

    func testCommittedVectors_bothImplementationsAndTheCLIPassEveryCheck() throws {
        let results = try run(Self.committed, peers: [SwiftPeer(), try pythonPeer()])
        XCTAssertEqual(results.filter(\.failed).map { "\($0.check.fullName): \($0.message)" }, [])
        let manifest = try VectorManifest.load(from: Self.committed)
        let nonPlaintexts = manifest.files.filter { $0.kind != .plaintext }.count
        // manifest + published-ciphertext checks, every non-plaintext file per implementation,
        // 4 sizes × 3 paddings × 2 plaintexts per implementation into the CLI.
        XCTAssertEqual(results.count, 1 + 3 + 2 * nonPlaintexts + 2 * 4 * 3 * 2)
        let names = Set(results.map(\.check.fullName))
        for expected in ["crosscheck.openssl-cli.manifest.manifest.matches-files",
                         "crosscheck.openssl-cli.manifest.aes/aes256-cbc-sp800-38a.bin.published-ciphertext",
                         "crosscheck.openssl-cli.openssl_to_python.rsa4096/private-pkcs8-encrypted.pem",
                         "crosscheck.openssl-cli.openssl_to_swift.rsa1024/rsautl-pkcs1-tutorial.bin",
                         "crosscheck.openssl-cli.openssl_to_swift.aes/aes192-cbc-login.b64",
                         "crosscheck.openssl-cli.python_to_openssl.rsa3072.oaep-sha256.len318-max",
                         "crosscheck.openssl-cli.swift_to_openssl.rsa1024.pkcs1.len30"] {
            XCTAssertTrue(names.contains(expected), expected)
        }
    }

    func testCommittedManifest_recordsEveryFormatCommandAndPlaintext() throws {
        let manifest = try VectorManifest.load(from: Self.committed)
        XCTAssertTrue(manifest.opensslVersion.hasPrefix("OpenSSL 3."), manifest.opensslVersion)
        XCTAssertEqual(manifest.keys.map(\.bits), [1024, 2048, 3072, 4096])
        let formats = Set(manifest.files.compactMap { $0.kind == .rsaPrivateKey || $0.kind == .rsaPublicKey ? $0.format : nil })
        XCTAssertEqual(formats, ["pkcs8-pem", "pkcs1-pem", "pkcs8-pem-encrypted", "spki-pem", "spki-der"])
        for entry in manifest.files where entry.kind != .plaintext {
            XCTAssertTrue(entry.command?.hasPrefix("openssl ") ?? false, entry.path)
            XCTAssertEqual(entry.command?.contains(entry.path), true, "\(entry.path): the command writes the file it lists")
        }
        for entry in manifest.files where entry.kind == .rsaCiphertext || entry.kind == .aesCBCCiphertext {
            XCTAssertNotNil(entry.plaintext, entry.path)
        }
        XCTAssertEqual(Set(manifest.files.filter { $0.kind == .rsaCiphertext }.compactMap(\.tool)), ["pkeyutl", "rsautl"])
        XCTAssertTrue(manifest.files.filter { $0.kind == .aesCBCCiphertext }.allSatisfy(\.deterministic))
        XCTAssertTrue(manifest.integrity(of: Self.committed).isClean, manifest.integrity(of: Self.committed).summary)
    }

    // MARK: edits, flaws and a missing CLI

    func testEditedMissingAndExtraFiles_areEachReportedAndNothingIsRegenerated() throws {
        let copy = try copyOfCommitted()
        let edited = copy.appendingPathComponent("rsa2048/pkeyutl-oaep-sha256-tutorial.bin")
        var bytes = try Data(contentsOf: edited)
        bytes[0] ^= 1
        try bytes.write(to: edited)
        try FileManager.default.removeItem(at: copy.appendingPathComponent("rsa3072/public-spki.der"))
        try Data("stray".utf8).write(to: copy.appendingPathComponent("aes/stray.bin"))

        let manifest = try VectorManifest.load(from: copy)
        let integrity = manifest.integrity(of: copy)
        XCTAssertEqual(integrity.edited, ["rsa2048/pkeyutl-oaep-sha256-tutorial.bin"])
        XCTAssertEqual(integrity.missing, ["rsa3072/public-spki.der"])
        XCTAssertEqual(integrity.extra, ["aes/stray.bin"])

        let results = try run(copy, peers: [SwiftPeer()])
        let failed = Dictionary(uniqueKeysWithValues: results.filter(\.failed).map { ($0.check.fullName, $0.message) })
        XCTAssertEqual(failed["crosscheck.openssl-cli.manifest.manifest.matches-files"],
                       "openssl/ does not match its manifest: edited since generation: rsa2048/pkeyutl-oaep-sha256-tutorial.bin; missing: rsa3072/public-spki.der; not in the manifest: aes/stray.bin")
        XCTAssertTrue(failed["crosscheck.openssl-cli.openssl_to_swift.rsa2048/pkeyutl-oaep-sha256-tutorial.bin"]?
            .hasPrefix("rsa2048/pkeyutl-oaep-sha256-tutorial.bin was edited since generation: its sha256 is") ?? false)
        XCTAssertEqual(failed["crosscheck.openssl-cli.openssl_to_swift.rsa3072/public-spki.der"],
                       "rsa3072/public-spki.der is missing (listed in the manifest); regenerate with 'make vectors'")
        // The CLI direction encrypts to public-spki.der for oaep-sha1: those checks fail too, and say why.
        XCTAssertEqual(failed["crosscheck.openssl-cli.swift_to_openssl.rsa3072.oaep-sha1.len30"],
                       "rsa3072/public-spki.der is missing (listed in the manifest); regenerate with 'make vectors'")
        XCTAssertEqual(failed.count, 5, "\(failed.keys.sorted())")
        // Reported, not repaired.
        XCTAssertEqual(try Data(contentsOf: edited), bytes)
        XCTAssertTrue(FileManager.default.fileExists(atPath: copy.appendingPathComponent("aes/stray.bin").path))
        XCTAssertEqual(try VectorManifest.load(from: copy), manifest)
    }

    func testMissingOrBrokenManifest_isOneErrorThatSaysHowToFixIt() throws {
        let copy = try copyOfCommitted()
        try Data("{}".utf8).write(to: copy.appendingPathComponent("manifest.json"))
        let broken = try run(copy, peers: [SwiftPeer()])
        XCTAssertEqual(broken.count, 1)
        XCTAssertTrue(broken[0].message.contains("not a vector manifest"), broken[0].message)
        try FileManager.default.removeItem(at: copy.appendingPathComponent("manifest.json"))
        let missing = try run(copy, peers: [SwiftPeer()])
        XCTAssertTrue(missing[0].message.contains("run 'make vectors'"), missing[0].message)
    }

    func testPlantedOAEPWithWrongMGFHash_failsBothDirectionsOfOAEPSHA256Only() throws {
        let results = try run(Self.committed, peers: [DeliberatelyBrokenSwiftPeer(flaw: .oaepSHA256WithMGF1SHA1)])
        let failed = results.filter(\.failed)
        XCTAssertFalse(failed.isEmpty)
        XCTAssertTrue(failed.allSatisfy { $0.check.name.contains("oaep-sha256") }, "\(failed.map(\.check.name))")
        // 4 sizes × 3 pkeyutl plaintexts, and 4 sizes × 2 plaintexts into the CLI.
        XCTAssertEqual(failed.count, 12 + 8)
        let cli = try XCTUnwrap(failed.first { $0.check.fullName == "crosscheck.openssl-cli.swift_to_openssl.rsa2048.oaep-sha256.len30" })
        XCTAssertEqual(cli.message, "'openssl pkeyutl -decrypt' refused swift's oaep-sha256 ciphertext (exit 1)")
        let decrypt = try XCTUnwrap(failed.first { $0.check.name == "rsa2048/pkeyutl-oaep-sha256-tutorial.bin" })
        XCTAssertEqual(decrypt.message, "swift failed to decrypt rsa2048/pkeyutl-oaep-sha256-tutorial.bin (pkeyutl oaep-sha256) with rsa2048/private-pkcs8.pem: DecryptFailed")
    }

    func testPlantedZeroIVCBC_failsTheByteForByteComparisonWithOpenSSL() throws {
        let results = try run(Self.committed, peers: [DeliberatelyBrokenSwiftPeer(flaw: .cbcWithZeroIV)])
        let failed = results.filter(\.failed)
        XCTAssertEqual(failed.count, 18, "every AES-CBC file: \(failed.map(\.check.name))")
        XCTAssertTrue(failed.allSatisfy { $0.message.hasPrefix("swift's AES-CBC with openssl's key and IV:") }, failed.first?.message ?? "")
    }

    func testNoOpenSSL_failsOnlyTheCLIDirectionAndSaysSo() throws {
        let results = try run(Self.committed, peers: [SwiftPeer()], openssl: .failure(.notFound("openssl-nowhere")))
        let failed = results.filter(\.failed)
        XCTAssertEqual(failed.count, 24)
        XCTAssertTrue(failed.allSatisfy { $0.check.suite == "vectors.swift_to_openssl" })
        XCTAssertTrue(failed[0].message.hasPrefix("cannot run the CLI checks: the openssl command 'openssl-nowhere' was not found"), failed[0].message)
    }

    // MARK: generation

    func testGeneratingTwice_givesByteIdenticalAESFilesAndFreshRSAKeys() throws {
        let root = try temporaryDirectory()
        let (first, second) = (root.appendingPathComponent("one"), root.appendingPathComponent("two"))
        let generator = VectorGenerator(openssl: try openssl(), keySizes: [1024])
        let a = try generator.generate(into: first)
        let b = try generator.generate(into: second)
        let deterministic = a.files.filter(\.deterministic)
        XCTAssertEqual(deterministic.filter { $0.kind == .aesCBCCiphertext }.count, 18)
        for entry in deterministic {
            XCTAssertEqual(try Data(contentsOf: first.appendingPathComponent(entry.path)),
                           try Data(contentsOf: second.appendingPathComponent(entry.path)), entry.path)
            XCTAssertEqual(b.entry(entry.path)?.sha256, entry.sha256, entry.path)
        }
        XCTAssertNotEqual(a.keySet(named: "rsa1024")?.modulus, b.keySet(named: "rsa1024")?.modulus)
        XCTAssertNotEqual(a.entry("rsa1024/private-pkcs8.pem")?.sha256, b.entry("rsa1024/private-pkcs8.pem")?.sha256)
        // The regenerated folder passes as the committed one does.
        let results = try run(second, peers: [SwiftPeer(), try pythonPeer()])
        XCTAssertEqual(results.filter(\.failed).map { "\($0.check.fullName): \($0.message)" }, [])
        XCTAssertGreaterThan(results.count, 50)
    }

    func testRecordedCommandLines_reproduceTheDeterministicFilesExactly() throws {
        let copy = try copyOfCommitted()
        let manifest = try VectorManifest.load(from: copy)
        let aes = manifest.files.filter { $0.kind == .aesCBCCiphertext }
        for entry in aes { try FileManager.default.removeItem(at: copy.appendingPathComponent(entry.path)) }
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-e", "-c", aes.compactMap(\.command).joined(separator: "\n")]
        shell.currentDirectoryURL = copy
        try shell.run()
        shell.waitUntilExit()
        XCTAssertEqual(shell.terminationStatus, 0)
        XCTAssertTrue(manifest.integrity(of: copy).isClean, manifest.integrity(of: copy).summary)
    }

    func testFailedGeneration_leavesTheExistingFolderAsItWas() throws {
        let copy = try copyOfCommitted()
        let before = try VectorManifest.load(from: copy)
        let failing = VectorGenerator(openssl: OpenSSLTool(executable: URL(fileURLWithPath: "/bin/false")), keySizes: [1024])
        XCTAssertThrowsError(try failing.generate(into: copy)) { error in
            guard case let VectorGenerationError.commandFailed(command, status, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(command, "openssl genrsa -out rsa1024/private-pkcs8.pem 1024")
            XCTAssertEqual(status, 1)
        }
        XCTAssertEqual(try VectorManifest.load(from: copy), before)
        XCTAssertTrue(before.integrity(of: copy).isClean, before.integrity(of: copy).summary)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: copy.deletingLastPathComponent().path)
        XCTAssertEqual(leftovers, ["openssl"], "no staging folder is left behind")
    }
}
