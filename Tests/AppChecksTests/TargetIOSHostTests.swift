import Foundation
import XCTest
import AppChecks
import AppHost
import AppUnderTest
import WireCrypto

/// `crosscheck run --ios VERSION` reaches the app's own process (CROSSCHECK_IOS_VERSION, as
/// `--app-user` does): seed 000 in `crosscheck app-host seed-000`, given a PKCS#1 ciphertext made
/// for another key, gets SecKeyDecrypt's errSecParam on iOS 17.3 and, from 17.4 (implicit
/// rejection, SecKeyAdaptors.m), a random message instead: never the -50 its error branch prints.
final class TargetIOSHostTests: XCTestCase {
    private func seed000(ios: String) throws -> HostedApp {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-ios-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let container = try AppContainer.fresh(in: folder)
        let environment = AppTargetIOS.environment(container.environment(), version: ios)
        return try HostedApp(launch: {
            try HostChannel.launch(executable: KeyStorageAuditTests.crosscheck, arguments: ["app-host", "seed-000"], log: container.console,
                                   environment: environment)
        }, container: container)
    }

    func testIOSVersion_reachesTheHostedApp_pkcs1WrongKeyIsAnErrorOnlyBefore17_4() throws {
        let otherKey = try RSAPrivateKey(bits: 1024)
        let ciphertext = try otherKey.publicKey.encrypt(Data("Quit".utf8), padding: ._WEAK_AND_INSECURE_PKCS_V1_5)
        XCTAssertEqual(ciphertext.count, 128, "the seed's 1024-bit key: one read of 128 bytes")

        let old = try seed000(ios: "17.3")
        defer { old.stop() }
        let oldClient = try XCTUnwrap(old.capability(RSASocketClient.self))
        _ = try oldClient.publicKeyMessage()
        XCTAssertThrowsError(try oldClient.receiveEncryptedMessage(ciphertext)) { XCTAssertTrue("\($0)".contains("-50"), "\($0)") }

        let current = try seed000(ios: AppTargetIOS.defaultVersion)
        defer { current.stop() }
        let currentClient = try XCTUnwrap(current.capability(RSASocketClient.self))
        _ = try currentClient.publicKeyMessage()
        switch Result(catching: { try currentClient.receiveEncryptedMessage(ciphertext) }) {
        case let .success(garbage): XCTAssertNotEqual(garbage, Data("Quit".utf8))
        case let .failure(error): XCTAssertFalse("\(error)".contains("-50"), "SecKeyDecrypt no longer fails from iOS 17.4: \(error)")
        }
    }
}
