import Foundation
import XCTest
import AppChecks
import AppUnderTest
import Conformance
import SeedApps

/// The app as the client of a described protocol (`DescribedProtocolClient`): one conversation
/// with its own networking against PythonRef's described server (its own process) and the Swift
/// engine's. Seed 000's own session is the seed description's pi-to-phone conversation; a client
/// written from docs/PROTOCOL.md passes phone-to-pi; planted flaws fail with the server's reason.
final class AppDescribedClientTests: XCTestCase {
    func results(_ app: AppUnderTest) throws -> [String: CheckResult] {
        let found = try runAppChecks([app], loopback: true, filter: ".described.")
        return Dictionary(found.map { ($0.check.fullName, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func testSeed000_itsOwnSessionIsTheSeedDescriptionsPiToPhoneConversation() throws {
        let found = try results(try XCTUnwrap(SeedApps.make("seed-000")))
        for server in ["python", "swift"] {
            let name = "crosscheck.rsa-socket.app_client.\(server)_server.seed-000.described.pi-to-phone"
            let result = try XCTUnwrap(found[name], "\(found.keys.sorted())")
            XCTAssertEqual(result.verdict, "passed", "\(name): \(result.message)\n\(result.outcome)")
        }
        XCTAssertEqual(found.count, 2)
    }

    func testClientWrittenFromTheDocs_passesBothServers() throws {
        let found = try results(PhoneToPiClientApp("docs-client"))
        XCTAssertEqual(found.count, 2)
        for (name, result) in found {
            XCTAssertTrue(name.hasSuffix(".docs-client.described.phone-to-pi"), name)
            XCTAssertEqual(result.verdict, "passed", "\(name): \(result.message)\n\(result.outcome)")
        }
    }

    func testOAEPWhereTheDescriptionSaysPKCS1_failsWithTheServersRefusal() throws {
        let found = try results(PhoneToPiClientApp("oaep-client", plant: .oaepInsteadOfPKCS1))
        XCTAssertEqual(found.count, 2)
        for (name, result) in found {
            XCTAssertEqual(result.verdict, "failed", name)
            XCTAssertTrue(result.message.contains("was refused by the"), "\(name): \(result.message)")
            XCTAssertTrue(result.message.contains("the server answered Server: ERROR"), "\(name): \(result.message)")
        }
    }

    func testMessageWithoutItsLabel_failsWithTheServersRefusal() throws {
        let found = try results(PhoneToPiClientApp("no-label-client", plant: .noLabel))
        XCTAssertEqual(found.count, 2)
        for (name, result) in found {
            XCTAssertEqual(result.verdict, "failed", name)
            XCTAssertTrue(result.message.contains("was refused by the"), "\(name): \(result.message)")
        }
    }

    func testPiToPhoneClient_passes_andOneThatShowsPartOfTheMessageFails() throws {
        let good = try results(PiToPhoneClientApp("pi-to-phone-client"))
        XCTAssertEqual(good.count, 2)
        for (name, result) in good { XCTAssertEqual(result.verdict, "passed", "\(name): \(result.message)\n\(result.outcome)") }
        let cut = try results(PiToPhoneClientApp("cut-client", cutsThePlaintext: true))
        XCTAssertEqual(cut.count, 2)
        for (name, result) in cut {
            XCTAssertEqual(result.verdict, "failed", name)
            XCTAssertTrue(result.message.contains("cut-client took \"Secret message f\""), "\(name): \(result.message)")
            XCTAssertTrue(result.message.contains("the server sent \"Secret message from RPi server\""), "\(name): \(result.message)")
        }
    }

    /// Textbook RSA from the app's side: `.rsaEncryptionRaw` written as Python 2's tuple text passes
    /// both servers; Python 3's `(b'…',)` is refused. (A PKCS#1 v1.5 block sent by mistake would pass:
    /// textbook RSA decrypts any block below n, and this conversation states no message to compare.)
    func testTextbookClient_rawEncryptionAsAPython2Tuple_passes_andPython3TextIsRefused() throws {
        let good = try results(TextbookTupleClientApp("textbook-client"))
        XCTAssertEqual(good.count, 2)
        for (name, result) in good {
            XCTAssertTrue(name.hasSuffix(".textbook-client.described.encrypted-message"), name)
            XCTAssertEqual(result.verdict, "passed", "\(name): \(result.message)\n\(result.outcome)")
        }
        for plant in [TextbookTupleClientApp.Plant.python3Repr] {
            let found = try results(TextbookTupleClientApp("planted-textbook-client", plant: plant))
            XCTAssertEqual(found.count, 2, "\(plant)")
            for (name, result) in found {
                XCTAssertEqual(result.verdict, "failed", "\(plant) \(name): \(result.message)")
                XCTAssertTrue(result.message.contains("was refused by the"), "\(plant) \(name): \(result.message)")
            }
        }
    }

    func testADescriptionThatIsNotThere_isAnErrorThatSaysWhereItLooked() throws {
        let found = try runAppChecks([PhoneToPiClientApp("lost-client", description: "no/such.toml")], loopback: true, filter: "lost-client.described")
        XCTAssertEqual(found.count, 2)
        for result in found {
            XCTAssertEqual(result.verdict, "error")
            XCTAssertTrue(result.message.hasPrefix("its describedProtocol \"no/such.toml\": no description no/such.toml (looked in "), result.message)
            XCTAssertTrue(result.message.hasSuffix("; fix the adapter"), result.message)
        }
    }

    /// Over HTTP: PythonRef's described server checks the app's request; the Swift engine serves tcp only.
    func testHTTPClient_passesPythonRefsServer_andACombinedBoxAsCiphertextIsRefused() throws {
        let good = try results(KeyInRequestClientApp("http-client"))
        XCTAssertEqual(good["crosscheck.gcm-key-in-request.app_client.python_server.http-client.described.decrypt"]?.verdict, "passed",
                       "\(good.mapValues { "\($0.verdict): \($0.message)" })")
        XCTAssertEqual(good["crosscheck.gcm-key-in-request.app_client.swift_server.http-client.described.decrypt"]?.verdict, "skipped")
        let planted = try results(KeyInRequestClientApp("combined-client", nonceInsideCiphertext: true))
        let refused = try XCTUnwrap(planted["crosscheck.gcm-key-in-request.app_client.python_server.combined-client.described.decrypt"])
        XCTAssertEqual(refused.verdict, "failed")
        XCTAssertTrue(refused.message.contains("was refused by the python server"), refused.message)
    }
}
