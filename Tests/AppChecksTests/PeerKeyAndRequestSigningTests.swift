import Foundation
import XCTest
import AppChecks
import AppHost
import AppUnderTest
import Conformance

/// Issue 35: an app encrypting to the Pi's public key and signing its requests, written as app
/// helpers are (Tests/AppChecksTests/PlantedApps.swift). Correct helpers pass every check; each
/// planted flaw fails the checks it must, and the message names the mistake and the app's function.
final class PeerKeyAndRequestSigningTests: XCTestCase {
    func byName(_ results: [CheckResult]) -> [String: CheckResult] {
        Dictionary(uniqueKeysWithValues: results.map { (String($0.check.name.drop { $0 != "." }.dropFirst()), $0) })
    }

    static let peerKeyChecks: Set<String> = Set(["pem-spki.len0", "pem-spki.len32", "pem-spki.max", "base64-spki.len32"].map { "peer-key.oaep-sha256.\($0).python-decrypts" }
        + ["pem-spki", "base64-spki"].flatMap { format in ["exponent-1", "truncated", "ec-key"].map { "peer-key.oaep-sha256.\(format).refuses-\($0)" } })

    func testPiKeyHelper_OAEPSHA256AsDeclared_passesEveryCheck() throws {
        let results = byName(try runAppChecks([PiKeyApp()]))
        XCTAssertEqual(Set(results.keys), Self.peerKeyChecks)
        for (name, result) in results { XCTAssertEqual(result.verdict, "passed", "\(name): \(result.message)") }
    }

    func testPiKeyHelper_PKCS1WhereOAEPIsDeclared_failsNamingPKCS1AndTheAppFunction() throws {
        let results = byName(try runAppChecks([PiKeyApp(identifier: "pi-key-pkcs1", algorithm: .rsaEncryptionPKCS1)]))
        XCTAssertEqual(Set(results.keys), Self.peerKeyChecks)
        for (name, result) in results {
            if name.hasSuffix("python-decrypts") {
                XCTAssertEqual(result.verdict, "failed", name)
                XCTAssertTrue(result.message.contains("encrypted with PKCS#1 v1.5, declared OAEP-SHA256"), result.message)
                XCTAssertTrue(result.message.contains("PiRSAHelper.encrypt(_:publicKeyPEM:algorithm:)"), result.message)
                XCTAssertTrue(result.message.contains(".rsaEncryptionOAEPSHA256"), result.message)
            } else {
                XCTAssertEqual(result.verdict, "passed", "\(name): \(result.message)")  // its import refuses bad keys all the same
            }
        }
    }

    func testPiKeyHelper_OAEPSHA1WhereOAEPSHA256IsDeclared_isNamed() throws {
        let results = byName(try runAppChecks([PiKeyApp(identifier: "pi-key-sha1", algorithm: .rsaEncryptionOAEPSHA1)], filter: "len32"))
        XCTAssertEqual(results.count, 2)
        for result in results.values { XCTAssertTrue(result.message.contains("encrypted with OAEP-SHA1, declared OAEP-SHA256"), result.message) }
    }

    func testEveryKeyForm_importedByTheApp_passesEveryCheck() throws {
        let results = byName(try runAppChecks([AllFormsPiKeyApp()]))
        // 7 forms: a decryption each (3 for the first), e = 1 for each, truncated and EC for the 6 that are not n and e.
        XCTAssertEqual(results.count, 9 + 7 + 6 + 6)
        for format in PeerKeyScheme.formats {
            XCTAssertEqual(results["peer-key.oaep-sha256.\(format).len32.python-decrypts"]?.verdict, "passed", format)
        }
        for (name, result) in results { XCTAssertEqual(result.verdict, "passed", "\(name): \(result.message)") }
    }

    func testFallingBackToAnotherKey_failsEveryRefusal_andOnlyThem() throws {
        let results = byName(try runAppChecks([AllFormsPiKeyApp(identifier: "falls-back", fallsBack: true)]))
        for (name, result) in results {
            if name.contains(".refuses-") {
                XCTAssertEqual(result.verdict, "failed", name)
                XCTAssertTrue(result.message.contains("KeyImporter.key(from:format:) must refuse such a key before encrypting"), result.message)
            } else {
                XCTAssertEqual(result.verdict, "passed", "\(name): \(result.message)")
            }
        }
        XCTAssertEqual(results.keys.filter { $0.contains(".refuses-") }.count, 7 + 6 + 6)
    }

    static let hmacChecks: Set<String> = Set(["get", "post-json", "post-large"].map { "request-signing.hmac-sha256.\($0).python-verifies" }
        + ["request-signing.hmac-sha256.changed-request-refused", "request-signing.hmac-sha256.openssl-agrees"])

    func testHMACSigner_byTheBook_passesPythonAndOpenSSL() throws {
        let results = byName(try runAppChecks([HMACSignerApp()]))
        XCTAssertEqual(Set(results.keys), Self.hmacChecks)
        for (name, result) in results { XCTAssertEqual(result.verdict, "passed", "\(name): \(result.message)") }
    }

    func testHMACSigner_plantedFlaws_eachFailsNamingTheMistake() throws {
        let cases: [(RequestSigner.Flaw, String)] = [
            (.sha1, "computed HMAC-SHA1, declared HMAC-SHA256"),
            (.keyAsText, "used the secret's hex text as the HMAC key"),
            (.leavesOutTimestamp, "signed the canonical string without {timestamp} instead of the declared canonical string"),
        ]
        for (flaw, words) in cases {
            let results = byName(try runAppChecks([HMACSignerApp(identifier: "hmac-\(flaw)", flaw: flaw)]))
            XCTAssertEqual(Set(results.keys), Self.hmacChecks)
            for (name, result) in results {
                XCTAssertEqual(result.verdict, "failed", "\(flaw) \(name)")
                if name.hasSuffix("changed-request-refused") {
                    XCTAssertTrue(result.message.hasPrefix("control: "), result.message)
                } else {
                    XCTAssertTrue(result.message.contains(words), "\(flaw) \(name): \(result.message)")
                    XCTAssertTrue(result.message.hasPrefix("hmac-\(flaw) (in RequestSigner.sign(method:path:timestamp:body:secretHex:)) \(words)"), result.message)
                }
            }
        }
    }

    func testP256RequestSigner_passesPythonAndOpenSSLVerify() throws {
        let results = byName(try runAppChecks([P256RequestSignerApp()]))
        XCTAssertEqual(results.count, 5)
        for (name, result) in results { XCTAssertEqual(result.verdict, "passed", "\(name): \(result.message)") }
    }

    /// An adapter's `appCall` turns what the app throws into a failure naming its function, the
    /// error and the adapter's line; AppExpect puts the declared function in the check's message.
    func testAppCall_namesTheFunctionTheErrorAndTheLine() throws {
        enum EncryptorError: Error { case badKey }
        let line = #line + 1
        XCTAssertThrowsError(try appCall("ServerKeyEncryptor.encrypt") { () throws -> Data in throw EncryptorError.badKey }) { error in
            XCTAssertEqual(error as? AppFailure, AppFailure("ServerKeyEncryptor.encrypt",
                                                            "threw badKey (EncryptorError), called from AppChecksTests/PeerKeyAndRequestSigningTests.swift:\(line)"))
        }
        XCTAssertEqual(try appCall("f") { 7 }, 7)
        XCTAssertThrowsError(try appCall("f") { () throws -> Int in throw AppFailure("g", "own words") }) { error in
            XCTAssertEqual(error as? AppFailure, AppFailure("g", "own words"), "an AppFailure passes through")
        }
    }

    func testP256RequestSigner_signingWithoutTheTimestamp_failsNamingIt() throws {
        let results = byName(try runAppChecks([P256RequestSignerApp(identifier: "p256-no-timestamp", leavesOutTimestamp: true)]))
        XCTAssertEqual(results.count, 5)
        for (name, result) in results {
            XCTAssertEqual(result.verdict, "failed", name)
            if !name.hasSuffix("changed-request-refused") {
                XCTAssertTrue(result.message.contains("signed the canonical string without {timestamp} instead of the declared canonical string"), "\(name): \(result.message)")
            }
        }
    }

    func testThroughTheHostProtocol_sameVerdictsAsInProcess() throws {
        let makers: [() -> AppUnderTest] = [{ PiKeyApp() }, { PiKeyApp(identifier: "pi-key-pkcs1", algorithm: .rsaEncryptionPKCS1) }, { HMACSignerApp() },
                                           { HMACSignerApp(identifier: "hmac-sha1", flaw: .sha1) }, { P256RequestSignerApp() }]
        for make in makers {
            let direct = try runAppChecks([make()])
            let hosted = try HostedApp(launch: { HostChannel.inProcess(make()) })
            defer { hosted.stop() }
            XCTAssertEqual(hosted.capabilityNames, make().capabilityNames)
            let through = try runAppChecks([hosted])
            let verdicts = { (results: [CheckResult]) in Dictionary(uniqueKeysWithValues: results.map { ($0.check.fullName, $0.verdict) }) }
            XCTAssertFalse(direct.isEmpty)
            XCTAssertEqual(verdicts(through), verdicts(direct), hosted.identifier)
        }
    }
}
