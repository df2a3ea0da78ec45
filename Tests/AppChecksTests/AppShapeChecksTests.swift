import Foundation
import XCTest
import AppChecks
import AppHost
import AppUnderTest
import Conformance

/// The checks of the real app shapes (Tests/AppChecksTests/PlantedShapeApps.swift): each app by the
/// book passes every check of its shape, each planted flaw fails exactly the checks named for it,
/// with the flaw in the message. Verdicts come from PythonRef, the openssl command and the
/// keychain's own record, never from the app's word alone.
final class AppShapeChecksTests: XCTestCase {
    /// Names of the checks that failed or erred, without the class and app.
    func failed(_ results: [CheckResult]) -> Set<String> {
        Set(results.filter { $0.verdict == "failed" || $0.verdict == "error" }.map { String($0.check.name.drop { $0 != "." }.dropFirst()) })
    }

    func message(_ results: [CheckResult], _ suffix: String) -> String {
        results.first { $0.check.name.hasSuffix(suffix) }?.message ?? "(no check \(suffix))"
    }

    static let selfSealed = ["len1", "len16", "len31", "len1027", "len65536"].map { "self-sealed.\($0).seal-then-open" }
        + ["self-sealed.earlier-box-opens-after-later-calls", "self-sealed.fresh-nonce-per-seal"]
        + ["flipped-first-byte", "flipped-middle-byte", "flipped-last-byte", "truncated-by-one"].map { "self-sealed.rejects-\($0)" } + ["self-sealed.format"]

    // MARK: a key kept inside

    func testKeptKey_passesEverySelfSealedCheck() throws {
        let results = try runAppChecks([KeptKeySealer()])
        XCTAssertEqual(results.map { String($0.check.name.dropFirst("textbook-kept-key.".count)) }, Self.selfSealed)
        XCTAssertEqual(Set(results.map(\.check.suite)), ["roundtrip.app_to_app"])
        XCTAssertEqual(Set(results.map(\.check.classname)), ["crosscheck.sealed.app_to_app"])
        XCTAssertEqual(failed(results), [], results.map(\.message).joined(separator: "\n"))
        XCTAssertEqual(results.filter { $0.verdict == "skipped" }.count, 0)
    }

    func testKeyMadePerCall_failsEveryOpen_namingTheFlaw() throws {
        let results = try runAppChecks([KeyPerCallSealer()])
        XCTAssertEqual(failed(results), Set(Self.selfSealed).subtracting(["self-sealed.fresh-nonce-per-seal", "self-sealed.format"]))
        XCTAssertTrue(message(results, "earlier-box-opens-after-later-calls").contains("could not open a box it sealed three seals earlier"))
        for name in ["len31.seal-then-open", "earlier-box-opens-after-later-calls", "rejects-flipped-last-byte"] {
            XCTAssertTrue(message(results, name).contains("SymmetricKey(size: .bits256) in its seal or open function"), message(results, name))
        }
        XCTAssertTrue(message(results, "rejects-flipped-last-byte").hasPrefix("control: "), message(results, "rejects-flipped-last-byte"))
    }

    func testKeyMadePerSeal_failsOnlyTheEarlierBox() throws {
        let results = try runAppChecks([KeyPerSealSealer()])
        XCTAssertEqual(failed(results), ["self-sealed.earlier-box-opens-after-later-calls"])
    }

    func testConstantNonce_failsOnlyTheFreshNonceCheck() throws {
        let results = try runAppChecks([ConstantNonceSealer()])
        XCTAssertEqual(failed(results), ["self-sealed.fresh-nonce-per-seal"])
        XCTAssertTrue(message(results, "fresh-nonce-per-seal").contains("with the same nonce 2a2a2a2a2a2a2a2a2a2a2a2a"), message(results, "fresh-nonce-per-seal"))
    }

    func testTamperAccepted_failsTheTamperChecks_andItsFormatIsReported() throws {
        let results = try runAppChecks([UnauthenticatedCBCSealer()])
        let failures = failed(results)
        // A changed IV and a changed middle block always open under CBC; a changed last block opens
        // when its garbled padding happens to be valid (rarely), a truncated box never.
        XCTAssertTrue(failures.isSuperset(of: ["self-sealed.rejects-flipped-first-byte", "self-sealed.rejects-flipped-middle-byte"]), "\(failures)")
        XCTAssertTrue(failures.isSubset(of: ["self-sealed.rejects-flipped-first-byte", "self-sealed.rejects-flipped-middle-byte", "self-sealed.rejects-flipped-last-byte"]),
                      "\(failures)")
        XCTAssertTrue(message(results, "rejects-flipped-first-byte").hasPrefix("planted-tamper-accepted accepted its own box with a flipped first byte and released 64 bytes"),
                      message(results, "rejects-flipped-first-byte"))
        let format = try XCTUnwrap(results.first { $0.check.name.hasSuffix("self-sealed.format") })
        XCTAssertEqual(format.verdict, "skipped")
        XCTAssertEqual(format.message, "format: not a CryptoKit combined box (32 bytes for 1, 48 bytes for 17, 64 bytes for 33 bytes of plaintext)")
    }

    func testFormat_rawBoxesPass_andUndeclaredBase64BoxesAreReportedAsCombined() throws {
        // KeyPerSealSealer's boxes are raw ChaChaPoly combined boxes.
        XCTAssertEqual(try runAppChecks([KeyPerSealSealer()]).first { $0.check.name.hasSuffix("self-sealed.format") }?.verdict, "passed")
        // KeptKeySealer's base64 boxes behind an adapter that does not say what they are.
        final class Undeclared: AppUnderTest, SelfContainedSealing {
            let identifier = "undeclared-box", summary = "tests: KeptKeySealer, boxAlgorithm not given", boxAlgorithm = ""
            let sealer = KeptKeySealer()
            func seal(_ plaintext: Data) throws -> Data { try sealer.seal(plaintext) }
            func open(_ box: Data) throws -> Data { try sealer.open(box) }
        }
        let format = try XCTUnwrap(try runAppChecks([Undeclared()]).first { $0.check.name.hasSuffix("self-sealed.format") })
        XCTAssertEqual(format.verdict, "skipped")
        XCTAssertEqual(format.message, "format: a CryptoKit combined box (12-byte nonce ‖ ciphertext ‖ 16-byte tag) as base64 text "
                       + "(40 bytes for 1, 60 bytes for 17, 84 bytes for 33 bytes of plaintext); declare boxAlgorithm aes-gcm or chachapoly to have it checked as one")
    }

    // MARK: signing

    func testTextbookSigners_passEveryCheck_withPythonAndOpenSSL() throws {
        for app in [TextbookSigner(), TextbookSigner(pss: true)] {
            let results = try runAppChecks([app])
            let algorithm = app.signatureAlgorithm
            XCTAssertEqual(Set(results.map { String($0.check.name.dropFirst(app.identifier.count + 1)) }),
                           Set(["len0", "len1", "len100", "len65536"].map { "signature.\(algorithm).\($0).python-verifies" }
                               + ["python-refuses-another-message", "public-key-stays-the-same", "openssl-dgst-verifies"].map { "signature.\(algorithm).\($0)" }))
            XCTAssertEqual(failed(results), [], results.map(\.message).joined(separator: "\n"))
            XCTAssertEqual(results.first { $0.check.name.hasSuffix("openssl-dgst-verifies") }?.check.classname, "crosscheck.openssl-cli.app_to_openssl")
        }
    }

    func testECDSAP256_derAndRaw_withAnX963Key_passEveryCheck() throws {
        for app in [OpenSSLECDSASigner(), OpenSSLECDSASigner(raw: true)] {
            let results = try runAppChecks([app])
            XCTAssertEqual(results.count, 7)
            XCTAssertEqual(failed(results), [], results.map(\.message).joined(separator: "\n"))
        }
    }

    func testAppleECSigners_SecKeyDERAndCryptoKitRaw_passEveryCheck() throws {
        for app in [SecKeyECDSASigner(), CryptoKitP256Signer()] as [AppUnderTest & MessageSigning] {
            let results = try runAppChecks([app])
            XCTAssertEqual(results.count, 7, app.identifier)
            XCTAssertEqual(failed(results), [], results.map(\.message).joined(separator: "\n"))
        }
    }

    static let verifications = ["len0", "len1", "len100", "len65536"].map { "signature.rsa-pkcs1v15-sha256.\($0).python-verifies" }
        + ["signature.rsa-pkcs1v15-sha256.python-refuses-another-message", "signature.rsa-pkcs1v15-sha256.openssl-dgst-verifies"]

    func testSignatureOverTheWrongBytes_failsEveryVerification() throws {
        let results = try runAppChecks([WrongBytesSigner()])
        XCTAssertEqual(failed(results), Set(Self.verifications))
        XCTAssertTrue(message(results, "len100.python-verifies").contains("python could not verify planted-signs-the-hash's rsa-pkcs1v15-sha256 signature over the 100-byte message"))
        XCTAssertTrue(message(results, "python-refuses-another-message").hasPrefix("control: "))
        XCTAssertTrue(message(results, "openssl-dgst-verifies").contains("did not verify"), message(results, "openssl-dgst-verifies"))
    }

    func testPublicKeyThatDoesNotMatch_failsEveryVerification() throws {
        let results = try runAppChecks([MismatchedKeySigner()])
        XCTAssertEqual(failed(results), Set(Self.verifications))
    }

    func testKeyPairMadePerCall_failsVerificationAndTheSameKeyCheck() throws {
        let results = try runAppChecks([KeyPairPerCallSigner()])
        XCTAssertEqual(failed(results), Set(Self.verifications + ["signature.rsa-pkcs1v15-sha256.public-key-stays-the-same"]))
        XCTAssertTrue(message(results, "public-key-stays-the-same").contains("exported two different public keys"))
    }

    // MARK: key agreement

    static let agreement = ["len0", "len1", "len1027"].map { "key-agreement.x25519.hkdf-sha256.\($0).python-opens" } + ["key-agreement.x25519.hkdf-sha256.no-other-derivation-opens"]

    func testX25519HKDF_pythonDerivesTheSameKeyAndOpens() throws {
        let results = try runAppChecks([OpenSSLX25519Agreement()])
        XCTAssertEqual(Set(results.map { String($0.check.name.dropFirst("textbook-x25519-hkdf.".count)) }), Set(Self.agreement))
        XCTAssertEqual(failed(results), [], results.map(\.message).joined(separator: "\n"))
    }

    func testP256X963_pythonDerivesTheSameKeyAndOpens() throws {
        let results = try runAppChecks([OpenSSLP256X963Agreement()])
        XCTAssertEqual(Set(results.map { String($0.check.name.dropFirst("textbook-p256-x963.".count)) }),
                       Set(Self.agreement.map { $0.replacingOccurrences(of: "x25519.hkdf-sha256", with: "p256.x963-sha256") }))
        XCTAssertEqual(failed(results), [], results.map(\.message).joined(separator: "\n"))
    }

    func testAppleKeyAgreements_CryptoKitAndSecKey_pythonDerivesTheSameKeyAndOpens() throws {
        let apps: [AppUnderTest & KeyAgreementSealing] = [CryptoKitP256Agreement(), CryptoKitX25519Agreement(), SecKeyECDHAgreement()]
        for app in apps {
            let results = try runAppChecks([app])
            XCTAssertEqual(results.count, 4, app.identifier)
            XCTAssertEqual(failed(results), [], results.map(\.message).joined(separator: "\n"))
        }
    }

    func testX963WhereHKDFIsDeclared_failsNamingX963() throws {
        let results = try runAppChecks([X963InsteadOfHKDFAgreement()])
        XCTAssertEqual(failed(results).count, 4)
        let opens = message(results, "len1027.python-opens")
        XCTAssertTrue(opens.contains("the box opens under x963-sha256 with the declared salt and info instead"), opens)
    }

    func testWrongKDF_failsNamingTheDerivationThatOpens() throws {
        let results = try runAppChecks([WrongKDFAgreement()])
        XCTAssertEqual(failed(results), Set(Self.agreement))
        let opens = message(results, "len1.python-opens")
        XCTAssertTrue(opens.contains("python derived the key as planted-wrong-kdf declares (x25519, hkdf-sha256, salt 63726f7373636865636b2073616c74, info 646f6f72207631"), opens)
        XCTAssertTrue(opens.contains("the box opens under hkdf-sha256 with no salt and no info instead"), opens)
        XCTAssertTrue(message(results, "no-other-derivation-opens").hasPrefix("control: "))
    }

    // MARK: the same through the host protocol

    func testEveryShapeThroughTheHostProtocol_sameVerdictsAsInProcess() throws {
        let makers: [() -> AppUnderTest] = [{ KeptKeySealer() }, { KeyPerCallSealer() }, { TextbookSigner() }, { WrongBytesSigner() },
                                           { OpenSSLX25519Agreement() }, { WrongKDFAgreement() }, { SecKeyECDSASigner() }, { CryptoKitP256Signer() },
                                           { CryptoKitP256Agreement() }, { X963InsteadOfHKDFAgreement() }, { SecKeyECDHAgreement() }]
        for make in makers {
            let direct = try runAppChecks([make()])
            let hosted = try HostedApp(launch: { HostChannel.inProcess(make()) })
            defer { hosted.stop() }
            XCTAssertEqual(hosted.capabilityNames, make().capabilityNames)
            let through = try runAppChecks([hosted])
            let verdicts = { (results: [CheckResult]) in Dictionary(uniqueKeysWithValues: results.map { ($0.check.fullName, $0.verdict) }) }
            XCTAssertEqual(verdicts(through), verdicts(direct), hosted.identifier)
        }
    }
}
