import Foundation
import XCTest
import CryptoKit
import TestSupport

private func randomData(_ count: Int) -> Data { Data((0..<count).map { _ in UInt8.random(in: 0...255) }) }
private func secretBytes(_ secret: SharedSecret) -> Data { secret.withUnsafeBytes { Data($0) } }
private func keyBytes(_ key: SymmetricKey) -> Data { key.withUnsafeBytes { Data($0) } }

final class NISTKnownAnswerTests: XCTestCase {
    /// RFC 6979 Appendix A.2.5 (P-256): the key pair, and the deterministic signature of "sample"
    /// with SHA-256, which any correct verifier accepts.
    func testP256_RFC6979KeyAndSignature() throws {
        let key = try P256.Signing.PrivateKey(rawRepresentation: Data(hex: "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"))
        let x = "60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"
        let y = "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299"
        XCTAssertEqual(key.publicKey.x963Representation.hex, "04" + x + y)
        XCTAssertEqual(key.publicKey.rawRepresentation.hex, x + y)
        XCTAssertEqual(key.publicKey.compressedRepresentation.hex, "03" + x, "Y is odd")
        XCTAssertEqual(key.x963Representation.hex, "04" + x + y + "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721")
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: Data(hex:
            "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8"))
        XCTAssertTrue(key.publicKey.isValidSignature(signature, for: Data("sample".utf8)))
        XCTAssertTrue(key.publicKey.isValidSignature(signature, for: SHA256.hash(data: Data("sample".utf8))))
        XCTAssertFalse(key.publicKey.isValidSignature(signature, for: Data("samplf".utf8)))
        // The DER form round-trips and says the same.
        let fromDER = try P256.Signing.ECDSASignature(derRepresentation: signature.derRepresentation)
        XCTAssertEqual(fromDER.rawRepresentation, signature.rawRepresentation)
        XCTAssertEqual(signature.derRepresentation.prefix(2).hex, "3046", "r and s both have their top bit set: 33-byte INTEGERs")
    }

    func testRepresentations_roundTripAndRefuseWrongSizesAndCurves() throws {
        let key = P384.KeyAgreement.PrivateKey()
        XCTAssertEqual(key.rawRepresentation.count, 48)
        XCTAssertEqual(key.x963Representation.count, 145)
        XCTAssertEqual(try P384.KeyAgreement.PrivateKey(rawRepresentation: key.rawRepresentation).x963Representation, key.x963Representation)
        XCTAssertEqual(try P384.KeyAgreement.PrivateKey(x963Representation: key.x963Representation).rawRepresentation, key.rawRepresentation)
        XCTAssertEqual(try P384.KeyAgreement.PrivateKey(derRepresentation: key.derRepresentation).rawRepresentation, key.rawRepresentation)
        XCTAssertEqual(try P384.KeyAgreement.PrivateKey(pemRepresentation: key.pemRepresentation).rawRepresentation, key.rawRepresentation)
        XCTAssertTrue(key.pemRepresentation.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let pub = key.publicKey
        for restored in [try P384.KeyAgreement.PublicKey(rawRepresentation: pub.rawRepresentation),
                         try P384.KeyAgreement.PublicKey(x963Representation: pub.x963Representation),
                         try P384.KeyAgreement.PublicKey(compressedRepresentation: pub.compressedRepresentation),
                         try P384.KeyAgreement.PublicKey(derRepresentation: pub.derRepresentation),
                         try P384.KeyAgreement.PublicKey(pemRepresentation: pub.pemRepresentation)] {
            XCTAssertEqual(restored.x963Representation, pub.x963Representation)
        }
        XCTAssertTrue(pub.pemRepresentation.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        XCTAssertThrowsError(try P384.KeyAgreement.PublicKey(x963Representation: pub.x963Representation.dropLast())) {
            XCTAssertEqual($0 as? CryptoKitError, .incorrectParameterSize)
        }
        XCTAssertThrowsError(try P384.KeyAgreement.PrivateKey(rawRepresentation: Data(count: 47))) {
            XCTAssertEqual($0 as? CryptoKitError, .incorrectParameterSize)
        }
        XCTAssertThrowsError(try P256.KeyAgreement.PublicKey(derRepresentation: pub.derRepresentation), "a P-384 key is not a P-256 key") {
            XCTAssertEqual($0 as? CryptoKitASN1Error, .invalidASN1Object)
        }
        XCTAssertThrowsError(try P384.KeyAgreement.PublicKey(pemRepresentation: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----")) {
            XCTAssertEqual($0 as? CryptoKitASN1Error, .invalidPEMDocument)
        }
        // A point that is not on the curve is refused, not used.
        var offCurve = [UInt8](pub.x963Representation)
        offCurve[offCurve.count - 1] ^= 1
        XCTAssertThrowsError(try P384.KeyAgreement.PublicKey(x963Representation: offCurve))
        XCTAssertThrowsError(try P256.Signing.ECDSASignature(rawRepresentation: Data(count: 63))) {
            XCTAssertEqual($0 as? CryptoKitError, .incorrectParameterSize)
        }
        // An all-zero signature is simply invalid (no crash on the way to DER).
        let zero = try P256.Signing.ECDSASignature(rawRepresentation: Data(count: 64))
        XCTAssertFalse(P256.Signing.PrivateKey().publicKey.isValidSignature(zero, for: Data("x".utf8)))
    }

    /// RFC 7748 §6.1 (X25519) and RFC 8032 §7.1 test 1 (Ed25519: deterministic, so exact bytes).
    func testCurve25519_RFC7748AndRFC8032() throws {
        let alice = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: Data(hex: "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
        let bob = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: Data(hex: "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"))
        XCTAssertEqual(alice.publicKey.rawRepresentation.hex, "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
        XCTAssertEqual(bob.publicKey.rawRepresentation.hex, "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
        let shared = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
        XCTAssertEqual(secretBytes(try alice.sharedSecretFromKeyAgreement(with: bob.publicKey)).hex, shared)
        XCTAssertEqual(secretBytes(try bob.sharedSecretFromKeyAgreement(with: alice.publicKey)).hex, shared)
        XCTAssertThrowsError(try Curve25519.KeyAgreement.PublicKey(rawRepresentation: Data(count: 31))) {
            XCTAssertEqual($0 as? CryptoKitError, .incorrectKeySize)
        }
        // A low-order point (u = 0) gives the all-zero secret, which is refused.
        XCTAssertThrowsError(try alice.sharedSecretFromKeyAgreement(with: Curve25519.KeyAgreement.PublicKey(rawRepresentation: Data(count: 32))))

        let signer = try Curve25519.Signing.PrivateKey(rawRepresentation: Data(hex: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
        XCTAssertEqual(signer.publicKey.rawRepresentation.hex, "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        let signature = try signer.signature(for: Data())
        XCTAssertEqual(signature.hex, "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
        XCTAssertTrue(signer.publicKey.isValidSignature(signature, for: Data()))
        XCTAssertFalse(signer.publicKey.isValidSignature(signature, for: Data([0])))
    }

    /// The X9.63 KDF by its definition (SEC 1 §3.6.1), computed here with this module's SHA256
    /// (pyca's X963KDF agrees in ECInteropTests).
    func testX963KDF_isItsDefinition() throws {
        let p256 = P256.KeyAgreement.PrivateKey()
        let secret = try p256.sharedSecretFromKeyAgreement(with: P256.KeyAgreement.PrivateKey().publicKey)
        let derived = secret.x963DerivedSymmetricKey(using: SHA256.self, sharedInfo: Data("info".utf8), outputByteCount: 40)
        // By definition: SHA256(Z ‖ 00000001 ‖ info) ‖ SHA256(Z ‖ 00000002 ‖ info), cut to 40 bytes.
        let z = secretBytes(secret)
        let first = Data(SHA256.hash(data: z + Data([0, 0, 0, 1]) + Data("info".utf8)))
        let second = Data(SHA256.hash(data: z + Data([0, 0, 0, 2]) + Data("info".utf8)))
        XCTAssertEqual(keyBytes(derived), (first + second).prefix(40))
    }
}

/// Signatures, shared secrets and derived keys against pyca/cryptography (PythonRef's library)
/// and the openssl command, both ways.
final class ECInteropTests: XCTestCase {
    private let curves: [(name: String, openssl: String, hash: String)] = [("P256", "prime256v1", "SHA256"), ("P384", "secp384r1", "SHA384"),
                                                                            ("P521", "secp521r1", "SHA512")]

    private struct AppSigner {
        let publicDER: Data, publicPEM: String, privatePEM: String
        let sign: (Data) throws -> Data  // DER
        let verify: (Data, Data) -> Bool  // DER, message
    }

    private func appSigner(_ curve: String) -> AppSigner {
        switch curve {
        case "P256":
            let key = P256.Signing.PrivateKey()
            return AppSigner(publicDER: key.publicKey.derRepresentation, publicPEM: key.publicKey.pemRepresentation, privatePEM: key.pemRepresentation,
                             sign: { try key.signature(for: $0).derRepresentation },
                             verify: { der, message in
                                 guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: der) else { return false }
                                 return key.publicKey.isValidSignature(signature, for: message) })
        case "P384":
            let key = P384.Signing.PrivateKey()
            return AppSigner(publicDER: key.publicKey.derRepresentation, publicPEM: key.publicKey.pemRepresentation, privatePEM: key.pemRepresentation,
                             sign: { try key.signature(for: $0).derRepresentation },
                             verify: { der, message in
                                 guard let signature = try? P384.Signing.ECDSASignature(derRepresentation: der) else { return false }
                                 return key.publicKey.isValidSignature(signature, for: message) })
        default:
            let key = P521.Signing.PrivateKey()
            return AppSigner(publicDER: key.publicKey.derRepresentation, publicPEM: key.publicKey.pemRepresentation, privatePEM: key.pemRepresentation,
                             sign: { try key.signature(for: $0).derRepresentation },
                             verify: { der, message in
                                 guard let signature = try? P521.Signing.ECDSASignature(derRepresentation: der) else { return false }
                                 return key.publicKey.isValidSignature(signature, for: message) })
        }
    }

    /// Each curve: CryptoKit's signatures verified by pyca and `openssl dgst -verify`; openssl's
    /// signatures (made with CryptoKit's PEM private key) and pyca's (its own key, public key as DER)
    /// verified by CryptoKit; a flipped message refused everywhere.
    func testECDSA_everyCurve_bothWaysWithPycaAndOpenSSL() throws {
        let scratch = try Scratch()
        for curve in curves {
            let signer = appSigner(curve.name)
            let message = randomData(Int.random(in: 1...300))
            let ours = try signer.sign(message)
            try scratch.write("message", message)
            try scratch.write("ours.der", ours)
            try scratch.write("pub.pem", Data(signer.publicPEM.utf8))
            try scratch.write("key.pem", Data(signer.privatePEM.utf8))
            let verified = try runProgram("/usr/bin/openssl", ["dgst", "-\(curve.hash.lowercased())", "-verify", scratch.path("pub.pem"),
                                                               "-signature", scratch.path("ours.der"), scratch.path("message")])
            XCTAssertEqual(verified.status, 0, "\(curve.name): openssl dgst -verify: \(verified.errorText)")
            XCTAssertEqual(String(decoding: verified.output, as: UTF8.self), "Verified OK\n")
            let byOpenSSL = try scratch.openssl(["dgst", "-\(curve.hash.lowercased())", "-sign", "key.pem", "message"])
            XCTAssertTrue(signer.verify(byOpenSSL, message), "\(curve.name): CryptoKit verifies openssl's signature")
            XCTAssertFalse(signer.verify(byOpenSSL, message + Data([1])), "\(curve.name)")

            let script = """
            import sys
            from cryptography.hazmat.primitives import hashes, serialization
            from cryptography.hazmat.primitives.asymmetric import ec
            from cryptography.exceptions import InvalidSignature
            name, pub, sig, msg = sys.stdin.read().split()
            h = getattr(hashes, name)()
            key = serialization.load_der_public_key(bytes.fromhex(pub))
            try:
                key.verify(bytes.fromhex(sig), bytes.fromhex(msg), ec.ECDSA(h)); ok = "valid"
            except InvalidSignature:
                ok = "invalid"
            curve = {"SHA256": ec.SECP256R1(), "SHA384": ec.SECP384R1(), "SHA512": ec.SECP521R1()}[name]
            own = ec.generate_private_key(curve)
            own_pub = own.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
            print(ok, own_pub.hex(), own.sign(bytes.fromhex(msg), ec.ECDSA(h)).hex())
            """
            let signedMessage = message
            let answer = try python(script, input: "\(curve.hash) \(signer.publicDER.hex) \(ours.hex) \(message.hex)").split(separator: " ").map(String.init)
            XCTAssertEqual(answer.first, "valid", "\(curve.name): pyca verifies CryptoKit's signature")
            XCTAssertEqual(answer.count, 3)
            let pycaSignature = Data(hex: answer[2])
            switch curve.name {
            case "P256":
                let key = try P256.Signing.PublicKey(derRepresentation: Data(hex: answer[1]))
                XCTAssertTrue(key.isValidSignature(try P256.Signing.ECDSASignature(derRepresentation: pycaSignature), for: signedMessage))
                XCTAssertFalse(key.isValidSignature(try P256.Signing.ECDSASignature(derRepresentation: pycaSignature), for: signedMessage + Data([2])))
            case "P384":
                let key = try P384.Signing.PublicKey(derRepresentation: Data(hex: answer[1]))
                XCTAssertTrue(key.isValidSignature(try P384.Signing.ECDSASignature(derRepresentation: pycaSignature), for: signedMessage))
            default:
                let key = try P521.Signing.PublicKey(derRepresentation: Data(hex: answer[1]))
                XCTAssertTrue(key.isValidSignature(try P521.Signing.ECDSASignature(derRepresentation: pycaSignature), for: signedMessage))
            }
        }
    }

    /// Signing a digest is signing its bytes: a signature over SHA256(m) made with `for: digest`
    /// verifies as a signature over m, and openssl agrees.
    func testECDSA_overADigest_isOverItsBytes() throws {
        let key = P256.Signing.PrivateKey()
        let message = Data("digest first".utf8)
        let signature = try key.signature(for: SHA256.hash(data: message))
        XCTAssertTrue(key.publicKey.isValidSignature(signature, for: message))
        XCTAssertFalse(P256.Signing.PrivateKey().publicKey.isValidSignature(signature, for: message), "another key")
        let scratch = try Scratch()
        try scratch.write("m", message); try scratch.write("s", signature.derRepresentation); try scratch.write("p", Data(key.publicKey.pemRepresentation.utf8))
        XCTAssertEqual(String(decoding: try scratch.openssl(["dgst", "-sha256", "-verify", "p", "-signature", "s", "m"]), as: UTF8.self), "Verified OK\n")
    }

    /// ECDH on each curve and X25519: pyca's exchange with CryptoKit's public key equals CryptoKit's
    /// with pyca's, and openssl pkeyutl -derive agrees; the Pi-side derivations (HKDF, X9.63) of the
    /// secret equal pyca's.
    func testKeyAgreement_sharedSecretsAndDerivedKeysEqualPycaAndOpenSSL() throws {
        let script = """
        import sys
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec, x25519
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF
        from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF
        for line in sys.stdin:
            kind, peer = line.split()
            if kind == "X25519":
                own = x25519.X25519PrivateKey.generate()
                secret = own.exchange(x25519.X25519PublicKey.from_public_bytes(bytes.fromhex(peer)))
                pub = own.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
            else:
                curve = {"P256": ec.SECP256R1(), "P384": ec.SECP384R1(), "P521": ec.SECP521R1()}[kind]
                own = ec.generate_private_key(curve)
                secret = own.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(curve, bytes.fromhex(peer)))
                pub = own.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
            hkdf = HKDF(hashes.SHA256(), 32, b"salt", b"crosscheck").derive(secret)
            x963 = X963KDF(hashes.SHA384(), 48, b"shared").derive(secret)
            print(pub.hex(), secret.hex(), hkdf.hex(), x963.hex())
        """
        struct Ours { let kind: String; let publicKey: Data; let agree: (Data) throws -> SharedSecret }
        let p256 = P256.KeyAgreement.PrivateKey(), p384 = P384.KeyAgreement.PrivateKey(), p521 = P521.KeyAgreement.PrivateKey()
        let x25519 = Curve25519.KeyAgreement.PrivateKey()
        let ours = [
            Ours(kind: "P256", publicKey: p256.publicKey.x963Representation,
                 agree: { try p256.sharedSecretFromKeyAgreement(with: P256.KeyAgreement.PublicKey(x963Representation: $0)) }),
            Ours(kind: "P384", publicKey: p384.publicKey.x963Representation,
                 agree: { try p384.sharedSecretFromKeyAgreement(with: P384.KeyAgreement.PublicKey(x963Representation: $0)) }),
            Ours(kind: "P521", publicKey: p521.publicKey.x963Representation,
                 agree: { try p521.sharedSecretFromKeyAgreement(with: P521.KeyAgreement.PublicKey(x963Representation: $0)) }),
            Ours(kind: "X25519", publicKey: x25519.publicKey.rawRepresentation,
                 agree: { try x25519.sharedSecretFromKeyAgreement(with: Curve25519.KeyAgreement.PublicKey(rawRepresentation: $0)) }),
        ]
        let lines = try python(script, input: ours.map { "\($0.kind) \($0.publicKey.hex)" }.joined(separator: "\n") + "\n").split(separator: "\n")
        XCTAssertEqual(lines.count, ours.count)
        for (side, line) in zip(ours, lines) {
            let fields = line.split(separator: " ").map { Data(hex: String($0)) }
            let secret = try side.agree(fields[0])
            XCTAssertEqual(secretBytes(secret), fields[1], "\(side.kind): the same shared secret")
            XCTAssertEqual(keyBytes(secret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: Data("salt".utf8), sharedInfo: Data("crosscheck".utf8),
                                                                   outputByteCount: 32)), fields[2], "\(side.kind): HKDF")
            XCTAssertEqual(keyBytes(secret.x963DerivedSymmetricKey(using: SHA384.self, sharedInfo: Data("shared".utf8), outputByteCount: 48)),
                           fields[3], "\(side.kind): X9.63 KDF")
        }

        // openssl pkeyutl -derive: CryptoKit's private key (PKCS#8 PEM) with openssl's peer, and the reverse.
        let scratch = try Scratch()
        try scratch.openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "peer.pem"])
        try scratch.openssl(["ec", "-in", "peer.pem", "-pubout", "-out", "peer.pub.pem"])
        try scratch.write("ours.pem", Data(p256.pemRepresentation.utf8))
        try scratch.write("ours.pub.pem", Data(p256.publicKey.pemRepresentation.utf8))
        let theirs = try scratch.openssl(["pkeyutl", "-derive", "-inkey", "peer.pem", "-peerkey", "ours.pub.pem"])
        let peerPublic = try P256.KeyAgreement.PublicKey(pemRepresentation: String(decoding: try scratch.read("peer.pub.pem"), as: UTF8.self))
        XCTAssertEqual(secretBytes(try p256.sharedSecretFromKeyAgreement(with: peerPublic)), theirs)
        XCTAssertEqual(try scratch.openssl(["pkeyutl", "-derive", "-inkey", "ours.pem", "-peerkey", "peer.pub.pem"]), theirs)
    }

    /// Ed25519 both ways with pyca: pyca verifies CryptoKit's signature; CryptoKit verifies pyca's.
    func testEd25519_bothWaysWithPyca() throws {
        let key = Curve25519.Signing.PrivateKey()
        let message = randomData(123)
        let ours = try key.signature(for: message)
        let script = """
        import sys
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ed25519
        from cryptography.exceptions import InvalidSignature
        pub, sig, msg = (bytes.fromhex(x) for x in sys.stdin.read().split())
        try:
            ed25519.Ed25519PublicKey.from_public_bytes(pub).verify(sig, msg); ok = "valid"
        except InvalidSignature:
            ok = "invalid"
        own = ed25519.Ed25519PrivateKey.generate()
        raw = own.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        print(ok, raw.hex(), own.sign(msg).hex())
        """
        let answer = try python(script, input: "\(key.publicKey.rawRepresentation.hex) \(ours.hex) \(message.hex)").split(separator: " ").map(String.init)
        XCTAssertEqual(answer.first, "valid")
        let theirKey = try Curve25519.Signing.PublicKey(rawRepresentation: Data(hex: answer[1]))
        XCTAssertTrue(theirKey.isValidSignature(Data(hex: answer[2]), for: message))
        XCTAssertFalse(theirKey.isValidSignature(Data(hex: answer[2]), for: message.dropFirst()))
        XCTAssertFalse(key.publicKey.isValidSignature(Data(hex: answer[2]), for: message), "another key")
    }
}
