import Foundation
import XCTest
import Conformance
@testable import Vectors

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
        let error = refusal(Self.oaepFile(schema: "rsassa_pss_verify_schema_v1.json"))
        XCTAssertEqual(error?.place, "schema")
        XCTAssertTrue(error?.reason.hasPrefix("schema 'rsassa_pss_verify_schema_v1.json' is not one crosscheck runs") ?? false)
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
