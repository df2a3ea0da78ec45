import Foundation
import XCTest
import Security
import TestSupport

/// SecTrust with real X.509 verification (OpenSSL's X509_verify_cert) against only the anchors.
final class TrustTests: XCTestCase {
    nonisolated(unsafe) static var factoryStorage: CertificateFactory?
    var factory: CertificateFactory { Self.factoryStorage! }

    override class func setUp() {
        super.setUp()
        factoryStorage = try! CertificateFactory()  // the openssl CLI is a test prerequisite; fail loudly without it
    }

    func certificate(_ name: String) throws -> SecCertificate {
        try XCTUnwrap(SecCertificateCreateWithData(nil, try factory.der(name) as CFData), name)
    }

    func vectorCertificate(_ name: String) throws -> SecCertificate {
        let pem = try String(contentsOf: repositoryRoot.appendingPathComponent("Vectors/tls/\(name).crt.pem"), encoding: .utf8)
        let body = pem.components(separatedBy: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return try XCTUnwrap(SecCertificateCreateWithData(nil, Data(base64Encoded: body)! as CFData))
    }

    /// Seed 002's steps: the system's trust for `chain`, anchors set to `anchors`, SecTrustEvaluate.
    func evaluate(_ chain: [SecCertificate], anchors: [SecCertificate]?, host: String = "localhost", at date: Date? = nil)
        -> (result: SecTrustResultType, trusted: Bool, code: Int?) {
        var trust: SecTrust?
        XCTAssertEqual(SecTrustCreateWithCertificates(chain as CFArray, SecPolicyCreateSSL(true, host as CFString), &trust), errSecSuccess)
        if let anchors { XCTAssertEqual(SecTrustSetAnchorCertificates(trust!, anchors as CFArray), errSecSuccess) }
        if let date { XCTAssertEqual(SecTrustSetVerifyDate(trust!, date as NSDate), errSecSuccess) }
        var trustResult = SecTrustResultType.invalid
        XCTAssertEqual(SecTrustEvaluate(trust!, &trustResult), errSecSuccess)
        var error: CFError?
        let trusted = SecTrustEvaluateWithError(trust!, &error)
        return (trustResult, trusted, error?.code)
    }

    func testCASignedServer_isTrustedThroughItsAnchor_andOnlyThrough_it() throws {
        let ok = evaluate([try certificate("server")], anchors: [try certificate("ca")])
        XCTAssertEqual(ok.result, .unspecified)
        XCTAssertTrue(ok.trusted)
        XCTAssertNil(ok.code)
        XCTAssertEqual(evaluate([try certificate("server"), try certificate("ca")], anchors: [try certificate("ca")]).result, .unspecified)
        XCTAssertEqual(evaluate([try certificate("server")], anchors: [try certificate("ca")], host: "127.0.0.1").result, .unspecified)
        // Pinning the leaf itself works too (any anchor ends a chain).
        XCTAssertEqual(evaluate([try certificate("server")], anchors: [try certificate("server")]).result, .unspecified)
        // Without anchors only the system's roots count, and our test CA is not one of them.
        let unanchored = evaluate([try certificate("server")], anchors: nil)
        XCTAssertEqual(unanchored.result, .recoverableTrustFailure)
        XCTAssertEqual(unanchored.code, Int(errSecNotTrusted))
    }

    /// Apple's SecTrust.c: `SecTrustGetCertificateCount` and `SecTrustGetCertificateAtIndex` (past the
    /// leaf) evaluate first; `SecTrustGetTrustResult` evaluates nothing and reads the last result.
    func testCertificateCountAndIndex_evaluateFirst_trustResultDoesNot() throws {
        var trust: SecTrust?
        XCTAssertEqual(SecTrustCreateWithCertificates([try certificate("server")] as CFArray, SecPolicyCreateSSL(true, "localhost" as CFString), &trust),
                       errSecSuccess)
        XCTAssertEqual(SecTrustSetAnchorCertificates(trust!, [try certificate("ca")] as CFArray), errSecSuccess)
        var result = SecTrustResultType.unspecified
        XCTAssertEqual(SecTrustGetTrustResult(trust!, &result), errSecSuccess)
        XCTAssertEqual(result, .invalid, "nothing has evaluated it yet")
        XCTAssertEqual(SecTrustGetCertificateCount(trust!), 2, "the leaf and its anchor: it evaluated")
        XCTAssertEqual(SecTrustGetTrustResult(trust!, &result), errSecSuccess)
        XCTAssertEqual(result, .unspecified, "the count's evaluation is the last result")
        XCTAssertEqual(SecTrustGetCertificateAtIndex(trust!, 1).map { SecCertificateCopyData($0) as Data }, SecCertificateCopyData(try certificate("ca")) as Data)
        XCTAssertNil(SecTrustGetCertificateAtIndex(trust!, 2))
    }

    func testRefusals_impostorExpiredWrongHost() throws {
        let impostor = evaluate([try certificate("impostor")], anchors: [try certificate("ca")])
        XCTAssertEqual(impostor.result, .recoverableTrustFailure)
        XCTAssertFalse(impostor.trusted)
        XCTAssertEqual(impostor.code, Int(errSecNotTrusted))
        // An impostor CA that sent its own CA certificate along is still not an anchor.
        XCTAssertEqual(evaluate([try certificate("impostor"), try certificate("impostor-ca")], anchors: [try certificate("ca")]).code, Int(errSecNotTrusted))

        let wrongHost = evaluate([try certificate("server")], anchors: [try certificate("ca")], host: "other.example")
        XCTAssertEqual(wrongHost.result, .recoverableTrustFailure)
        XCTAssertEqual(wrongHost.code, Int(errSecHostNameMismatch))
        XCTAssertEqual(evaluate([try certificate("server")], anchors: [try certificate("ca")], host: "127.0.0.2").code, Int(errSecHostNameMismatch))

        let twoYearsOn = Date().addingTimeInterval(2 * 365 * 86_400)
        let expired = evaluate([try certificate("server")], anchors: [try certificate("ca")], at: twoYearsOn)
        XCTAssertEqual(expired.result, .recoverableTrustFailure)
        XCTAssertEqual(expired.code, Int(errSecCertificateExpired))
        let notYet = evaluate([try certificate("server")], anchors: [try certificate("ca")], at: Date().addingTimeInterval(-10 * 86_400))
        XCTAssertEqual(notYet.code, Int(errSecCertificateNotValidYet))
        // Vectors/tls/expired.crt.pem (2020–2021), pinned as its own anchor: expired, refused.
        let vectorExpired = evaluate([try vectorCertificate("expired")], anchors: [try vectorCertificate("expired")])
        XCTAssertEqual(vectorExpired.code, Int(errSecCertificateExpired))
    }

    /// iOS 13+ rules for chains anchored by the app (Apple's SecPolicyServer.c): a TLS server leaf
    /// issued after 2019-07-01 must be valid for at most 825 days and carry the serverAuth EKU, and
    /// host names come from subjectAltName only.
    func testAppleRules_validityPeriodEKUAndSubjectAltName() throws {
        let longLived = evaluate([try certificate("long-lived")], anchors: [try certificate("ca")])
        XCTAssertEqual(longLived.result, .recoverableTrustFailure)
        XCTAssertEqual(longLived.code, Int(errSecCertificateValidityPeriodTooLong))
        // Vectors/tls/pinned.crt.pem is valid for 30 years from 2025: iOS refuses it even when pinned.
        let pinnedVector = evaluate([try vectorCertificate("pinned")], anchors: [try vectorCertificate("pinned")])
        XCTAssertEqual(pinnedVector.code, Int(errSecCertificateValidityPeriodTooLong))
        XCTAssertEqual(evaluate([try certificate("no-eku")], anchors: [try certificate("ca")]).code, Int(errSecInvalidExtendedKeyUsage))
        XCTAssertEqual(evaluate([try certificate("cn-only")], anchors: [try certificate("ca")]).code, Int(errSecHostNameMismatch))
        // A basic X.509 policy checks none of that.
        var trust: SecTrust?
        XCTAssertEqual(SecTrustCreateWithCertificates(try certificate("long-lived"), SecPolicyCreateBasicX509(), &trust), errSecSuccess)
        XCTAssertEqual(SecTrustSetAnchorCertificates(trust!, [try certificate("ca")] as CFArray), errSecSuccess)
        XCTAssertTrue(SecTrustEvaluateWithError(trust!, nil))
    }

    /// Apple's SSL server policy (Security's SecPolicy.c SecPolicyCreateSSL_internal, checks in
    /// SecPolicyServer.c) on an app-anchored chain: RSA ≥ 2048 / EC ≥ 256 on every certificate, the
    /// anchor included; no SHA-1 signature but a self-signed anchor's own; no key usage check; a
    /// present EKU needs serverAuth (anyExtendedKeyUsage is enough for set_ssl_ekus, not for the
    /// post-2019 serverAuth rule). Certificates from the openssl command line, not from this code.
    func testSSLServerPolicy_keySizesSignatureHashesAndUsages() throws {
        let ca = try certificate("ca")
        XCTAssertEqual(evaluate([try certificate("rsa1024-leaf")], anchors: [ca]).code, Int(errSecUnsupportedKeySize))
        XCTAssertEqual(evaluate([try certificate("under-rsa1024-ca")], anchors: [try certificate("rsa1024-ca")]).code, Int(errSecUnsupportedKeySize),
                       "an RSA-1024 anchor fails the key size rule too")
        XCTAssertEqual(evaluate([try certificate("rsa1024-leaf")], anchors: [ca]).result, .recoverableTrustFailure)
        let ec = evaluate([try certificate("ec256-leaf")], anchors: [ca])
        XCTAssertEqual(ec.result, .unspecified, "EC P-256 is enough (code \(String(describing: ec.code)))")
        XCTAssertEqual(evaluate([try certificate("sha1-leaf")], anchors: [ca]).code, Int(errSecInvalidDigestAlgorithm))
        XCTAssertEqual(evaluate([try certificate("under-sha1-ca")], anchors: [try certificate("sha1-ca")]).result, .unspecified,
                       "a self-signed anchor's own SHA-1 signature is not judged")
        XCTAssertEqual(evaluate([try certificate("key-cert-sign-usage")], anchors: [ca]).result, .unspecified,
                       "Apple's SSL policy checks no key usage (OpenSSL's TLS-server purpose would refuse keyCertSign alone)")
        XCTAssertEqual(evaluate([try certificate("client-eku")], anchors: [ca]).code, Int(errSecInvalidExtendedKeyUsage))
        XCTAssertEqual(evaluate([try certificate("any-eku")], anchors: [ca]).code, Int(errSecInvalidExtendedKeyUsage),
                       "issued after 1 July 2019 under an app anchor: serverAuth itself is required")
        // A basic X.509 policy judges none of the SSL rules: the RSA-1024 leaf and the SHA-1 leaf verify.
        for name in ["rsa1024-leaf", "sha1-leaf", "client-eku"] {
            var trust: SecTrust?
            XCTAssertEqual(SecTrustCreateWithCertificates(try certificate(name), SecPolicyCreateBasicX509(), &trust), errSecSuccess)
            XCTAssertEqual(SecTrustSetAnchorCertificates(trust!, [ca] as CFArray), errSecSuccess)
            XCTAssertTrue(SecTrustEvaluateWithError(trust!, nil), name)
        }
    }

    func testIntermediates_mustBeSent() throws {
        let withIntermediate = evaluate([try certificate("chained"), try certificate("intermediate")], anchors: [try certificate("root2")])
        XCTAssertEqual(withIntermediate.result, .unspecified)
        let without = evaluate([try certificate("chained")], anchors: [try certificate("root2")])
        XCTAssertEqual(without.code, Int(errSecNotTrusted))
        // Pinning the intermediate is enough on its own.
        XCTAssertEqual(evaluate([try certificate("chained"), try certificate("intermediate")], anchors: [try certificate("intermediate")]).result, .unspecified)
        var trust: SecTrust?
        _ = SecTrustCreateWithCertificates([try certificate("chained"), try certificate("intermediate")] as CFArray, SecPolicyCreateSSL(true, "localhost" as CFString), &trust)
        _ = SecTrustSetAnchorCertificates(trust!, [try certificate("root2")] as CFArray)
        XCTAssertTrue(SecTrustEvaluateWithError(trust!, nil))
        XCTAssertEqual(SecTrustGetCertificateCount(trust!), 3)
        let chain = try XCTUnwrap(SecTrustCopyCertificateChain(trust!) as? [SecCertificate])
        XCTAssertEqual(chain.map { SecCertificateCopySubjectSummary($0) as String? }, ["localhost", "intermediate", "root2"])
        XCTAssertNotNil(SecTrustCopyKey(trust!))
    }

    func testErrorDescriptions_nameTheCertificate() throws {
        var trust: SecTrust?
        _ = SecTrustCreateWithCertificates(try certificate("impostor"), SecPolicyCreateSSL(true, "localhost" as CFString), &trust)
        _ = SecTrustSetAnchorCertificates(trust!, [try certificate("ca")] as CFArray)
        var error: CFError?
        XCTAssertFalse(SecTrustEvaluateWithError(trust!, &error))
        XCTAssertEqual(error?.domain, "NSOSStatusErrorDomain")
        XCTAssertEqual(error?.userInfo["NSDescription"] as? String, "\u{201C}localhost\u{201D} certificate is not trusted")
    }

    func testCertificates_parseDEROnly_andCopyBack() throws {
        let der = try factory.der("server")
        let certificate = try XCTUnwrap(SecCertificateCreateWithData(nil, der as CFData))
        XCTAssertEqual(SecCertificateCopyData(certificate) as Data, der)
        XCTAssertEqual(SecCertificateCopySubjectSummary(certificate) as String?, "localhost")
        var commonName: CFString?
        XCTAssertEqual(SecCertificateCopyCommonName(certificate, &commonName), errSecSuccess)
        XCTAssertEqual(commonName as String?, "localhost")
        XCTAssertEqual(CFGetTypeID(certificate), SecCertificateGetTypeID())
        XCTAssertEqual(SecKeyGetBlockSize(try XCTUnwrap(SecCertificateCopyKey(certificate))), 256)
        let pem = try factory.scratch.read("server.pem")
        XCTAssertNil(SecCertificateCreateWithData(nil, pem as CFData))
        XCTAssertNil(SecCertificateCreateWithData(nil, (der + Data([0])) as CFData))
        XCTAssertNil(SecCertificateCreateWithData(nil, Data("not a certificate".utf8) as CFData))
        XCTAssertNil(SecCertificateCreateWithData(nil, Data() as CFData))
        XCTAssertNil(SecCertificateCreateWithData(nil, der.prefix(der.count - 1) as CFData))
    }

    func testCreateWithCertificates_rejectsWhatIsNotACertificateList() {
        var trust: SecTrust?
        XCTAssertEqual(SecTrustCreateWithCertificates(NSArray(), nil, &trust), errSecParam)
        XCTAssertEqual(SecTrustCreateWithCertificates("text" as NSString, nil, &trust), errSecParam)
    }
}
