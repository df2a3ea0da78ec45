import Foundation
import XCTest
@testable import WireCrypto
import StrictFormats

/// WireCrypto's EC family against published known answers:
/// - RFC 6979 §A.2.5 (P-256 key pair; the SHA-256 "sample" signature r, s);
/// - NIST CAVP KAS ECC CDH primitive (SP 800-56A), P-256 COUNT = 0, and its P-384 COUNT = 0 key pair;
/// - NIST CAVP ANSI X9.63 KDF (SP 800-135, ansx963_2001.rsp), SHA-256 COUNT = 0 and the SHA-256
///   vector with 128-bit SharedInfo;
/// - RFC 7748 §5.2 (X25519 function) and §6.1 (Alice and Bob);
/// - RFC 8032 §7.1 TEST 1 and TEST 2 (Ed25519).
/// Interop with pyca/cryptography and the openssl command is in Tests/SecurityTests (SecKeyECTests).
final class ECTests: XCTestCase {
    private func hex(_ text: String) -> Data { Data(hexString: text)! }

    // RFC 6979 §A.2.5.
    private let rfc6979X = "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"
    private let rfc6979Ux = "60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"
    private let rfc6979Uy = "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299"
    private let rfc6979SampleR = "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716"
    private let rfc6979SampleS = "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8"

    func testRFC6979_publicKeyFromPrivate_andTheSampleSignatureVerifies() throws {
        let key = try ECPrivateKey(rawRepresentation: hex(rfc6979X), curve: .p256)
        XCTAssertEqual(key.publicKey.x963Representation.hexString, "04" + rfc6979Ux + rfc6979Uy)
        XCTAssertEqual(key.x963Representation.hexString, "04" + rfc6979Ux + rfc6979Uy + rfc6979X)
        let raw = hex(rfc6979SampleR + rfc6979SampleS)
        let der = try ECDSASignatureEncoding.der(fromRaw: raw, curve: .p256)
        XCTAssertEqual(der.hexString, "3046022100" + rfc6979SampleR + "022100" + rfc6979SampleS)
        XCTAssertEqual(try ECDSASignatureEncoding.raw(fromDER: der, curve: .p256), raw)
        let publicKey = try ECPublicKey(x963Representation: hex("04" + rfc6979Ux + rfc6979Uy))
        XCTAssertTrue(publicKey.isValidSignature(der, for: Data("sample".utf8), digest: .sha256))
        XCTAssertFalse(publicKey.isValidSignature(der, for: Data("test".utf8), digest: .sha256))
        XCTAssertFalse(publicKey.isValidSignature(der, for: Data("sample".utf8), digest: .sha384))
        // The prehashed form: SHA-256("sample") as the digest.
        XCTAssertTrue(publicKey.isValidSignature(der, forDigest: Digest.sha256.hash(Data("sample".utf8))))
        // Our own signatures (random k) verify under the RFC key, for every hash.
        for digest in [Digest.sha1, .sha224, .sha256, .sha384, .sha512] {
            let signature = try key.signature(for: Data("sample".utf8), digest: digest)
            XCTAssertTrue(publicKey.isValidSignature(signature, for: Data("sample".utf8), digest: digest), digest.rawValue)
            XCTAssertFalse(publicKey.isValidSignature(signature, for: Data("samplf".utf8), digest: digest), digest.rawValue)
        }
    }

    func testNISTCDH_P256_sharedSecret_andP384KeyPair() throws {
        // CAVS 14.1 ECC CDH Primitive, [P-256] COUNT = 0.
        let ours = try ECPrivateKey(rawRepresentation: hex("7d7dc5f71eb29ddaf80d6214632eeae03d9058af1fb6d22ed80badb62bc1a534"), curve: .p256)
        XCTAssertEqual(ours.publicKey.x963Representation.hexString,
                       "04ead218590119e8876b29146ff89ca61770c4edbbf97d38ce385ed281d8a6b230"
                       + "28af61281fd35e2fa7002523acc85a429cb06ee6648325389f59edfce1405141")
        let peer = try ECPublicKey(x963Representation: hex("04700c48f77f56584c5cc632ca65640db91b6bacce3a4df6b42ce7cc838833d287"
                                                           + "db71e509e3fd9b060ddb20ba5c51dcc5948d46fbf640dfe0441782cab85fa4ac"))
        let expected = "46fc62106420ff012e54a434fbdd2d25ccc5852060561e68040dd7778997bd7b"
        XCTAssertEqual(try ours.sharedSecret(with: peer).hexString, expected)
        XCTAssertEqual(try ours.sharedSecret(with: peer, cofactor: true).hexString, expected, "cofactor 1: the same secret")
        // [P-384] COUNT = 0: the key pair.
        let p384 = try ECPrivateKey(rawRepresentation: hex("3cc3122a68f0d95027ad38c067916ba0eb8c38894d22e1b15618b6818a661774ad463b205da88cf699ab4d43c9cf98a1"),
                                    curve: .p384)
        XCTAssertEqual(p384.publicKey.x963Representation.hexString,
                       "049803807f2f6d2fd966cdd0290bd410c0190352fbec7ff6247de1302df86f25d34fe4a97bef60cff548355c015dbb3e5f"
                       + "ba26ca69ec2f5b5d9dad20cc9da711383a9dbe34ea3fa5a2af75b46502629ad54dd8b7d73a8abb06a3a3be47d650cc99")
    }

    func testX963KDF_NISTCAVP() throws {
        XCTAssertEqual(try X963KDF.derive(secret: hex("96c05619d56c328ab95fe84b18264b08725b85e33fd34f08"), digest: .sha256, byteCount: 16).hexString,
                       "443024c3dae66b95e6f5670601558f71")
        XCTAssertEqual(try X963KDF.derive(secret: hex("96f600b73ad6ac5629577eced51743dd2c24c21b1ac83ee4"), digest: .sha256, byteCount: 16).hexString,
                       "b6295162a7804f5667ba9070f82fa522")
        // The SHA-1 vector (SHA-1, 192-bit Z, no SharedInfo).
        XCTAssertEqual(try X963KDF.derive(secret: hex("1c7d7b5f0597b03d06a018466ed1a93e30ed4b04dc64ccdd"), digest: .sha1, byteCount: 16).hexString,
                       "bf71dffd8f4d99223936beb46fee8ccc")
        // SharedInfo matters, and a longer output's prefix is the shorter output (counter mode).
        let z = hex("22518b10e70f2a3f243810ae3254139efbee04aa57c7af7d")
        let info = hex("75eef81aa3041e33b80971203d2c0c52")
        let long = try X963KDF.derive(secret: z, sharedInfo: info, digest: .sha256, byteCount: 128)
        XCTAssertEqual(long.prefix(32).hexString, "c498af77161cc59f2962b9a713e2b215152d139766ce34a776df11866a69bf2e")
        XCTAssertEqual(try X963KDF.derive(secret: z, sharedInfo: info, digest: .sha256, byteCount: 40), long.prefix(40))
        XCTAssertNotEqual(try X963KDF.derive(secret: z, digest: .sha256, byteCount: 32), long.prefix(32))
        // Independent of OpenSSL: SHA-256(Z ‖ 00000001 ‖ info) is the first block.
        XCTAssertEqual(long.prefix(32), Digest.sha256.hash(z + Data([0, 0, 0, 1]) + info))
        XCTAssertThrowsError(try X963KDF.derive(secret: Data(), digest: .sha256, byteCount: 16))
        XCTAssertThrowsError(try X963KDF.derive(secret: z, digest: .sha256, byteCount: 0))
    }

    func testEveryCurve_everyEncodingRoundTrips() throws {
        for curve in ECCurve.allCases {
            let key = try ECPrivateKey(curve: curve)
            let size = curve.coordinateByteCount
            XCTAssertEqual(key.x963Representation.count, 1 + 3 * size)
            XCTAssertEqual(key.publicKey.x963Representation.count, 1 + 2 * size)
            XCTAssertEqual(key.x963Representation.prefix(1 + 2 * size), key.publicKey.x963Representation)
            for other in [try ECPrivateKey(x963Representation: key.x963Representation),
                          try ECPrivateKey(rawRepresentation: key.rawRepresentation, curve: curve),
                          try ECPrivateKey(derRepresentation: key.derRepresentation),
                          try ECPrivateKey(derRepresentation: key.sec1DERRepresentation),
                          try ECPrivateKey(pemRepresentation: key.pemRepresentation),
                          try ECPrivateKey(pemRepresentation: key.sec1PEMRepresentation)] {
                XCTAssertEqual(other.x963Representation, key.x963Representation, curve.rawValue)
                XCTAssertEqual(other.curve, curve)
            }
            let publicKey = key.publicKey
            for other in [try ECPublicKey(x963Representation: publicKey.x963Representation),
                          try ECPublicKey(rawRepresentation: publicKey.rawRepresentation, curve: curve),
                          try ECPublicKey(compressedRepresentation: publicKey.compressedRepresentation, curve: curve),
                          try ECPublicKey(derRepresentation: publicKey.derRepresentation),
                          try ECPublicKey(pemRepresentation: publicKey.pemRepresentation)] {
                XCTAssertEqual(other.x963Representation, publicKey.x963Representation, curve.rawValue)
            }
            XCTAssertTrue(try publicKey.pemRepresentation.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
            XCTAssertTrue(try key.sec1PEMRepresentation.hasPrefix("-----BEGIN EC PRIVATE KEY-----\n"))
            // Sign and verify, DER ↔ raw.
            let message = Data("the Pi checks what the phone signed".utf8)
            let der = try key.signature(for: message, digest: .sha256)
            let raw = try ECDSASignatureEncoding.raw(fromDER: der, curve: curve)
            XCTAssertEqual(raw.count, 2 * size)
            XCTAssertEqual(try ECDSASignatureEncoding.der(fromRaw: raw, curve: curve), der)
            XCTAssertTrue(publicKey.isValidSignature(der, for: message, digest: .sha256))
            // ECDH both ways.
            let peer = try ECPrivateKey(curve: curve)
            let secret = try key.sharedSecret(with: peer.publicKey)
            XCTAssertEqual(secret.count, size)
            XCTAssertEqual(secret, try peer.sharedSecret(with: publicKey))
        }
    }

    /// Contexts are reused per key (PreparedContexts): alternating peers and modes, and many threads
    /// on one key at once, still give each caller its own right answer.
    func testReusedContexts_alternatingPeersAndThreads() throws {
        let key = try ECPrivateKey(curve: .p256)
        let peers = try (0..<3).map { _ in try ECPrivateKey(curve: .p256) }
        for round in 0..<4 {
            for peer in peers {
                let expected = try peer.sharedSecret(with: key.publicKey)
                XCTAssertEqual(try key.sharedSecret(with: peer.publicKey, cofactor: round % 2 == 1), expected)
            }
        }
        let results = ResultsBox(count: 32)
        DispatchQueue.concurrentPerform(iterations: 32) { index in
            let message = Data("message \(index)".utf8)
            let signature = try? key.signature(for: message, digest: .sha256)
            let secret = try? key.sharedSecret(with: peers[index % 3].publicKey)
            results.set(index, signature.map { key.publicKey.isValidSignature($0, for: message, digest: .sha256) } == true
                        && secret == (try? peers[index % 3].sharedSecret(with: key.publicKey)))
        }
        XCTAssertEqual(results.values, Array(repeating: true, count: 32))
    }

    func testRefusals_sayWhatIsWrong() throws {
        let key = try ECPrivateKey(curve: .p256)
        var offCurve = key.publicKey.x963Representation
        offCurve[64] ^= 1
        XCTAssertThrowsError(try ECPublicKey(x963Representation: offCurve)) {
            guard case let WireCryptoError.malformedECKey(curve, _, reason) = $0 else { return XCTFail("\($0)") }
            XCTAssertEqual(curve, "P-256")
            XCTAssertTrue(reason.contains("not on the curve"), reason)
        }
        XCTAssertThrowsError(try ECPublicKey(x963Representation: Data(count: 64)))
        XCTAssertThrowsError(try ECPublicKey(x963Representation: Data([0x05]) + key.publicKey.rawRepresentation))
        // A private key whose public half is another key's is refused.
        let other = try ECPrivateKey(curve: .p256)
        XCTAssertThrowsError(try ECPrivateKey(x963Representation: other.publicKey.x963Representation + key.rawRepresentation)) {
            guard case WireCryptoError.malformedECKey = $0 else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try ECPrivateKey(rawRepresentation: Data(count: 32), curve: .p256), "K = 0")
        XCTAssertThrowsError(try ECPrivateKey(rawRepresentation: Data(repeating: 0xff, count: 32), curve: .p256), "K ≥ n")
        // Curves do not mix.
        let p384 = try ECPrivateKey(curve: .p384)
        XCTAssertThrowsError(try key.sharedSecret(with: p384.publicKey)) {
            XCTAssertEqual($0 as? WireCryptoError, .curveMismatch(expected: "P-256", actual: "P-384"))
        }
        // An RSA key is not an EC key; a DER signature with trailing bytes is not DER.
        let rsa = try RSAPrivateKey(bits: 1024)
        XCTAssertThrowsError(try ECPublicKey(derRepresentation: rsa.publicKey.exported(.spkiDER)))
        let der = try key.signature(for: Data("x".utf8), digest: .sha256)
        XCTAssertThrowsError(try ECDSASignatureEncoding.raw(fromDER: der + Data([0]), curve: .p256))
        XCTAssertFalse(key.publicKey.isValidSignature(der + Data([0]), for: Data("x".utf8), digest: .sha256))
        XCTAssertThrowsError(try ECDSASignatureEncoding.der(fromRaw: Data(count: 63), curve: .p256))
        XCTAssertEqual("\(WireCryptoError.curveMismatch(expected: "P-256", actual: "P-384"))",
                       "the key is on P-384 but P-256 is needed: use keys (and signatures) of one curve together")
    }

    func testX25519_RFC7748() throws {
        // §6.1: Alice and Bob.
        let alice = try X25519PrivateKey(rawRepresentation: hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
        let bob = try X25519PrivateKey(rawRepresentation: hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"))
        XCTAssertEqual(try alice.publicKey.rawRepresentation.hexString, "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
        XCTAssertEqual(try bob.publicKey.rawRepresentation.hexString, "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
        let shared = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
        XCTAssertEqual(try alice.sharedSecret(with: bob.publicKey).hexString, shared)
        XCTAssertEqual(try bob.sharedSecret(with: alice.publicKey).hexString, shared)
        // §5.2, first vector: the scalar and u-coordinate as given (unclamped input bytes).
        let scalar = try X25519PrivateKey(rawRepresentation: hex("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4"))
        let u = try X25519PublicKey(rawRepresentation: hex("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c"))
        XCTAssertEqual(try scalar.sharedSecret(with: u).hexString, "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552")
        // A low-order point (u = 0) gives the all-zero secret, which is refused.
        XCTAssertThrowsError(try alice.sharedSecret(with: X25519PublicKey(rawRepresentation: Data(count: 32)))) {
            guard case WireCryptoError.keyAgreementFailed = $0 else { return XCTFail("\($0)") }
        }
        // Encodings round-trip; wrong lengths are refused.
        XCTAssertEqual(try X25519PrivateKey(derRepresentation: alice.derRepresentation).rawRepresentation, alice.rawRepresentation)
        XCTAssertEqual(try X25519PrivateKey(pemRepresentation: alice.pemRepresentation).rawRepresentation, alice.rawRepresentation)
        XCTAssertEqual(try X25519PublicKey(derRepresentation: alice.publicKey.derRepresentation).rawRepresentation,
                       try alice.publicKey.rawRepresentation)
        XCTAssertEqual(try X25519PublicKey(pemRepresentation: alice.publicKey.pemRepresentation).rawRepresentation,
                       try alice.publicKey.rawRepresentation)
        XCTAssertThrowsError(try X25519PublicKey(rawRepresentation: Data(count: 31)))
        XCTAssertThrowsError(try X25519PublicKey(derRepresentation: Ed25519PrivateKey().publicKey.derRepresentation), "an Ed25519 key is not X25519")
    }

    func testEd25519_RFC8032() throws {
        // §7.1 TEST 1 (empty message) and TEST 2 (one byte, 0x72).
        let vectors = [
            ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60", "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
             "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
            ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb", "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
             "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
        ]
        for (secret, publicHex, message, signature) in vectors {
            let key = try Ed25519PrivateKey(rawRepresentation: hex(secret))
            XCTAssertEqual(try key.publicKey.rawRepresentation.hexString, publicHex)
            let messageBytes = message.isEmpty ? Data() : hex(message)
            XCTAssertEqual(try key.signature(for: messageBytes).hexString, signature)
            let publicKey = try Ed25519PublicKey(rawRepresentation: hex(publicHex))
            XCTAssertTrue(publicKey.isValidSignature(hex(signature), for: messageBytes))
            XCTAssertFalse(publicKey.isValidSignature(hex(signature), for: messageBytes + Data([0])))
            var flipped = hex(signature)
            flipped[10] ^= 1
            XCTAssertFalse(publicKey.isValidSignature(flipped, for: messageBytes))
            XCTAssertFalse(publicKey.isValidSignature(hex(signature).prefix(63), for: messageBytes))
            XCTAssertEqual(try Ed25519PrivateKey(derRepresentation: key.derRepresentation).rawRepresentation, hex(secret))
            XCTAssertEqual(try Ed25519PrivateKey(pemRepresentation: key.pemRepresentation).rawRepresentation, hex(secret))
            XCTAssertEqual(try Ed25519PublicKey(pemRepresentation: publicKey.pemRepresentation).rawRepresentation, hex(publicHex))
        }
    }
}

/// Per-index results written from concurrent iterations.
private final class ResultsBox: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var values: [Bool]
    init(count: Int) { values = Array(repeating: false, count: count) }
    func set(_ index: Int, _ value: Bool) { lock.lock(); values[index] = value; lock.unlock() }
}
