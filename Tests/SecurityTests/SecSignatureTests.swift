import Foundation
import XCTest
import Security
import TestSupport

/// SecKeyCreateSignature / SecKeyVerifySignature with RSA, against the openssl command and pyca
/// both ways. PKCS#1 v1.5 is deterministic, so the app's signature must equal openssl's byte for byte.
final class SecSignatureTests: XCTestCase {
    private static let algorithms: [(SecKeyAlgorithm, digest: String, pss: Bool)] = [
        (.rsaSignatureMessagePKCS1v15SHA1, "sha1", false), (.rsaSignatureMessagePKCS1v15SHA224, "sha224", false),
        (.rsaSignatureMessagePKCS1v15SHA256, "sha256", false), (.rsaSignatureMessagePKCS1v15SHA384, "sha384", false),
        (.rsaSignatureMessagePKCS1v15SHA512, "sha512", false),
        (.rsaSignatureMessagePSSSHA1, "sha1", true), (.rsaSignatureMessagePSSSHA224, "sha224", true),
        (.rsaSignatureMessagePSSSHA256, "sha256", true), (.rsaSignatureMessagePSSSHA384, "sha384", true),
        (.rsaSignatureMessagePSSSHA512, "sha512", true),
    ]

    private func makeKey() throws -> (SecKey, SecKey, Scratch) {
        var error: Unmanaged<CFError>?
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048]
        let privateKey = try XCTUnwrap(SecKeyCreateRandomKey(attributes as CFDictionary, &error))
        let publicKey = try XCTUnwrap(SecKeyCopyPublicKey(privateKey))
        let scratch = try Scratch()
        try scratch.write("private.der", try XCTUnwrap(SecKeyCopyExternalRepresentation(privateKey, nil) as Data?))
        try scratch.write("public.der", try XCTUnwrap(SecKeyCopyExternalRepresentation(publicKey, nil) as Data?))
        try scratch.openssl(["rsa", "-inform", "DER", "-in", "private.der", "-out", "private.pem"])
        try scratch.openssl(["rsa", "-RSAPublicKey_in", "-inform", "DER", "-in", "public.der", "-pubout", "-out", "public.pem"])
        return (privateKey, publicKey, scratch)
    }

    func testEveryRSAAlgorithm_bothWaysWithOpenSSL() throws {
        let (privateKey, publicKey, scratch) = try makeKey()
        let message = Data("the Pi checks what the phone signed \(UUID())".utf8)
        try scratch.write("message", message)
        for (algorithm, digest, pss) in Self.algorithms {
            let label = algorithm.rawValue as String
            XCTAssertTrue(SecKeyIsAlgorithmSupported(privateKey, .sign, algorithm), label)
            XCTAssertFalse(SecKeyIsAlgorithmSupported(publicKey, .sign, algorithm), label)
            XCTAssertTrue(SecKeyIsAlgorithmSupported(publicKey, .verify, algorithm), label)
            var error: Unmanaged<CFError>?
            let signature = try XCTUnwrap(SecKeyCreateSignature(privateKey, algorithm, message as CFData, &error) as Data?, label)
            XCTAssertEqual(signature.count, 256)
            XCTAssertTrue(SecKeyVerifySignature(publicKey, algorithm, message as CFData, signature as CFData, &error), label)
            // openssl verifies the app's signature (PSS with MGF1 of the same hash and a hash-long salt).
            try scratch.write("app.sig", signature)
            let options = pss ? ["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:digest", "-sigopt", "rsa_mgf1_md:\(digest)"] : []
            let verified = try runProgram("/usr/bin/openssl", ["dgst", "-\(digest)"] + options + ["-verify", "public.pem", "-signature", "app.sig", "message"],
                                          in: scratch.url)
            XCTAssertEqual(verified.status, 0, "\(label): openssl refused the app's signature: \(verified.errorText)")
            // The app verifies openssl's signature; PKCS#1 v1.5 signatures are the same bytes.
            let theirs = try scratch.openssl(["dgst", "-\(digest)"] + options + ["-sign", "private.pem", "message"])
            XCTAssertTrue(SecKeyVerifySignature(publicKey, algorithm, message as CFData, theirs as CFData, &error), label)
            if !pss { XCTAssertEqual(theirs, signature, "\(label): PKCS#1 v1.5 is deterministic") }
            // A changed message or signature is refused with errSecVerifyFailed.
            error = nil
            XCTAssertFalse(SecKeyVerifySignature(publicKey, algorithm, (message + Data([0])) as CFData, signature as CFData, &error), label)
            XCTAssertEqual(error.map { CFErrorGetCode($0.takeRetainedValue()) }, Int(errSecVerifyFailed), label)
            var flipped = signature
            flipped[100] ^= 1
            XCTAssertFalse(SecKeyVerifySignature(publicKey, algorithm, message as CFData, flipped as CFData, nil), label)
        }
    }

    /// The digest variants sign a digest the app computed: the same signature as the message
    /// variant for PKCS#1 v1.5; a digest of the wrong length is errSecParam.
    func testDigestVariants_andRefusals() throws {
        let (privateKey, publicKey, _) = try makeKey()
        let message = Data("digest me".utf8)
        let digest = Data(base64Encoded: "ojDrnJCqKi6cwShv1QWjSL6ujLdHMCVWCNuShOL3zvU=")!  // SHA-256("digest me"): printf "digest me" | openssl dgst -sha256 -binary | base64
        var error: Unmanaged<CFError>?
        let fromMessage = SecKeyCreateSignature(privateKey, .rsaSignatureMessagePKCS1v15SHA256, message as CFData, &error) as Data?
        let fromDigest = SecKeyCreateSignature(privateKey, .rsaSignatureDigestPKCS1v15SHA256, digest as CFData, &error) as Data?
        XCTAssertNotNil(fromMessage)
        XCTAssertEqual(fromMessage, fromDigest, "SHA-256(\"digest me\") must be the digest given")
        let pss = try XCTUnwrap(SecKeyCreateSignature(privateKey, .rsaSignatureDigestPSSSHA256, digest as CFData, &error) as Data?)
        XCTAssertTrue(SecKeyVerifySignature(publicKey, .rsaSignatureMessagePSSSHA256, message as CFData, pss as CFData, nil))
        error = nil
        XCTAssertNil(SecKeyCreateSignature(privateKey, .rsaSignatureDigestPKCS1v15SHA256, Data(count: 20) as CFData, &error))
        XCTAssertEqual(error.map { CFErrorGetCode($0.takeRetainedValue()) }, Int(errSecParam))
        error = nil
        XCTAssertNil(SecKeyCreateSignature(publicKey, .rsaSignatureMessagePKCS1v15SHA256, message as CFData, &error), "a public key cannot sign")
        XCTAssertEqual(error.map { CFErrorGetCode($0.takeRetainedValue()) }, Int(errSecParam))
        error = nil
        XCTAssertNil(SecKeyCreateSignature(privateKey, .ecdsaSignatureMessageX962SHA256, message as CFData, &error), "an RSA key has no ECDSA")
        XCTAssertEqual(error.map { CFErrorGetCode($0.takeRetainedValue()) }, Int(errSecParam))
        XCTAssertFalse(SecKeyIsAlgorithmSupported(privateKey, .sign, .ecdsaSignatureMessageX962SHA256))
        XCTAssertFalse(SecKeyIsAlgorithmSupported(privateKey, .sign, .rsaSignatureRaw), "raw RSA signing is not provided")
    }

    /// pyca/cryptography (PythonRef's library) verifies the app's PSS and PKCS#1 v1.5 signatures and
    /// signs with the same key for the app to verify.
    func testBothWaysWithPyca() throws {
        let (privateKey, publicKey, scratch) = try makeKey()
        let message = Data("pyca and the phone".utf8)
        let appPSS = try XCTUnwrap(SecKeyCreateSignature(privateKey, .rsaSignatureMessagePSSSHA256, message as CFData, nil) as Data?)
        let appPKCS1 = try XCTUnwrap(SecKeyCreateSignature(privateKey, .rsaSignatureMessagePKCS1v15SHA1, message as CFData, nil) as Data?)
        let output = try python("""
            import sys
            from cryptography.hazmat.primitives import hashes, serialization
            from cryptography.hazmat.primitives.asymmetric import padding
            key = serialization.load_pem_private_key(open("\(scratch.path("private.pem"))", "rb").read(), None)
            message, pss, pkcs1 = (bytes.fromhex(x) for x in sys.stdin.read().split())
            pss_padding = padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32)
            key.public_key().verify(pss, message, pss_padding, hashes.SHA256())
            key.public_key().verify(pkcs1, message, padding.PKCS1v15(), hashes.SHA1())
            print("verified", key.sign(message, pss_padding, hashes.SHA256()).hex(), key.sign(message, padding.PKCS1v15(), hashes.SHA1()).hex())
            """, input: [message, appPSS, appPKCS1].map { $0.map { String(format: "%02x", $0) }.joined() }.joined(separator: " "))
        let fields = output.split(separator: " ").map(String.init)
        XCTAssertEqual(fields.first, "verified")
        XCTAssertEqual(fields.count, 3)
        let theirPSS = try XCTUnwrap(Data(hexString: fields[1])), theirPKCS1 = try XCTUnwrap(Data(hexString: fields[2]))
        XCTAssertTrue(SecKeyVerifySignature(publicKey, .rsaSignatureMessagePSSSHA256, message as CFData, theirPSS as CFData, nil))
        XCTAssertTrue(SecKeyVerifySignature(publicKey, .rsaSignatureMessagePKCS1v15SHA1, message as CFData, theirPKCS1 as CFData, nil))
        XCTAssertEqual(theirPKCS1, appPKCS1, "PKCS#1 v1.5 is deterministic")
    }
}

private extension Data {
    init?(hexString: String) {
        var bytes: [UInt8] = []
        var index = hexString.startIndex
        while index < hexString.endIndex {
            let next = hexString.index(index, offsetBy: 2, limitedBy: hexString.endIndex) ?? hexString.endIndex
            guard let byte = UInt8(hexString[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.init(bytes)
    }
}
