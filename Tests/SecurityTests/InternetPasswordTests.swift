import Foundation
import XCTest
import Security

/// Internet passwords as keychain wrappers store them (server, protocol, authentication type), and
/// the CFError functions their error paths call, with Apple's values and optionality.
final class InternetPasswordTests: XCTestCase {
    override func setUp() { InMemoryKeychain.shared.removeAll() }

    func testProtocolAndAuthenticationType_storeFindAndComeBackAsApplesCodes() throws {
        let item: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword,
            kSecAttrServer as String: "pi.local",
            kSecAttrAccount as String: "alice",
            kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
            kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeHTMLForm,
            kSecValueData as String: Data("hunter2".utf8),
        ]
        XCTAssertEqual(SecItemAdd(item as CFDictionary, nil), errSecSuccess)
        // The same server and account under another protocol is another item.
        var ftp = item
        ftp[kSecAttrProtocol as String] = kSecAttrProtocolFTP
        XCTAssertEqual(SecItemAdd(ftp as CFDictionary, nil), errSecSuccess)

        var found: CFTypeRef?
        let query: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "pi.local",
                                    kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
                                    kSecReturnAttributes as String: kCFBooleanTrue!, kSecReturnData as String: kCFBooleanTrue!]
        XCTAssertEqual(SecItemCopyMatching(query as CFDictionary, &found), errSecSuccess)
        let attributes = try XCTUnwrap(found as? [String: Any])
        XCTAssertEqual(attributes[kSecAttrProtocol as String] as? String, "htps")
        XCTAssertEqual(attributes[kSecAttrAuthenticationType as String] as? String, "form")
        XCTAssertEqual(attributes[kSecValueData as String] as? Data, Data("hunter2".utf8))

        // Apple's four-character codes (SecKeychain.h), spaces included.
        XCTAssertEqual([kSecAttrProtocolFTP, kSecAttrProtocolSOCKS, kSecAttrProtocolHTTPSProxy, kSecAttrProtocolPOP3S] as [String],
                       ["ftp ", "sox ", "htsx", "pops"])
        XCTAssertEqual([kSecAttrAuthenticationTypeHTTPBasic, kSecAttrAuthenticationTypeDefault, kSecAttrAuthenticationTypeMSN] as [String],
                       ["http", "dflt", "msna"])
        XCTAssertEqual(errSecInvalidRecord, -67701)
    }

    func testCFErrorFunctions_asAKeychainWrapperCallsThem() throws {
        var error: Unmanaged<CFError>?
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 100]
        XCTAssertNil(SecKeyCreateRandomKey(attributes as CFDictionary, &error))
        let cfError = try XCTUnwrap(error?.takeRetainedValue())
        // Implicitly unwrapped on iOS: `as String` with no `!`.
        let domain = CFErrorGetDomain(cfError) as String
        XCTAssertEqual(domain, kCFErrorDomainOSStatus)
        XCTAssertEqual(CFErrorGetCode(cfError), Int(errSecKeySizeNotAllowed))  // SecRSAKey.c: below 512 bits
        let userInfo = CFErrorCopyUserInfo(cfError) as NSDictionary
        XCTAssertEqual(userInfo as? [String: String], cfError.userInfo as? [String: String])
        XCTAssertFalse((CFErrorCopyDescription(cfError) as String).isEmpty)
    }
}
