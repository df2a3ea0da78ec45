import Foundation
import XCTest
import Security
import TestSupport

/// SecPKCS12Import on .p12 files the openssl command makes (`openssl pkcs12 -export`), the way a
/// team makes a client certificate: OpenSSL 3's default (PBES2, AES-256-CBC, HMAC-SHA256 MAC) and
/// `-legacy` (RC2-40 for the certificates, 3DES for the key, SHA-1 MAC: what OpenSSL 1.x and older
/// Keychain Access exports are). pyca/cryptography reads the same files as the independent peer.
final class PKCS12Tests: XCTestCase {
    static let passphrase = "client-cert pass"

    /// A CA, a client certificate it signed, and both .p12 encodings of the client's identity.
    private func makeFiles() throws -> Scratch {
        let scratch = try Scratch()
        try scratch.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "30",
                             "-subj", "/O=crosscheck test/CN=client CA"])
        try scratch.openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "client.key", "-out", "client.csr",
                             "-subj", "/O=crosscheck test/CN=phone 42"])
        try scratch.openssl(["x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "client.pem",
                             "-days", "30", "-sha256"])
        try scratch.openssl(["x509", "-in", "client.pem", "-outform", "DER", "-out", "client.der"])
        try scratch.openssl(["x509", "-in", "ca.pem", "-outform", "DER", "-out", "ca.der"])
        for (name, extra) in [("aes", [String]()), ("legacy", ["-legacy"])] {
            try scratch.openssl(["pkcs12", "-export", "-inkey", "client.key", "-in", "client.pem", "-certfile", "ca.pem", "-name", "phone 42",
                                 "-passout", "pass:\(Self.passphrase)", "-out", "\(name).p12"] + extra)
        }
        return scratch
    }

    private func importItems(_ data: Data, _ passphrase: String?) -> (OSStatus, [NSDictionary]) {
        var items: CFArray?
        let options: [String: Any] = passphrase.map { [kSecImportExportPassphrase as String: $0] } ?? [:]
        let status = SecPKCS12Import(data as CFData, options as CFDictionary, &items)
        return (status, (items as? [NSDictionary]) ?? [])
    }

    func testImport_bothEncryptions_giveTheIdentityChainTrustKeyIDAndLabel() throws {
        let scratch = try makeFiles()
        let clientDER = try scratch.read("client.der")
        let caDER = try scratch.read("ca.der")
        // The key as pyca reads it from the openssl key file: PKCS#1 DER, what iOS exports.
        let pycaKeyHex = try python("""
            from cryptography.hazmat.primitives import serialization as s
            k = s.load_pem_private_key(open('\(scratch.path("client.key"))','rb').read(), None)
            print(k.private_bytes(s.Encoding.DER, s.PrivateFormat.TraditionalOpenSSL, s.NoEncryption()).hex())
            """)
        for name in ["aes", "legacy"] {
            let data = try scratch.read("\(name).p12")
            let (status, items) = importItems(data, Self.passphrase)
            XCTAssertEqual(status, errSecSuccess, name)
            XCTAssertEqual(items.count, 1, name)
            // The walk real client-certificate code does, with the CF functions.
            let array = items as CFArray
            XCTAssertEqual(CFArrayGetCount(array), 1)
            let first = unsafeBitCast(CFArrayGetValueAtIndex(array, 0), to: CFDictionary.self)
            let pointer = try XCTUnwrap(CFDictionaryGetValue(first, unsafeBitCast(kSecImportItemIdentity, to: UnsafeRawPointer.self)), name)
            let identity = unsafeBitCast(pointer, to: SecIdentity.self)
            XCTAssertEqual(CFGetTypeID(identity), SecIdentityGetTypeID())
            var certificate: SecCertificate?
            XCTAssertEqual(SecIdentityCopyCertificate(identity, &certificate), errSecSuccess)
            XCTAssertEqual(certificate.map { SecCertificateCopyData($0) as Data }, clientDER, name)
            var key: SecKey?
            XCTAssertEqual(SecIdentityCopyPrivateKey(identity, &key), errSecSuccess)
            let exported = try XCTUnwrap(key.flatMap { SecKeyCopyExternalRepresentation($0, nil) as Data? }, name)
            XCTAssertEqual(exported.map { String(format: "%02x", $0) }.joined(), pycaKeyHex, "\(name): the key is the one openssl packed")
            let chain = try XCTUnwrap(items[0][kSecImportItemCertChain as String] as? [SecCertificate], name)
            XCTAssertEqual(chain.map { SecCertificateCopyData($0) as Data }, [clientDER, caDER], name)
            XCTAssertNotNil(items[0][kSecImportItemTrust as String] as? SecTrust, name)
            XCTAssertEqual(items[0][kSecImportItemLabel as String] as? String, "phone 42", name)
            // openssl's localKeyID is the SHA-1 of the certificate.
            let sha1 = try scratch.openssl(["dgst", "-sha1", "-binary", "client.der"])
            XCTAssertEqual(items[0][kSecImportItemKeyID as String] as? Data, sha1, name)
        }
    }

    /// pyca reads the same files with the same passphrase (so they are real PKCS#12), and a
    /// wrong or missing passphrase is errSecAuthFailed for both encryptions, as on iOS.
    func testWrongPassphrase_isErrSecAuthFailed_andPycaAgreesOnTheFiles() throws {
        let scratch = try makeFiles()
        for name in ["aes", "legacy"] {
            let data = try scratch.read("\(name).p12")
            let subject = try python("""
                from cryptography.hazmat.primitives.serialization import pkcs12
                k, c, extra = pkcs12.load_key_and_certificates(open('\(scratch.path("\(name).p12"))','rb').read(), b'\(Self.passphrase)')
                print(c.subject.rfc4514_string(), len(extra))
                """)
            XCTAssertEqual(subject, "CN=phone 42,O=crosscheck test 1", name)
            XCTAssertEqual(importItems(data, "not the passphrase").0, errSecAuthFailed, name)
            XCTAssertEqual(importItems(data, nil).0, errSecAuthFailed, name)
        }
        XCTAssertEqual(importItems(Data("not a p12".utf8), Self.passphrase).0, errSecDecode)
        XCTAssertEqual(importItems(try scratch.read("client.der"), Self.passphrase).0, errSecDecode)
    }

    /// The imported key signs for TLS client authentication: its signature verifies with the
    /// certificate's public key under openssl.
    func testImportedKey_signsAndOpenSSLVerifiesWithTheCertificate() throws {
        let scratch = try makeFiles()
        let (_, items) = importItems(try scratch.read("legacy.p12"), Self.passphrase)
        let identity = try XCTUnwrap(items.first?[kSecImportItemIdentity as String] as? SecIdentity)
        var key: SecKey?
        SecIdentityCopyPrivateKey(identity, &key)
        let message = Data("client hello transcript".utf8)
        let signature = try XCTUnwrap(SecKeyCreateSignature(try XCTUnwrap(key), .rsaSignatureMessagePKCS1v15SHA256, message as CFData, nil) as Data?)
        try scratch.write("message", message)
        try scratch.write("message.sig", signature)
        try scratch.openssl(["x509", "-in", "client.pem", "-pubkey", "-noout", "-out", "client.pub"])
        let verified = try runProgram("/usr/bin/openssl", ["dgst", "-sha256", "-verify", "client.pub", "-signature", "message.sig", "message"], in: scratch.url)
        XCTAssertEqual(verified.status, 0, verified.errorText)
    }
}
