import Foundation
import XCTest
import Security
import LocalAuthentication

/// LAContext answered by the simulated user (`--app-user`), with Apple's error codes.
final class LocalAuthenticationTests: XCTestCase {
    func testPresentUser_authenticates_bothWays() async throws {
        let context = LAContext()
        XCTAssertEqual(context.biometryType, .none, "unknown until a policy is checked, as on a device")
        var error: NSError?
        XCTAssertTrue(context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        XCTAssertNil(error)
        XCTAssertEqual(context.biometryType, .faceID)
        XCTAssertNotNil(context.evaluatedPolicyDomainState)
        let ok = try await SimulatedUser.with(.present) {
            try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Unlock the key")
        }
        XCTAssertTrue(ok)
        let replied = expectation(description: "reply")
        SimulatedUser.with(.present) {
            context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Unlock the key") { success, error in
                XCTAssertTrue(success)
                XCTAssertNil(error)
                replied.fulfill()
            }
        }
        await fulfillment(of: [replied], timeout: 10)
    }

    func testCancelAndAbsentUsers_failWithApplesCodes() {
        for (user, code, raw) in [(SimulatedUser.cancel, LAError.Code.userCancel, -2), (.absent, .authenticationFailed, -1)] {
            let context = LAContext()
            let replied = expectation(description: "reply \(user)")
            SimulatedUser.with(user) {
                context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign the payment") { success, error in
                    XCTAssertFalse(success)
                    XCTAssertEqual((error as? LAError)?.code, code)
                    let ns = error.map { $0 as NSError }
                    XCTAssertEqual(ns?.domain, LAErrorDomain)
                    XCTAssertEqual(ns?.code, raw)
                    replied.fulfill()
                }
            }
            wait(for: [replied], timeout: 10)
        }
        // From and to its NSError form, as EllipticCurveKeyPair builds one.
        let bridged = LAError(_nsError: NSError(domain: LAErrorDomain, code: LAError.userCancel.rawValue,
                                                userInfo: [NSLocalizedDescriptionKey: "Cancelled"]))
        XCTAssertEqual(bridged.code, .userCancel)
        XCTAssertEqual(bridged._nsError.code, -2)
        XCTAssertEqual(bridged.userInfo[NSLocalizedDescriptionKey] as? String, "Cancelled")
        // `catch LAError.userCancel`, as apps write it.
        let context = LAContext()
        let caught = expectation(description: "caught")
        Task {
            do {
                _ = try await SimulatedUser.with(.cancel) {
                    try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Unlock")
                }
                XCTFail("a cancelled prompt must throw")
            } catch LAError.userCancel {
                caught.fulfill()
            } catch {
                XCTFail("\(error)")
            }
        }
        wait(for: [caught], timeout: 10)
    }

    func testNoInteraction_reuseWindow_andInvalidation() async throws {
        let quiet = LAContext()
        quiet.interactionNotAllowed = true
        do {
            _ = try await quiet.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Unlock")
            XCTFail("no prompt allowed must fail")
        } catch {
            XCTAssertEqual((error as? LAError)?.code, .notInteractive)
            XCTAssertEqual((error as NSError).code, -1004)
        }

        // A success is reused within the window the app allows, and only then.
        let reusing = LAContext()
        reusing.touchIDAuthenticationAllowableReuseDuration = 60
        let first = try await SimulatedUser.with(.present) {
            try await reusing.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Unlock")
        }
        XCTAssertTrue(first)
        let reused = try await SimulatedUser.with(.cancel) {
            try await reusing.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Unlock")
        }
        XCTAssertTrue(reused)
        let fresh = LAContext()
        _ = try await SimulatedUser.with(.present) {
            try await fresh.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Unlock")
        }
        do {
            _ = try await SimulatedUser.with(.cancel) {
                try await fresh.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Unlock")
            }
            XCTFail("without a reuse window the user is asked again")
        } catch LAError.userCancel {}

        reusing.invalidate()
        var error: NSError?
        XCTAssertFalse(reusing.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
        XCTAssertEqual(error?.code, LAError.Code.invalidContext.rawValue)
    }

    /// kSecUseAuthenticationContext: a context that already authenticated is not asked again; one
    /// with interactionNotAllowed makes a protected read errSecInteractionNotAllowed, as on a device.
    func testAnLAContextInTheQuery_isHonouredByTheKeychain() async throws {
        InMemoryKeychain.shared.removeAll()
        let control = try XCTUnwrap(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, .userPresence, nil))
        XCTAssertEqual(SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "door",
                                   kSecAttrAccessControl as String: control, kSecValueData as String: Data("1234".utf8)] as CFDictionary, nil),
                       errSecSuccess)
        func read(_ context: LAContext?) -> OSStatus {
            var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "door",
                                        kSecReturnData as String: true]
            if let context { query[kSecUseAuthenticationContext as String] = context }
            var result: CFTypeRef?
            return SecItemCopyMatching(query as CFDictionary, &result)
        }
        let unlocked = LAContext()
        unlocked.touchIDAuthenticationAllowableReuseDuration = 60
        _ = try await SimulatedUser.with(.present) {
            try await unlocked.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Open the door")
        }
        SimulatedUser.with(.cancel) {
            XCTAssertEqual(read(unlocked), errSecSuccess, "authenticated within its reuse window: no prompt")
            XCTAssertEqual(read(LAContext()), errSecUserCanceled, "a fresh context prompts, and the user cancels")
            XCTAssertEqual(read(nil), errSecUserCanceled)
            let quiet = LAContext()
            quiet.interactionNotAllowed = true
            XCTAssertEqual(read(quiet), errSecInteractionNotAllowed)
        }
        unlocked.invalidate()
        SimulatedUser.with(.cancel) { XCTAssertEqual(read(unlocked), errSecUserCanceled, "an invalidated context no longer counts") }
    }
}
