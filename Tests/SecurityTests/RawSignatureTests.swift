import Foundation
import XCTest
import Security
import TestSupport

/// SecKeyRawSign / SecKeyRawVerify with SecPadding, against `openssl pkeyutl` and pyca. RSA with
/// PKCS#1 v1.5 and no padding are deterministic, so each signature must equal openssl's bytes.
final class RawSignatureTests: XCTestCase {
    private func makeKey() throws -> (SecKey, SecKey, Scratch) {
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048]
        let privateKey = try XCTUnwrap(SecKeyCreateRandomKey(attributes as CFDictionary, nil))
        let scratch = try Scratch()
        try scratch.write("private.der", try XCTUnwrap(SecKeyCopyExternalRepresentation(privateKey, nil) as Data?))
        try scratch.openssl(["rsa", "-inform", "DER", "-in", "private.der", "-out", "private.pem"])
        try scratch.openssl(["rsa", "-in", "private.pem", "-pubout", "-out", "public.pem"])
        return (privateKey, try XCTUnwrap(SecKeyCopyPublicKey(privateKey)), scratch)
    }

    private func sign(_ key: SecKey, _ padding: SecPadding, _ data: Data) -> (OSStatus, Data) {
        var signature = [UInt8](repeating: 0, count: 512)
        var length = signature.count
        let status = data.withUnsafeBytes { SecKeyRawSign(key, padding, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), data.count, &signature, &length) }
        return (status, Data(signature.prefix(status == errSecSuccess ? length : 0)))
    }

    private func verify(_ key: SecKey, _ padding: SecPadding, _ data: Data, _ signature: Data) -> OSStatus {
        data.withUnsafeBytes { input in
            signature.withUnsafeBytes { sig in
                SecKeyRawVerify(key, padding, input.baseAddress!.assumingMemoryBound(to: UInt8.self), data.count,
                                sig.baseAddress!.assumingMemoryBound(to: UInt8.self), signature.count)
            }
        }
    }

    func testDigestPaddings_equalOpenSSLPkeyutlAndPycaVerifies() throws {
        let (privateKey, publicKey, scratch) = try makeKey()
        let message = Data("raw sign \(UUID())".utf8)
        for (padding, digest) in [(SecPadding.PKCS1SHA1, "sha1"), (.PKCS1SHA224, "sha224"), (.PKCS1SHA256, "sha256"), (.PKCS1SHA384, "sha384"),
                                  (.PKCS1SHA512, "sha512")] {
            try scratch.write("message", message)
            let hash = try scratch.openssl(["dgst", "-\(digest)", "-binary", "message"])
            try scratch.write("hash", hash)
            let (status, signature) = sign(privateKey, padding, hash)
            XCTAssertEqual(status, errSecSuccess, digest)
            let theirs = try scratch.openssl(["pkeyutl", "-sign", "-inkey", "private.pem", "-in", "hash", "-pkeyopt", "digest:\(digest)",
                                              "-pkeyopt", "rsa_padding_mode:pkcs1"])
            XCTAssertEqual(signature, theirs, "\(digest): PKCS#1 v1.5 over a digest is deterministic")
            XCTAssertEqual(verify(publicKey, padding, hash, theirs), errSecSuccess, digest)
            var flipped = signature
            flipped[7] ^= 0x40
            XCTAssertEqual(verify(publicKey, padding, hash, flipped), errSSLCrypto, digest)
            XCTAssertEqual(sign(privateKey, padding, hash + Data([0])).0, errSecParam, "\(digest): a digest of the wrong length")
            let pyca = try python("""
                from cryptography.hazmat.primitives import hashes, serialization as s
                from cryptography.hazmat.primitives.asymmetric import padding, utils
                k = s.load_pem_public_key(open('\(scratch.path("public.pem"))','rb').read())
                h = hashes.\(digest.uppercased())()
                k.verify(bytes.fromhex('\(signature.hex)'), bytes.fromhex('\(hash.hex)'), padding.PKCS1v15(), utils.Prehashed(h))
                print('ok')
                """)
            XCTAssertEqual(pyca, "ok", digest)
        }
    }

    /// .PKCS1 pads the caller's bytes as they are (a DigestInfo it built): openssl pkeyutl's bytes;
    /// .none is one raw block: pyca's m^d mod n.
    func testPKCS1AndNone_equalOpenSSLAndTextbookRSA() throws {
        let (privateKey, publicKey, scratch) = try makeKey()
        let digestInfo = Data(hex: "3031300d060960864801650304020105000420") + Data((0..<32).map { UInt8($0) })
        try scratch.write("info", digestInfo)
        let (status, signature) = sign(privateKey, .PKCS1, digestInfo)
        XCTAssertEqual(status, errSecSuccess)
        XCTAssertEqual(signature, try scratch.openssl(["pkeyutl", "-sign", "-inkey", "private.pem", "-in", "info", "-pkeyopt", "rsa_padding_mode:pkcs1"]))
        XCTAssertEqual(verify(publicKey, .PKCS1, digestInfo, signature), errSecSuccess)
        XCTAssertEqual(verify(publicKey, .PKCS1, digestInfo.dropLast(), signature), errSSLCrypto)
        // pyca recovers exactly the bytes that were padded.
        let recovered = try python("""
            from cryptography.hazmat.primitives import serialization as s
            from cryptography.hazmat.primitives.asymmetric import padding
            k = s.load_pem_public_key(open('\(scratch.path("public.pem"))','rb').read())
            print(k.recover_data_from_signature(bytes.fromhex('\(signature.hex)'), padding.PKCS1v15(), None).hex())
            """)
        XCTAssertEqual(recovered, digestInfo.hex)

        var block = Data(count: 256)
        block[1] = 0x42; block[255] = 0x17
        let (rawStatus, raw) = sign(privateKey, .none, block.dropFirst())  // a short block is read as a big-endian number
        XCTAssertEqual(rawStatus, errSecSuccess)
        // pkeyutl refuses a 256-byte input to sign ("too long to be a hash"): pyca's key numbers give m^d mod n.
        let textbook = try python("""
            from cryptography.hazmat.primitives import serialization as s
            k = s.load_pem_private_key(open('\(scratch.path("private.pem"))','rb').read(), None)
            n = k.private_numbers().public_numbers.n
            print(pow(int.from_bytes(bytes.fromhex('\(block.hex)'), 'big'), k.private_numbers().d, n).to_bytes(256, 'big').hex())
            """)
        XCTAssertEqual(raw.hex, textbook)
        XCTAssertEqual(verify(publicKey, .none, block, raw), errSecSuccess)
        XCTAssertEqual(sign(privateKey, .none, Data(repeating: 0xff, count: 256)).0, errSecParam, "not below the modulus")
        XCTAssertEqual(sign(privateKey, .PKCS1MD2, digestInfo).0, errSecParam)
        XCTAssertEqual(sign(publicKey, .PKCS1SHA256, Data(count: 32)).0, errSecParam, "a public key does not sign")
    }
}

private extension Data {
    init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        self.init(bytes)
    }
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
