import Foundation
import XCTest
import Conformance
@testable import Vectors
import WireCrypto

/// The strict Wycheproof loader: the vendored files load completely; anything it does not
/// understand throws, naming the file, the place and the tcId.
final class WycheproofLoaderTests: XCTestCase {
    static let directory = URL(fileURLWithPath: repositoryRoot).appendingPathComponent("Vectors/wycheproof")

    func testVendoredFiles_loadEveryVectorUnderTheirSchema() throws {
        let expected: [String: (schema: WycheproofFile.Schema, tests: Int, groups: Int)] = [
            "aes_cbc_pkcs5_test.json": (.indCPA, 216, 3),
            "aes_gcm_test.json": (.aead, 316, 45),
            "chacha20_poly1305_test.json": (.aead, 325, 10),
            "rsa_oaep_2048_sha1_mgf1sha1_test.json": (.rsaesOAEPDecrypt, 36, 1),
            "rsa_oaep_2048_sha256_mgf1sha256_test.json": (.rsaesOAEPDecrypt, 37, 1),
            "rsa_pkcs1_2048_test.json": (.rsaesPKCS1Decrypt, 67, 33),
            "ecdh_secp256r1_ecpoint_test.json": (.ecdhECPoint, 355, 1),
            "ecdh_secp256r1_test.json": (.ecdh, 612, 1),
            "ecdh_secp384r1_test.json": (.ecdh, 1047, 1),
            "ecdh_secp521r1_test.json": (.ecdh, 916, 1),
            "ecdsa_secp256r1_sha256_p1363_test.json": (.ecdsaP1363Verify, 262, 112),
            "ecdsa_secp256r1_sha256_test.json": (.ecdsaVerify, 484, 113),
            "ecdsa_secp384r1_sha384_p1363_test.json": (.ecdsaP1363Verify, 280, 104),
            "ecdsa_secp384r1_sha384_test.json": (.ecdsaVerify, 504, 105),
            "ecdsa_secp521r1_sha512_p1363_test.json": (.ecdsaP1363Verify, 318, 107),
            "ecdsa_secp521r1_sha512_test.json": (.ecdsaVerify, 542, 108),
            "ed25519_test.json": (.eddsaVerify, 151, 78),
            "hkdf_sha1_test.json": (.hkdf, 87, 6),
            "hkdf_sha256_test.json": (.hkdf, 86, 5),
            "hkdf_sha384_test.json": (.hkdf, 83, 4),
            "hkdf_sha512_test.json": (.hkdf, 83, 4),
            "rsa_pss_2048_sha256_mgf1_32_test.json": (.rsassaPSSVerify, 108, 1),
            "rsa_signature_2048_sha256_test.json": (.rsassaPKCS1Verify, 259, 3),
            "x25519_test.json": (.xdh, 518, 1),
        ]
        let urls = try VectorSuites.wycheproofTestFiles(in: Self.directory)
        XCTAssertEqual(urls.map(\.lastPathComponent), expected.keys.sorted())
        for url in urls {
            let file = try WycheproofFile.load(contentsOf: url)
            let want = try XCTUnwrap(expected[url.lastPathComponent])
            XCTAssertEqual(file.schema, want.schema, url.lastPathComponent)
            XCTAssertEqual(file.tests.count, want.tests, url.lastPathComponent)
            XCTAssertEqual(file.groups.count, want.groups, url.lastPathComponent)
        }
    }

    func testVendoredPKCS1File_decodesKeysHexAndFlags() throws {
        let file = try WycheproofFile.load(contentsOf: Self.directory.appendingPathComponent("rsa_pkcs1_2048_test.json"))
        guard case let .rsa(group)? = file.groups.first else { return XCTFail("expected an RSA group") }
        XCTAssertNil(group.oaep)
        XCTAssertEqual(group.keySize, 2048)
        XCTAssertTrue(group.modulusHex.hasPrefix("b3510a2bcd4ce644"), group.modulusHex)
        XCTAssertEqual(group.privateKeyPKCS8.prefix(4), Data([0x30, 0x82, 0x04, 0xbd]))
        XCTAssertTrue(group.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let tc9 = try XCTUnwrap(file.tests.first { $0.tcId == 9 })
        XCTAssertEqual(tc9.result, .invalid)
        XCTAssertEqual(tc9.flags, ["InvalidPkcs1Padding"])
        XCTAssertEqual(tc9.comment, "The padding string is all 0.")
        XCTAssertEqual(tc9.ct.count, 256)
        XCTAssertEqual(file.notes["InvalidPkcs1Padding"]?.bugType, "CONFIDENTIALITY")
    }

    func testVendoredOAEPFile_decodesParametersAndLabels() throws {
        let file = try WycheproofFile.load(contentsOf: Self.directory.appendingPathComponent("rsa_oaep_2048_sha256_mgf1sha256_test.json"))
        guard case let .rsa(group)? = file.groups.first, let oaep = group.oaep else { return XCTFail("expected an OAEP group") }
        XCTAssertEqual([oaep.sha, oaep.mgf, oaep.mgfSha], ["SHA-256", "MGF1", "SHA-256"])
        let labelled = file.tests.filter { $0.flags.contains("EncryptionWithLabel") }
        XCTAssertEqual(labelled.count, 8)
        XCTAssertTrue(labelled.allSatisfy { !$0.label.isEmpty })
    }

    func testVendoredSignatureAndAgreementFiles_decodeKeysAndParameters() throws {
        let ecdsa = try WycheproofFile.load(contentsOf: Self.directory.appendingPathComponent("ecdsa_secp256r1_sha256_p1363_test.json"))
        guard case let .signature(group)? = ecdsa.groups.first else { return XCTFail("expected a signature group") }
        XCTAssertEqual(group.curve, "secp256r1")
        XCTAssertEqual(group.sha, "SHA-256")
        XCTAssertNil(group.pss)
        XCTAssertEqual(group.publicKeyRaw.count, 65)
        XCTAssertEqual(group.publicKeyDER.suffix(65), group.publicKeyRaw, "the SPKI carries the same point")
        XCTAssertEqual(ecdsa.tests.first?.sig.count, 64)
        let pss = try WycheproofFile.load(contentsOf: Self.directory.appendingPathComponent("rsa_pss_2048_sha256_mgf1_32_test.json"))
        guard case let .signature(pssGroup)? = pss.groups.first, let parameters = pssGroup.pss else { return XCTFail("expected a PSS group") }
        XCTAssertEqual([parameters.mgf, parameters.mgfSha], ["MGF1", "SHA-256"])
        XCTAssertEqual(parameters.saltLength, 32)
        let ecdh = try WycheproofFile.load(contentsOf: Self.directory.appendingPathComponent("ecdh_secp256r1_ecpoint_test.json"))
        guard case let .keyAgreement(agreement)? = ecdh.groups.first else { return XCTFail("expected a key agreement group") }
        XCTAssertEqual(agreement.curve, "secp256r1")
        XCTAssertEqual(agreement.encoding, .x962)
        let tc1 = try XCTUnwrap(ecdh.tests.first { $0.tcId == 1 })
        XCTAssertEqual(tc1.publicKey.first, 0x04)
        XCTAssertEqual(tc1.shared.hexString, "53020d908b0219328b658b525f26780e3ae12bcd952bb25a93bc0895e1714285")
        let hkdf = try WycheproofFile.load(contentsOf: Self.directory.appendingPathComponent("hkdf_sha256_test.json"))
        let rfc = try XCTUnwrap(hkdf.tests.first { $0.tcId == 1 })
        XCTAssertEqual(rfc.size, 42)
        XCTAssertEqual(rfc.okm.count, 42)
        XCTAssertEqual(rfc.salt.hexString, "000102030405060708090a0b0c")
    }

    func testSignatureAndAgreementGroups_fieldsOfAnotherSchemaAreRefused() throws {
        let data = try Data(contentsOf: Self.directory.appendingPathComponent("rsa_signature_2048_sha256_test.json"))
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        var groups = try XCTUnwrap(json["testGroups"] as? [[String: Any]])
        groups[1]["sLen"] = 32  // a PSS parameter in a PKCS#1 v1.5 group
        json["testGroups"] = groups
        let error = refusal(try JSONSerialization.data(withJSONObject: json))
        XCTAssertEqual(error?.place, "testGroups[1]")
        XCTAssertEqual(error?.reason, "a PKCS#1 v1.5 group has sha and no PSS parameters")
        let x25519 = try Data(contentsOf: Self.directory.appendingPathComponent("x25519_test.json"))
        var xdh = try XCTUnwrap(JSONSerialization.jsonObject(with: x25519) as? [String: Any])
        var xdhGroups = try XCTUnwrap(xdh["testGroups"] as? [[String: Any]])
        xdhGroups[0]["encoding"] = "asn"
        xdh["testGroups"] = xdhGroups
        XCTAssertEqual(refusal(try JSONSerialization.data(withJSONObject: xdh))?.reason, "encoding 'asn' in a XdhComp group (expected none)")
    }

    // MARK: strictness, on a minimal file built here

    static func oaepFile(test: String = WycheproofLoaderTests.goodTest, group: String = "", top: String = "",
                         schema: String = "rsaes_oaep_decrypt_schema_v1.json", numberOfTests: Int = 1,
                         type: String = "RsaesOaepDecrypt", oaepFields: String = #""sha": "SHA-256", "mgf": "MGF1", "mgfSha": "SHA-256","#) -> Data {
        let key = ["modulus", "privateExponent", "publicExponent", "prime1", "prime2", "exponent1", "exponent2", "coefficient"]
            .map { "\"\($0)\": \"00c1\"" }.joined(separator: ", ")
        return Data("""
        {"algorithm": "RSAES-OAEP", "schema": "\(schema)", "numberOfTests": \(numberOfTests), "header": [], \(top)
         "notes": {"Normal": {"bugType": "BASIC", "description": "d"}},
         "testGroups": [{"type": "\(type)", "source": {"name": "test", "version": "0"}, "keySize": 2048, \(oaepFields)
                         "privateKey": {\(key)}, "privateKeyPkcs8": "3000", "privateKeyPem": "pem", \(group)
                         "tests": [\(test)]}]}
        """.utf8)
    }
    static let goodTest = #"{"tcId": 7, "comment": "c", "flags": ["Normal"], "msg": "00", "ct": "0102", "label": "", "result": "valid"}"#

    func refusal(_ json: Data, file: StaticString = #filePath, line: UInt = #line) -> WycheproofLoadError? {
        do {
            _ = try WycheproofFile(json: json, fileName: "made_up_test.json")
            XCTFail("the loader accepted it", file: file, line: line)
            return nil
        } catch let error as WycheproofLoadError {
            XCTAssertEqual(error.file, "made_up_test.json", file: file, line: line)
            return error
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
            return nil
        }
    }

    func testMinimalFile_loads() throws {
        let file = try WycheproofFile(json: Self.oaepFile(), fileName: "made_up_test.json")
        XCTAssertEqual(file.tests.map(\.tcId), [7])
        XCTAssertEqual(file.tests.first?.ct, Data([1, 2]))
        XCTAssertEqual(file.stem, "made_up_test")
    }

    func testUnknownResult_throwsNamingTheTcId() {
        let error = refusal(Self.oaepFile(test: Self.goodTest.replacingOccurrences(of: "\"valid\"", with: "\"maybe\"")))
        XCTAssertEqual(error?.place, "testGroups[0].tests[0].result")
        XCTAssertEqual(error?.reason, "tcId 7: unknown result 'maybe' (valid, invalid or acceptable)")
    }

    func testUnknownFieldInATest_throwsNamingFieldAndTcId() {
        let error = refusal(Self.oaepFile(test: Self.goodTest.replacingOccurrences(of: "\"comment\"", with: "\"extra\": 1, \"comment\"")))
        XCTAssertEqual(error?.place, "testGroups[0].tests[0]")
        XCTAssertTrue(error?.reason.hasPrefix("tcId 7: unknown field 'extra'") ?? false, "\(String(describing: error))")
    }

    func testUnknownFieldInAGroupOrAtTheTop_throws() {
        XCTAssertTrue(refusal(Self.oaepFile(group: #""ivSize": 96,"#))?.reason.contains("unknown field 'ivSize'") ?? false)
        XCTAssertTrue(refusal(Self.oaepFile(top: #""comment": "x","#))?.reason.contains("unknown field 'comment'") ?? false)
    }

    func testMissingField_throwsNamingIt() {
        let error = refusal(Self.oaepFile(test: Self.goodTest.replacingOccurrences(of: #""ct": "0102", "#, with: "")))
        XCTAssertEqual(error?.place, "testGroups[0].tests[0].ct")
        XCTAssertEqual(error?.reason, "tcId 7: required field is missing")
    }

    func testBadHex_throws() {
        let error = refusal(Self.oaepFile(test: Self.goodTest.replacingOccurrences(of: "\"0102\"", with: "\"01g2\"")))
        XCTAssertEqual(error?.place, "testGroups[0].tests[0].ct")
        XCTAssertTrue(error?.reason.hasPrefix("tcId 7: not hex bytes") ?? false, "\(String(describing: error))")
        XCTAssertNotNil(refusal(Self.oaepFile(test: Self.goodTest.replacingOccurrences(of: "\"0102\"", with: "\"010\""))))
    }

    func testUnknownSchema_throws() {
        let error = refusal(Self.oaepFile(schema: "mac_test_schema_v1.json"))
        XCTAssertEqual(error?.place, "schema")
        XCTAssertTrue(error?.reason.hasPrefix("schema 'mac_test_schema_v1.json' is not one crosscheck runs") ?? false)
    }

    func testSchemaNameWithoutJSONSuffix_isTheSameSchema() throws {
        XCTAssertEqual(try WycheproofFile(json: Self.oaepFile(schema: "rsaes_oaep_decrypt_schema_v1"), fileName: "x.json").schema, .rsaesOAEPDecrypt)
    }

    func testWrongTestCount_throws() {
        XCTAssertEqual(refusal(Self.oaepFile(numberOfTests: 2))?.reason, "says 2 but the file holds 1 tests (truncated or edited?)")
    }

    func testDuplicateTcId_throws() {
        let error = refusal(Self.oaepFile(test: Self.goodTest + ", " + Self.goodTest, numberOfTests: 2))
        XCTAssertEqual(error?.reason, "tcId 7 occurs more than once")
    }

    func testGroupOfTheOtherRSASchema_throws() {
        let pkcs1Test = Self.goodTest.replacingOccurrences(of: #""label": "", "#, with: "")
        let pkcs1Group = refusal(Self.oaepFile(test: pkcs1Test, type: "RsaesPkcs1Decrypt", oaepFields: ""))
        XCTAssertTrue(pkcs1Group?.reason.contains("a PKCS#1 v1.5 group in a rsaes_oaep_decrypt_schema_v1.json file") ?? false)
        XCTAssertTrue(refusal(Self.oaepFile(type: "AeadTest"))?.reason.contains("group type 'AeadTest'") ?? false)
    }

    func testNotesAsPlainStrings_areAccepted() throws {
        let json = String(decoding: Self.oaepFile(), as: UTF8.self)
            .replacingOccurrences(of: #"{"bugType": "BASIC", "description": "d"}"#, with: #""older files describe flags in a string""#)
        let file = try WycheproofFile(json: Data(json.utf8), fileName: "x.json")
        XCTAssertEqual(file.notes["Normal"]?.description, "older files describe flags in a string")
    }
}
