import Foundation
import XCTest
import Security
import TestSupport

/// EC keys through Security as an iOS app writes it, checked against peers that are not this code:
/// the openssl command (dgst -sign/-verify, pkeyutl -derive) and pyca/cryptography (X9.63 KDF,
/// RFC 4754 signatures). Keys cross over as X9.63 bytes, turned into PEM by pyca.
final class SecKeyECTests: XCTestCase {
    override func setUp() { InMemoryKeychain.shared.removeAll() }

    private static let curves: [(bits: Int, coordinate: Int, opensslCurve: String, pycaCurve: String)] = [
        (256, 32, "prime256v1", "SECP256R1"), (384, 48, "secp384r1", "SECP384R1"), (521, 66, "secp521r1", "SECP521R1"),
    ]

    private func status(_ body: (UnsafeMutablePointer<Unmanaged<CFError>?>) -> Any?) -> Int? {
        var error: Unmanaged<CFError>?
        _ = body(&error)
        return error.map { CFErrorGetCode($0.takeRetainedValue()) }
    }

    private func makeKey(bits: Int, type: CFString = kSecAttrKeyTypeECSECPrimeRandom) throws -> (SecKey, SecKey) {
        var error: Unmanaged<CFError>?
        let privateKey = try XCTUnwrap(SecKeyCreateRandomKey([kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits] as CFDictionary, &error),
                                       "\(error.map { "\($0.takeRetainedValue())" } ?? "")")
        return (privateKey, try XCTUnwrap(SecKeyCopyPublicKey(privateKey)))
    }

    private func external(_ key: SecKey) throws -> Data {
        var error: Unmanaged<CFError>?
        return try XCTUnwrap(SecKeyCopyExternalRepresentation(key, &error) as Data?)
    }

    /// Writes PEM files of an X9.63 private key (and its public half) made by pyca, for openssl.
    private func writePEMs(_ x963Private: Data, curve: String, into scratch: Scratch, prefix: String) throws {
        _ = try python("""
            import sys
            from cryptography.hazmat.primitives.asymmetric import ec
            from cryptography.hazmat.primitives import serialization as s
            raw = bytes.fromhex(sys.stdin.read().strip())
            size = (ec.\(curve)().key_size + 7) // 8
            key = ec.derive_private_key(int.from_bytes(raw[1 + 2 * size:], "big"), ec.\(curve)())
            assert key.public_key().public_bytes(s.Encoding.X962, s.PublicFormat.UncompressedPoint) == raw[:1 + 2 * size]
            open("\(scratch.path(prefix + "-private.pem"))", "wb").write(key.private_bytes(s.Encoding.PEM, s.PrivateFormat.PKCS8, s.NoEncryption()))
            open("\(scratch.path(prefix + "-public.pem"))", "wb").write(key.public_key().public_bytes(s.Encoding.PEM, s.PublicFormat.SubjectPublicKeyInfo))
            """, input: x963Private.hex)
    }

    func testKeys_everyCurve_externalRepresentationAttributesAndBack() throws {
        for curve in Self.curves {
            for type in [kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyTypeEC] {
                let (privateKey, publicKey) = try makeKey(bits: curve.bits, type: type)
                let privateData = try external(privateKey), publicData = try external(publicKey)
                XCTAssertEqual(privateData.count, 1 + 3 * curve.coordinate)
                XCTAssertEqual(publicData.count, 1 + 2 * curve.coordinate)
                XCTAssertEqual(privateData.first, 4)
                XCTAssertEqual(privateData.prefix(publicData.count), publicData, "04‖X‖Y‖K begins with the public key")
                XCTAssertEqual(SecKeyGetBlockSize(privateKey), curve.coordinate)
                let attributes = try XCTUnwrap(SecKeyCopyAttributes(privateKey) as? [String: Any])
                XCTAssertEqual(attributes[kSecAttrKeyType as String] as? String, "73")
                XCTAssertEqual((attributes[kSecAttrKeySizeInBits as String] as? NSNumber)?.intValue, curve.bits)
                XCTAssertEqual(attributes[kSecAttrKeyClass as String] as? String, kSecAttrKeyClassPrivate as String)
                XCTAssertEqual(attributes[kSecValueData as String] as? Data, privateData)
                let publicAttributes = try XCTUnwrap(SecKeyCopyAttributes(publicKey) as? [String: Any])
                XCTAssertEqual(publicAttributes[kSecAttrKeyClass as String] as? String, kSecAttrKeyClassPublic as String)
                // kSecAttrApplicationLabel of an EC key: SHA-1 of the X9.63 public key.
                let label = try python("import hashlib,sys; print(hashlib.sha1(bytes.fromhex(sys.stdin.read())).hexdigest())", input: publicData.hex)
                XCTAssertEqual((attributes[kSecAttrApplicationLabel as String] as? Data)?.hex, label)
                // Back from the bytes.
                var error: Unmanaged<CFError>?
                let importedPrivate = try XCTUnwrap(SecKeyCreateWithData(privateData as CFData, [kSecAttrKeyType as String: type,
                    kSecAttrKeyClass as String: kSecAttrKeyClassPrivate] as CFDictionary, &error))
                XCTAssertEqual(try external(importedPrivate), privateData)
                XCTAssertEqual(try external(XCTUnwrap(SecKeyCopyPublicKey(importedPrivate))), publicData)
                let importedPublic = try XCTUnwrap(SecKeyCreateWithData(publicData as CFData, [kSecAttrKeyType as String: type,
                    kSecAttrKeyClass as String: kSecAttrKeyClassPublic, kSecAttrKeySizeInBits as String: curve.bits] as CFDictionary, &error))
                XCTAssertEqual(try external(importedPublic), publicData)
                XCTAssertTrue("\(privateKey)".contains("key type: ECPrivateKey"), "\(privateKey)")
            }
        }
    }

    /// openssl makes the key; the app imports its X9.63 bytes and gets the same public key openssl prints.
    func testOpenSSLKey_importsAsX963() throws {
        let scratch = try Scratch()
        try scratch.openssl(["ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out", "key.pem"])
        let text = String(decoding: try scratch.openssl(["ec", "-in", "key.pem", "-text", "-noout"]), as: UTF8.self)
        func hexBlock(after label: String) -> String {
            let lines = text.components(separatedBy: "\n")
            guard let start = lines.firstIndex(where: { $0.hasPrefix(label) }) else { return "" }
            return lines[(start + 1)...].prefix { $0.hasPrefix("    ") }.joined().filter { $0.isHexDigit }
        }
        var k = hexBlock(after: "priv:")
        let point = hexBlock(after: "pub:")
        while k.count > 96, k.hasPrefix("00") { k.removeFirst(2) }
        while k.count < 96 { k = "0" + k }
        XCTAssertEqual(point.count, 194)
        var error: Unmanaged<CFError>?
        let key = try XCTUnwrap(SecKeyCreateWithData(Data(hex: point + k) as CFData, [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate] as CFDictionary, &error))
        XCTAssertEqual(try external(XCTUnwrap(SecKeyCopyPublicKey(key))).hex, point)
        XCTAssertEqual(SecKeyGetBlockSize(key), 48)
    }

    func testMisuse_isAStatusNeverATrap() throws {
        let (privateKey, publicKey) = try makeKey(bits: 256)
        let rsa = try XCTUnwrap(SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 1024] as CFDictionary, nil))
        let ec: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom]
        XCTAssertEqual(status { SecKeyCreateRandomKey((ec.merging([kSecAttrKeySizeInBits as String: 512]) { $1 }) as CFDictionary, $0) }, Int(errSecKeySizeNotAllowed))
        XCTAssertEqual(status { SecKeyCreateRandomKey(ec as CFDictionary, $0) }, Int(errSecKeySizeNotAllowed))
        XCTAssertEqual(status { SecKeyCreateRandomKey((ec.merging([kSecAttrKeySizeInBits as String: 224]) { $1 }) as CFDictionary, $0) }, Int(errSecUnimplemented))
        // Bytes that are not a key of the class asked for.
        let publicData = try external(publicKey), privateData = try external(privateKey)
        var offCurve = publicData
        offCurve[64] ^= 1
        let asPublic = ec.merging([kSecAttrKeyClass as String: kSecAttrKeyClassPublic]) { $1 }
        let asPrivate = ec.merging([kSecAttrKeyClass as String: kSecAttrKeyClassPrivate]) { $1 }
        XCTAssertEqual(status { SecKeyCreateWithData(offCurve as CFData, asPublic as CFDictionary, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCreateWithData(privateData as CFData, asPublic as CFDictionary, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCreateWithData(publicData as CFData, asPrivate as CFDictionary, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCreateWithData(publicData.dropFirst() as CFData, asPublic as CFDictionary, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCreateWithData(publicData as CFData, (asPublic.merging([kSecAttrKeySizeInBits as String: 384]) { $1 }) as CFDictionary, $0) },
                       Int(errSecParam))
        // Wrong algorithm for the key, wrong key for the algorithm.
        let message = Data("m".utf8) as CFData
        XCTAssertEqual(status { SecKeyCreateSignature(privateKey, .rsaSignatureMessagePKCS1v15SHA256, message, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCreateSignature(publicKey, .ecdsaSignatureMessageX962SHA256, message, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCreateSignature(rsa, .ecdsaSignatureMessageX962SHA256, message, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCreateSignature(privateKey, .ecdsaSignatureDigestX962SHA256, Data(count: 20) as CFData, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCreateEncryptedData(privateKey, .rsaEncryptionOAEPSHA256, message, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCreateEncryptedData(rsa, .eciesEncryptionStandardX963SHA256AESGCM, message, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCopyKeyExchangeResult(publicKey, .ecdhKeyExchangeStandard, publicKey, [:] as CFDictionary, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCopyKeyExchangeResult(rsa, .ecdhKeyExchangeStandard, publicKey, [:] as CFDictionary, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCopyKeyExchangeResult(privateKey, .ecdhKeyExchangeStandard, rsa, [:] as CFDictionary, $0) }, Int(errSecParam))
        let (_, p384Public) = try makeKey(bits: 384)
        XCTAssertEqual(status { SecKeyCopyKeyExchangeResult(privateKey, .ecdhKeyExchangeStandard, p384Public, [:] as CFDictionary, $0) }, Int(errSecParam))
        XCTAssertEqual(status { SecKeyCopyKeyExchangeResult(privateKey, .ecdhKeyExchangeStandardX963SHA256, publicKey, [:] as CFDictionary, $0) },
                       Int(errSecParam), "kSecKeyKeyExchangeParameterRequestedSize is required")
        XCTAssertEqual(status { SecKeyCopyKeyExchangeResult(privateKey, .rsaEncryptionPKCS1, publicKey, [:] as CFDictionary, $0) }, Int(errSecParam))
        // SecKeyIsAlgorithmSupported says the same.
        XCTAssertFalse(SecKeyIsAlgorithmSupported(publicKey, .sign, .ecdsaSignatureMessageX962SHA256))
        XCTAssertFalse(SecKeyIsAlgorithmSupported(privateKey, .sign, .rsaSignatureMessagePKCS1v15SHA256))
        XCTAssertFalse(SecKeyIsAlgorithmSupported(rsa, .keyExchange, .ecdhKeyExchangeStandard))
        XCTAssertFalse(SecKeyIsAlgorithmSupported(publicKey, .keyExchange, .ecdhKeyExchangeStandard))
        XCTAssertFalse(SecKeyIsAlgorithmSupported(privateKey, .encrypt, .eciesEncryptionStandardX963SHA256AESGCM))
        XCTAssertFalse(SecKeyIsAlgorithmSupported(publicKey, .encrypt, SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM-KDFIV")),
                       "Apple has no VariableIV with SHA-1")
    }

    private static let signatureAlgorithms: [(SecKeyAlgorithm, digest: String?, message: Bool, raw: Bool)] = [
        (.ecdsaSignatureMessageX962SHA1, "sha1", true, false), (.ecdsaSignatureMessageX962SHA224, "sha224", true, false),
        (.ecdsaSignatureMessageX962SHA256, "sha256", true, false), (.ecdsaSignatureMessageX962SHA384, "sha384", true, false),
        (.ecdsaSignatureMessageX962SHA512, "sha512", true, false),
        (.ecdsaSignatureDigestX962SHA1, "sha1", false, false), (.ecdsaSignatureDigestX962SHA224, "sha224", false, false),
        (.ecdsaSignatureDigestX962SHA256, "sha256", false, false), (.ecdsaSignatureDigestX962SHA384, "sha384", false, false),
        (.ecdsaSignatureDigestX962SHA512, "sha512", false, false), (.ecdsaSignatureDigestX962, "sha256", false, false),
        (.ecdsaSignatureRFC4754, "sha256", false, true),
        (.ecdsaSignatureMessageRFC4754SHA256, "sha256", true, true), (.ecdsaSignatureDigestRFC4754SHA384, "sha384", false, true),
    ]

    /// Every ECDSA algorithm on every curve: the app's signatures verified by openssl (X9.62 DER)
    /// or pyca (RFC 4754 r‖s), and openssl's signatures verified by the app.
    func testEveryECDSAAlgorithm_bothWaysWithOpenSSLAndPyca() throws {
        for curve in Self.curves {
            let (privateKey, publicKey) = try makeKey(bits: curve.bits)
            let scratch = try Scratch()
            try writePEMs(try external(privateKey), curve: curve.pycaCurve, into: scratch, prefix: "app")
            let message = Data("the Pi checks what the phone signed \(UUID())".utf8)
            try scratch.write("message", message)
            for (algorithm, digest, isMessage, raw) in Self.signatureAlgorithms {
                let label = "\(curve.bits) \(algorithm.rawValue)"
                let digestName = try XCTUnwrap(digest)
                let hashed = try scratch.openssl(["dgst", "-\(digestName)", "-binary", "message"])
                let input = isMessage ? message : hashed
                XCTAssertTrue(SecKeyIsAlgorithmSupported(privateKey, .sign, algorithm), label)
                XCTAssertTrue(SecKeyIsAlgorithmSupported(publicKey, .verify, algorithm), label)
                var error: Unmanaged<CFError>?
                let signature = try XCTUnwrap(SecKeyCreateSignature(privateKey, algorithm, input as CFData, &error) as Data?, label)
                XCTAssertTrue(SecKeyVerifySignature(publicKey, algorithm, input as CFData, signature as CFData, &error), label)
                if raw {
                    XCTAssertEqual(signature.count, 2 * curve.coordinate, label)
                    let verdict = try python("""
                        import sys
                        from cryptography.hazmat.primitives import hashes, serialization
                        from cryptography.hazmat.primitives.asymmetric import ec, utils
                        sig, msg = (bytes.fromhex(x) for x in sys.stdin.read().split())
                        key = serialization.load_pem_public_key(open("\(scratch.path("app-public.pem"))", "rb").read())
                        half = len(sig) // 2
                        der = utils.encode_dss_signature(int.from_bytes(sig[:half], "big"), int.from_bytes(sig[half:], "big"))
                        key.verify(der, msg, ec.ECDSA(hashes.\(digestName.uppercased())()))
                        print("ok")
                        """, input: signature.hex + " " + message.hex)
                    XCTAssertEqual(verdict, "ok", label)
                } else {
                    try scratch.write("app.sig", signature)
                    let verified = try runProgram("/usr/bin/openssl", ["dgst", "-\(digestName)", "-verify", "app-public.pem", "-signature", "app.sig", "message"],
                                                  in: scratch.url)
                    XCTAssertEqual(verified.status, 0, "\(label): openssl refused the app's signature: \(verified.errorText)")
                    let theirs = try scratch.openssl(["dgst", "-\(digestName)", "-sign", "app-private.pem", "message"])
                    XCTAssertTrue(SecKeyVerifySignature(publicKey, algorithm, input as CFData, theirs as CFData, &error), "\(label): openssl's signature")
                }
                // Another message, or a flipped byte, is errSecVerifyFailed.
                error = nil
                let other = isMessage ? message + Data([0]) : Data(hashed.reversed())
                XCTAssertFalse(SecKeyVerifySignature(publicKey, algorithm, other as CFData, signature as CFData, &error), label)
                XCTAssertEqual(error.map { CFErrorGetCode($0.takeRetainedValue()) }, Int(errSecVerifyFailed), label)
                var flipped = signature
                flipped[flipped.count / 2] ^= 1
                XCTAssertFalse(SecKeyVerifySignature(publicKey, algorithm, input as CFData, flipped as CFData, nil), label)
            }
        }
    }

    /// ECDH secrets equal openssl's `pkeyutl -derive`; the X9.63 variants equal pyca's X963KDF with
    /// the shared info; standard and cofactor agree (cofactor 1).
    func testKeyExchange_matchesOpenSSLAndPycaKDF() throws {
        for curve in Self.curves {
            let (ours, _) = try makeKey(bits: curve.bits)
            let (theirs, theirPublic) = try makeKey(bits: curve.bits)
            let scratch = try Scratch()
            try writePEMs(try external(ours), curve: curve.pycaCurve, into: scratch, prefix: "ours")
            try writePEMs(try external(theirs), curve: curve.pycaCurve, into: scratch, prefix: "theirs")
            let expected = try scratch.openssl(["pkeyutl", "-derive", "-inkey", "ours-private.pem", "-peerkey", "theirs-public.pem"])
            XCTAssertEqual(expected.count, curve.coordinate)
            var error: Unmanaged<CFError>?
            for algorithm in [SecKeyAlgorithm.ecdhKeyExchangeStandard, .ecdhKeyExchangeCofactor] {
                XCTAssertTrue(SecKeyIsAlgorithmSupported(ours, .keyExchange, algorithm))
                let secret = SecKeyCopyKeyExchangeResult(ours, algorithm, theirPublic, [:] as CFDictionary, &error) as Data?
                XCTAssertEqual(secret, expected, "\(curve.bits) \(algorithm.rawValue)")
            }
            let sharedInfo = Data("crosscheck shared info".utf8)
            let kdfs: [(SecKeyAlgorithm, String)] = [
                (.ecdhKeyExchangeStandardX963SHA1, "SHA1"), (.ecdhKeyExchangeStandardX963SHA224, "SHA224"),
                (.ecdhKeyExchangeStandardX963SHA256, "SHA256"), (.ecdhKeyExchangeStandardX963SHA384, "SHA384"),
                (.ecdhKeyExchangeStandardX963SHA512, "SHA512"), (.ecdhKeyExchangeCofactorX963SHA1, "SHA1"),
                (.ecdhKeyExchangeCofactorX963SHA224, "SHA224"), (.ecdhKeyExchangeCofactorX963SHA256, "SHA256"),
                (.ecdhKeyExchangeCofactorX963SHA384, "SHA384"), (.ecdhKeyExchangeCofactorX963SHA512, "SHA512"),
            ]
            for (algorithm, hash) in kdfs {
                XCTAssertTrue(SecKeyIsAlgorithmSupported(ours, .keyExchange, algorithm))
                for (size, info) in [(32, sharedInfo), (77, Data())] {
                    let parameters: [String: Any] = [kSecKeyKeyExchangeParameterRequestedSize as String: size,
                                                     kSecKeyKeyExchangeParameterSharedInfo as String: info]
                    let derived = try XCTUnwrap(SecKeyCopyKeyExchangeResult(ours, algorithm, theirPublic, parameters as CFDictionary, &error) as Data?)
                    let reference = try python("""
                        import sys
                        from cryptography.hazmat.primitives import hashes
                        from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF
                        z, info = (bytes.fromhex(x) for x in sys.stdin.read().split(","))
                        print(X963KDF(hashes.\(hash)(), \(size), info or None).derive(z).hex())
                        """, input: expected.hex + "," + info.hex)
                    XCTAssertEqual(derived.hex, reference, "\(curve.bits) \(algorithm.rawValue) \(size)")
                }
            }
        }
    }
}
