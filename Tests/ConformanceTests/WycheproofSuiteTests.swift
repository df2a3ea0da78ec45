import Foundation
import XCTest
import Conformance
@testable import Vectors
import WireCrypto

/// Wycheproof vectors as checks: the real implementations pass; planted flaws fail the vectors
/// (and oracle checks) they should, with messages that say what came back.
final class WycheproofSuiteTests: XCTestCase {
    static let directory = WycheproofLoaderTests.directory

    func run(_ checks: [Check]) -> [CheckResult] { Runner().run(checks) }

    func file(_ name: String, editing edit: ((inout [String: Any]) -> Void)? = nil) throws -> WycheproofFile {
        let data = try Data(contentsOf: Self.directory.appendingPathComponent(name))
        guard let edit else { return try WycheproofFile(json: data, fileName: name) }
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        edit(&json)
        return try WycheproofFile(json: try JSONSerialization.data(withJSONObject: json), fileName: name)
    }

    func testVendoredFiles_bothImplementations_passEveryVectorTheyCanExpress() throws {
        let urls = try VectorSuites.wycheproofTestFiles(in: Self.directory)
        let results = run(WycheproofChecks.checks(files: urls, peers: [SwiftPeer(), try pythonPeer()]))
        XCTAssertEqual(results.filter(\.failed).map { "\($0.check.fullName): \($0.message)" }, [])
        XCTAssertEqual(results.count, 2 * 7692 + 3 * 2 + 3)  // every vector twice, an oracle check per RSA file and implementation, 3 comparisons
        var skipped: [String: Int] = [:]
        for result in results { if case .skipped = result.outcome { skipped[result.check.suite, default: 0] += 1 } }
        // AES-GCM: nonces under 96 bits (43) no Apple API takes; pyca also cannot take the three of 257 bytes.
        let expected = ["wycheproof.aes_gcm_test.swift": 43, "wycheproof.aes_gcm_test.python": 46,
                        "wycheproof.chacha20_poly1305_test.swift": 9, "wycheproof.chacha20_poly1305_test.python": 9]
        XCTAssertEqual(skipped, expected)
        let tc9 = try XCTUnwrap(results.first { $0.check.suite == "wycheproof.rsa_pkcs1_2048_test.python" && $0.check.name == "rsa_pkcs1_2048_test.tc9" })
        XCTAssertEqual(tc9.check.classname, "crosscheck.rsa-socket.wycheproof_to_python")
        XCTAssertEqual(tc9.check.properties["flags"], "InvalidPkcs1Padding")
        XCTAssertEqual(tc9.check.properties["comment"], "The padding string is all 0.")
        XCTAssertEqual(tc9.check.properties["result"], "invalid")
        XCTAssertTrue(results.contains { $0.check.fullName == "crosscheck.rsa-socket.swift_vs_python.rsa_pkcs1_2048_test.oracle.InvalidPkcs1Padding" && $0.outcome == .passed })
        let gcmSkip = results.first { $0.check.suite == "wycheproof.aes_gcm_test.swift" && $0.check.properties["skip"] != nil }
        guard case let .skipped(reason)? = gcmSkip?.outcome else { return XCTFail("expected a skipped AES-GCM vector") }
        XCTAssertTrue(reason.hasPrefix("IV under 96 bits: this one has"), reason)
        // Longer nonces run through CryptoKit's separate nonce/ciphertext/tag form and must pass.
        let longNonce = results.filter { $0.check.suite == "wycheproof.aes_gcm_test.swift" && ($0.check.properties["flags"] ?? "").contains("LongIv") }
        XCTAssertFalse(longNonce.isEmpty)
        XCTAssertEqual(longNonce.filter { $0.outcome != .passed }.map(\.check.name), [])
    }

    /// The separate-parts form refuses what it must: a flipped tag or ciphertext bit under a 16-byte nonce.
    func testSeparateParts_longNonce_tamperedBoxIsRefusedByBoth() throws {
        for peer in [SwiftPeer() as CryptoPeer, try pythonPeer()] {
            let key = Data(repeating: 7, count: 32), nonce = Data(repeating: 9, count: 16)
            let parts = try peer.aeadSealParts(.aesGCM, key: key, nonce: nonce, plaintext: Data("pi".utf8), aad: Data("h".utf8))
            XCTAssertEqual(try peer.aeadOpenParts(.aesGCM, key: key, nonce: nonce, parts: parts, aad: Data("h".utf8)), Data("pi".utf8))
            var badTag = parts
            badTag.tag[0] ^= 1
            XCTAssertThrowsError(try peer.aeadOpenParts(.aesGCM, key: key, nonce: nonce, parts: badTag, aad: Data("h".utf8))) {
                XCTAssertEqual(($0 as? PeerFailure)?.kind, .authFailed, peer.name)
            }
            XCTAssertThrowsError(try peer.aeadSealParts(.aesGCM, key: key, nonce: Data(count: 11), plaintext: Data(), aad: nil)) {
                XCTAssertEqual(($0 as? PeerFailure)?.kind, .badLength, peer.name)
            }
        }
    }

    /// Wycheproof varies the OAEP hash and MGF1 hash independently; every pair must interoperate both ways
    /// (PythonPeer sends explicit `hash`/`mgf1_hash` names for pairs other than SHA-1/SHA-1 and SHA-256/SHA-256).
    func testOAEPEveryHashPairWithALabel_swiftAndPythonDecryptEachOthers() throws {
        let (swift, python) = (SwiftPeer(), try pythonPeer())
        let key = try swift.generateRSAKey(bits: 2048)
        let message = Data("every hash pair".utf8)
        var failures: [String] = []
        for hash in Digest.allCases {
            for mgf1 in Digest.allCases {
                let padding = RSAEncryptionPadding.oaep(hash: hash, mgf1: mgf1, label: Data("label \(hash.rawValue)".utf8))
                for (sender, receiver) in [(swift as CryptoPeer, python as CryptoPeer), (python, swift)] {
                    do {
                        let ciphertext = try sender.rsaEncrypt(publicKey: key.publicKeyPEM, padding: padding, plaintext: message)
                        let decrypted = try receiver.rsaDecrypt(privateKey: key.privateKeyPEM, passphrase: nil, padding: padding, ciphertext: ciphertext)
                        if decrypted != message { failures.append("\(padding) \(sender.name)→\(receiver.name): other bytes") }
                        let other = RSAEncryptionPadding.oaep(hash: hash, mgf1: mgf1 == .sha1 ? .sha256 : .sha1, label: padding.oaepParameters!.label)
                        if (try? receiver.rsaDecrypt(privateKey: key.privateKeyPEM, passphrase: nil, padding: other, ciphertext: ciphertext)) != nil {
                            failures.append("\(padding) \(sender.name)→\(receiver.name): decrypts under MGF1 \(other.oaepParameters!.mgf1) too")
                        }
                    } catch {
                        failures.append("\(padding) \(sender.name)→\(receiver.name): \(error)")
                    }
                }
            }
        }
        XCTAssertEqual(failures, [])
    }

    func testPlantedImplicitRejection_failsInvalidPKCS1VectorsAndTheOracleCheck() throws {
        // Returns a synthetic plaintext instead of an error, as OpenSSL 3.2's implicit rejection does.
        let peer = PlantedPeer(rsaDecrypt: { real, key, padding, ciphertext in
            do { return try real.rsaDecrypt(privateKey: key, passphrase: nil, padding: padding, ciphertext: ciphertext) } catch {
                guard padding.isWeak, ciphertext.count == 256 else { throw error }
                return Data(ciphertext.suffix(5))
            }
        })
        let results = run(WycheproofChecks.checks(for: try file("rsa_pkcs1_2048_test.json"), peers: [peer]))
        let failed = Dictionary(uniqueKeysWithValues: results.filter(\.failed).map { ($0.check.name, $0.message) })
        XCTAssertEqual(failed["rsa_pkcs1_2048_test.tc9"],
                       "rsa_pkcs1_2048_test.json tcId 9 (invalid, InvalidPkcs1Padding): invalid, but swift released 5 bytes: a synthetic plaintext (implicit rejection, or a decoding bug)")
        XCTAssertTrue(failed["rsa_pkcs1_2048_test.oracle.InvalidPkcs1Padding"]?.hasPrefix("swift did not refuse every InvalidPkcs1Padding vector: tcId 9 released 5 bytes") ?? false)
        XCTAssertNil(failed["rsa_pkcs1_2048_test.tc1"], "valid vectors are unaffected")
        XCTAssertNil(failed["rsa_pkcs1_2048_test.tc32"], "an empty ciphertext is still refused")
    }

    func testPlantedDistinguishableErrors_failOnlyTheOracleCheck() throws {
        // Refuses every bad ciphertext, but with a kind that depends on the ciphertext: an oracle.
        let peer = PlantedPeer(rsaDecrypt: { real, key, padding, ciphertext in
            do { return try real.rsaDecrypt(privateKey: key, passphrase: nil, padding: padding, ciphertext: ciphertext) } catch let failure as PeerFailure {
                guard failure.kind == .decryptFailed, let first = ciphertext.first, first < 0x80 else { throw failure }
                throw PeerFailure(.badPadding, "leading byte small")
            }
        })
        let results = run(WycheproofChecks.checks(for: try file("rsa_pkcs1_2048_test.json"), peers: [peer, try pythonPeer()]))
        let failed = results.filter(\.failed)
        XCTAssertEqual(Set(failed.map(\.check.fullName)), [
            "crosscheck.rsa-socket.wycheproof_to_swift.rsa_pkcs1_2048_test.oracle.InvalidPkcs1Padding",
            "crosscheck.rsa-socket.swift_vs_python.rsa_pkcs1_2048_test.oracle.InvalidPkcs1Padding",
        ])
        let oracle = try XCTUnwrap(failed.first { $0.check.suite == "wycheproof.rsa_pkcs1_2048_test.swift" })
        XCTAssertEqual(oracle.message, "swift answers InvalidPkcs1Padding vectors in 2 distinguishable ways (a padding oracle)")
        guard case let .failed(_, details) = oracle.outcome else { return XCTFail() }
        XCTAssertTrue(details.contains("BadPadding: leading byte small (tcId 9, 12, 14,"), details)
        XCTAssertTrue(details.contains("DecryptFailed: RSA decryption failed (tcId 13, 18, 21, 24, 29)"), details)
        let comparison = try XCTUnwrap(failed.first { $0.check.suite.hasSuffix("swift_vs_python") })
        guard case let .failed(_, comparisonDetails) = comparison.outcome else { return XCTFail() }
        XCTAssertTrue(comparisonDetails.contains("tcId 9: swift BadPadding, python DecryptFailed"), comparisonDetails)
    }

    func testPlantedOAEPThatDropsTheLabel_failsExactlyTheLabelledValidVectors() throws {
        let peer = PlantedPeer(rsaDecrypt: { real, key, padding, ciphertext in
            let unlabelled = padding.oaepParameters.map { RSAEncryptionPadding.oaep(hash: $0.hash, mgf1: $0.mgf1) } ?? padding
            return try real.rsaDecrypt(privateKey: key, passphrase: nil, padding: unlabelled, ciphertext: ciphertext)
        })
        let file = try file("rsa_oaep_2048_sha1_mgf1sha1_test.json")
        let results = run(WycheproofChecks.checks(for: file, peers: [peer]))
        let labelled = Set(file.tests.filter { !$0.label.isEmpty && $0.result == .valid }.map { "rsa_oaep_2048_sha1_mgf1sha1_test.tc\($0.tcId)" })
        XCTAssertEqual(labelled.count, 7)
        XCTAssertEqual(Set(results.filter(\.failed).map(\.check.name)), labelled)
        let tc8 = try XCTUnwrap(results.first { $0.check.name == "rsa_oaep_2048_sha1_mgf1sha1_test.tc8" })
        XCTAssertEqual(tc8.message, "rsa_oaep_2048_sha1_mgf1sha1_test.json tcId 8 (valid, EncryptionWithLabel): valid, but swift refused it with DecryptFailed: RSA decryption failed")
    }

    func testAcceptableVectors_passEitherWayWithTheOutcomeRecorded() throws {
        let file = try file("rsa_pkcs1_2048_test.json") { json in
            var groups = json["testGroups"] as! [[String: Any]]
            var tests = groups[0]["tests"] as! [[String: Any]]
            for index in tests.indices where [1, 9].contains(tests[index]["tcId"] as! Int) { tests[index]["result"] = "acceptable" }
            groups[0]["tests"] = tests
            json["testGroups"] = groups
        }
        let ledger = WycheproofLedger()
        let results = run(WycheproofChecks.checks(for: file, peers: [SwiftPeer()], ledger: ledger))
        for id in [1, 9] {
            let result = try XCTUnwrap(results.first { $0.check.name == "rsa_pkcs1_2048_test.tc\(id)" })
            XCTAssertEqual(result.outcome, .passed)
            XCTAssertEqual(result.check.properties["result"], "acceptable")
        }
        XCTAssertEqual(ledger.outcome(suite: "wycheproof.rsa_pkcs1_2048_test.swift", name: "rsa_pkcs1_2048_test.tc1"), "real plaintext (0 bytes, = msg)")
        XCTAssertEqual(ledger.outcome(suite: "wycheproof.rsa_pkcs1_2048_test.swift", name: "rsa_pkcs1_2048_test.tc9"), "error DecryptFailed (RSA decryption failed)")
    }

    func testParametersNobodyOffers_areSkippedWithTheReasonNeverPassed() throws {
        for (field, value, reason) in [("sha", "SHA3-256", "OAEP hash not offered: SHA3-256"),
                                       ("mgfSha", "SHAKE128", "OAEP hash not offered: SHAKE128"),
                                       ("mgf", "MGF2", "mask generation function not MGF1: MGF2")] {
            let file = try file("rsa_oaep_2048_sha256_mgf1sha256_test.json") { json in
                var groups = json["testGroups"] as! [[String: Any]]
                groups[0][field] = value
                json["testGroups"] = groups
            }
            let results = run(WycheproofChecks.checks(for: file, peers: [SwiftPeer()]))
            XCTAssertEqual(results.count, 38)
            for result in results {
                guard case let .skipped(text) = result.outcome else { return XCTFail("\(result.check.name) was not skipped: \(result.outcome)") }
                XCTAssertTrue(text.hasPrefix(reason) || text.hasPrefix("no InvalidOaepPadding vector"), text)
            }
        }
    }

    func testAnImplementationAnsweringUnsupported_isSkippedNotPassed() throws {
        let peer = PlantedPeer(rsaDecrypt: { _, _, _, _ in throw PeerFailure(.unsupported, "no OAEP here") })
        let results = run(WycheproofChecks.checks(for: try file("rsa_oaep_2048_sha256_mgf1sha256_test.json"), peers: [peer]))
        XCTAssertEqual(results.filter { $0.outcome == .skipped(reason: "swift does not support this parameter set: no OAEP here") }.count, 38)
    }

    func testAnImplementationThatCrashesInternally_failsEvenInvalidVectors() throws {
        let peer = PlantedPeer(rsaDecrypt: { _, _, _, _ in throw PeerFailure(.internal, "Traceback: KeyError") })
        let results = run(WycheproofChecks.checks(for: try file("rsa_oaep_2048_sha256_mgf1sha256_test.json"), peers: [peer]))
        let invalid = try XCTUnwrap(results.first { $0.check.properties["result"] == "invalid" })
        XCTAssertTrue(invalid.failed)
        XCTAssertTrue(invalid.message.contains("swift failed internally"), invalid.message)
    }

    func testPlantedCBCThatSkipsThePaddingCheck_failsTheBadPaddingVectors() throws {
        let peer = PlantedPeer(cbcDecrypt: { real, key, iv, ciphertext in
            guard ciphertext.count >= 16, ciphertext.count % 16 == 0 else { return try real.cbcDecrypt(key: key, iv: iv, ciphertext: ciphertext) }
            // Appends an encrypted block of pure padding, so the real decryption strips only that and
            // returns the raw blocks; then trusts the last byte as the padding length, checking nothing else.
            let paddingBlock = try AESCBC.encrypt(Data(), key: key, iv: Data(ciphertext.suffix(16)))
            let raw = try real.cbcDecrypt(key: key, iv: iv, ciphertext: ciphertext + paddingBlock)
            guard let count = raw.last.map(Int.init), (1...16).contains(count) else { throw PeerFailure(.badPadding, "bad padding") }
            return Data(raw.dropLast(count))
        })
        let results = run(WycheproofChecks.checks(for: try file("aes_cbc_pkcs5_test.json"), peers: [peer]))
        let failed = results.filter(\.failed)
        XCTAssertFalse(failed.isEmpty)
        XCTAssertTrue(failed.allSatisfy { $0.check.properties["result"] == "invalid" }, "\(failed.map(\.check.name))")
        XCTAssertTrue(failed.allSatisfy { $0.message.contains("invalid, but swift released") }, failed.first?.message ?? "")
    }

    func testUnloadableFile_isAnErrorTestcaseThatSaysWhy() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString)_test.json")
        try WycheproofLoaderTests.oaepFile(numberOfTests: 5).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let results = run(WycheproofChecks.checks(files: [url, url.deletingLastPathComponent().appendingPathComponent("absent_test.json")],
                                                  peers: [SwiftPeer()]))
        XCTAssertEqual(results.count, 2)
        guard case let .error(message, _) = results[0].outcome else { return XCTFail("expected an error, got \(results[0].outcome)") }
        XCTAssertTrue(message.hasSuffix("numberOfTests: says 5 but the file holds 1 tests (truncated or edited?)"), message)
        guard case let .error(absent, _) = results[1].outcome else { return XCTFail() }
        XCTAssertTrue(absent.contains("absent_test.json: cannot read"), absent)
    }
}

/// Signatures, key agreement and HKDF: planted flaws fail exactly the vectors they should.
final class WycheproofPrimitivesTests: XCTestCase {
    func file(_ name: String) throws -> WycheproofFile {
        try WycheproofFile.load(contentsOf: WycheproofSuiteTests.directory.appendingPathComponent(name))
    }

    func testPlantedVerifierThatAcceptsEverySignature_failsEveryInvalidVectorAndNothingElse() throws {
        let peer = PlantedPrimitives(real: SwiftPeer(), verify: { _, _, _, _, _ in true })
        let file = try file("rsa_signature_2048_sha256_test.json")
        let results = Runner().run(WycheproofChecks.checks(for: file, peers: [peer]))
        let invalid = Set(file.tests.filter { $0.result == .invalid }.map { "rsa_signature_2048_sha256_test.tc\($0.tcId)" })
        XCTAssertEqual(invalid.count, 249)
        XCTAssertEqual(Set(results.filter(\.failed).map(\.check.name)), invalid)
        let tc9 = try XCTUnwrap(results.first { $0.check.name == "rsa_signature_2048_sha256_test.tc9" })
        XCTAssertTrue(tc9.message.hasSuffix("invalid, but swift verified the signature"), tc9.message)
        XCTAssertEqual(tc9.check.classname, "crosscheck.signatures.wycheproof_to_swift")
    }

    func testPlantedVerifierThatRefusesPSS_failsTheValidVectors() throws {
        let peer = PlantedPrimitives(real: SwiftPeer(), verify: { _, _, _, _, _ in false })
        let results = Runner().run(WycheproofChecks.checks(for: try file("rsa_pss_2048_sha256_mgf1_32_test.json"), peers: [peer]))
        XCTAssertEqual(results.filter(\.failed).count, 63)
        XCTAssertTrue(results.filter(\.failed).allSatisfy { $0.check.properties["result"] == "valid" })
        XCTAssertTrue(results.first(where: \.failed)?.message.contains("valid, but swift refused it with AuthFailed: the signature does not verify") ?? false)
    }

    func testPlantedKeyAgreementWithAWrongSecret_failsValidAndAcceptableVectorsItAnswers() throws {
        // Flips a bit of every secret pyca derives; refusals stay refusals.
        let python = try pythonPeer()
        let peer = PlantedPrimitives(real: python, agree: { real, curve, ours, theirs, encoding in
            var secret = try real.agreeKey(curve, privateKey: ours, publicKey: theirs, encoding: encoding)
            secret[secret.startIndex] ^= 1
            return secret
        })
        let file = try file("x25519_test.json")
        let results = Runner().run(WycheproofChecks.checks(for: file, peers: [peer]))
        let zeroSecrets = file.tests.filter { $0.shared == Data(count: 32) }
        XCTAssertEqual(zeroSecrets.count, 31)
        XCTAssertTrue(zeroSecrets.allSatisfy { $0.result == .acceptable })
        XCTAssertEqual(results.filter(\.failed).count, 518 - zeroSecrets.count, "pyca refuses the all-zero secrets; every other one is now wrong")
        let acceptable = try XCTUnwrap(results.first { $0.failed && $0.check.properties["result"] == "acceptable" })
        XCTAssertTrue(acceptable.message.contains("acceptable, but python derived other bytes than the vector's shared secret"), acceptable.message)
    }

    func testPlantedHKDFThatDropsTheSalt_failsExactlyTheSaltedValidVectors() throws {
        let peer = PlantedPrimitives(real: SwiftPeer(), hkdf: { real, digest, ikm, _, info, length in
            try real.hkdf(digest, ikm: ikm, salt: Data(), info: info, length: length)
        })
        let file = try file("hkdf_sha256_test.json")
        let results = Runner().run(WycheproofChecks.checks(for: file, peers: [peer]))
        // A salt of HashLen zeros is the empty salt (RFC 5869 §2.2): tcId 77 passes even so.
        let salted = Set(file.tests.filter { !$0.salt.isEmpty && $0.salt != Data(count: 32) && $0.result == .valid }.map { "hkdf_sha256_test.tc\($0.tcId)" })
        XCTAssertEqual(salted.count, 59)
        XCTAssertEqual(Set(results.filter(\.failed).map(\.check.name)), salted)
    }

    func testAPeerWithoutPrimitives_skipsThoseVectorsSayingSo() throws {
        let results = Runner().run(WycheproofChecks.checks(for: try file("hkdf_sha1_test.json"), peers: [PlantedPeer(cbcDecrypt: { _, _, _, _ in Data() })]))
        XCTAssertEqual(results.count, 87)
        XCTAssertTrue(results.allSatisfy { $0.outcome == .skipped(reason: "swift does not support this parameter set: swift offers no signature verification, key agreement or HKDF") })
    }

    func testSwiftAndPython_agreeOnHKDFOutputsOfEveryLength() throws {
        let (swift, python) = (SwiftPeer(), try pythonPeer())
        for digest in [Digest.sha1, .sha256, .sha384, .sha512] {
            for length in [1, digest.byteCount, 255 * digest.byteCount] {
                XCTAssertEqual(try swift.hkdf(digest, ikm: Data("ikm".utf8), salt: Data(), info: Data("i".utf8), length: length),
                               try python.hkdf(digest, ikm: Data("ikm".utf8), salt: Data(), info: Data("i".utf8), length: length))
            }
            for peer in [swift as PrimitivePeer, python] {
                XCTAssertThrowsError(try peer.hkdf(digest, ikm: Data("ikm".utf8), salt: Data(), info: Data(), length: 255 * digest.byteCount + 1)) {
                    XCTAssertEqual(($0 as? PeerFailure)?.kind, .badLength, peer.name)
                }
            }
        }
    }
}

/// A real peer with signature verification, key agreement or HKDF replaced: deliberately wrong.
struct PlantedPrimitives: DelegatingPeer, PrimitivePeer {
    typealias Verify = @Sendable (PrimitivePeer, Data, Data, Data, VerificationScheme) throws -> Bool
    typealias Agree = @Sendable (PrimitivePeer, KeyAgreementCurve, Data, Data, PeerKeyEncoding) throws -> Data
    typealias Derive = @Sendable (PrimitivePeer, Digest, Data, Data, Data, Int) throws -> Data
    let real: CryptoPeer
    var verify: Verify?
    var agree: Agree?
    var derive: Derive?

    init(real: CryptoPeer & PrimitivePeer, verify: Verify? = nil, agree: Agree? = nil, hkdf: Derive? = nil) {
        self.real = real; self.verify = verify; self.agree = agree; self.derive = hkdf
    }

    private var primitives: PrimitivePeer { real as! PrimitivePeer }

    func verifySignature(_ signature: Data, message: Data, publicKey: Data, scheme: VerificationScheme) throws -> Bool {
        guard let verify else { return try primitives.verifySignature(signature, message: message, publicKey: publicKey, scheme: scheme) }
        return try verify(primitives, signature, message, publicKey, scheme)
    }
    func agreeKey(_ curve: KeyAgreementCurve, privateKey: Data, publicKey: Data, encoding: PeerKeyEncoding) throws -> Data {
        guard let agree else { return try primitives.agreeKey(curve, privateKey: privateKey, publicKey: publicKey, encoding: encoding) }
        return try agree(primitives, curve, privateKey, publicKey, encoding)
    }
    func hkdf(_ digest: Digest, ikm: Data, salt: Data, info: Data, length: Int) throws -> Data {
        guard let derive else { return try primitives.hkdf(digest, ikm: ikm, salt: salt, info: info, length: length) }
        return try derive(primitives, digest, ikm, salt, info, length)
    }
}

/// The real Swift side with RSA decryption or CBC decryption replaced; deliberately wrong, to
/// prove the Wycheproof checks catch such flaws.
struct PlantedPeer: DelegatingPeer {
    typealias RSADecrypt = @Sendable (CryptoPeer, Data, RSAEncryptionPadding, Data) throws -> Data
    typealias CBCDecrypt = @Sendable (CryptoPeer, Data, Data, Data) throws -> Data
    let real: CryptoPeer = SwiftPeer()
    var rsa: RSADecrypt?
    var cbc: CBCDecrypt?

    init(rsaDecrypt: @escaping RSADecrypt) { rsa = rsaDecrypt }
    init(cbcDecrypt: @escaping CBCDecrypt) { cbc = cbcDecrypt }

    func rsaDecrypt(privateKey: Data, passphrase: Data?, padding: RSAEncryptionPadding, ciphertext: Data) throws -> Data {
        guard let rsa else { return try real.rsaDecrypt(privateKey: privateKey, passphrase: passphrase, padding: padding, ciphertext: ciphertext) }
        return try rsa(real, privateKey, padding, ciphertext)
    }
    func cbcDecrypt(key: Data, iv: Data, ciphertext: Data) throws -> Data {
        guard let cbc else { return try real.cbcDecrypt(key: key, iv: iv, ciphertext: ciphertext) }
        return try cbc(real, key, iv, ciphertext)
    }
}
