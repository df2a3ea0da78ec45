import Foundation
internal import COpenSSL

// Toy RSA keys (8 to 15 bits) and per-character textbook RSA: what teaching servers compute, e.g.
// dianaxime/Lab6-Cifrado-PublicKeyEncription rsa.py (`p = getPrime(5)`, `chr(ord(c) ** e % n)`).
// A key this small is factored by hand and each character is encrypted alone, so the ciphertext is a
// substitution table: never a choice, only a peer's protocol to check. The keys are ordinary
// OpenSSL RSA keys (PEM, pyca and PythonRef read them), made and read only here, below the
// 1024-bit floor every other key import keeps.

/// The limits of a toy key.
public enum ToyRSA {
    /// The sizes a description's toy key may have.
    public static let bits: ClosedRange<Int> = 8...15
    /// The moduli a toy key may have, a peer's too: from 128, so that every ASCII character is below
    /// n, to 32767, so that every ciphertext character is below U+D800 (never a UTF-16 surrogate, which
    /// UTF-8 cannot carry: Python's `chr(c).encode()` raises on one).
    public static let moduli: ClosedRange<Int> = 128...32767
}

extension RSAPrivateKey {
    /// A fresh toy key of exactly `bits` bits (8 to 15): distinct random primes p and q from
    /// [2^(h−1), 2^h), h = ⌈bits/2⌉, drawn again until n = pq has `bits` bits; e random and odd,
    /// 3 ≤ e < φ(n), coprime to φ(n); d = e⁻¹ mod φ(n) (RFC 8017 §3.1, §3.2 with u = 2 primes).
    public static func _INSECURE_toyKey(bits: Int) throws -> RSAPrivateKey {
        guard ToyRSA.bits.contains(bits) else {
            throw WireCryptoError.unsupported("a toy RSA key has 8 to 15 bits, not \(bits)")
        }
        let half = (bits + 1) / 2
        let primes = ((1 << (half - 1))..<(1 << half)).filter(isSmallPrime)
        var p = 0, q = 0
        repeat {
            p = primes.randomElement()!
            q = primes.randomElement()!
        } while p == q || (p * q).bitWidthUsed != bits
        let phi = (p - 1) * (q - 1)
        var e = 0
        repeat { e = Int.random(in: 1...((phi - 1) / 2)) * 2 + 1 } while e >= phi || greatestCommonDivisor(e, phi) != 1
        return try _INSECURE_toyKey(p: p, q: q, e: e)
    }

    /// The toy key of primes p and q and exponent e (a teaching server's own: dianaxime's committed
    /// servpub.key is e = 431, n = 589 = 19 · 31); d = e⁻¹ mod φ(n).
    public static func _INSECURE_toyKey(p: Int, q: Int, e: Int) throws -> RSAPrivateKey {
        let n = p * q, phi = (p - 1) * (q - 1)
        guard p != q, isSmallPrime(p), isSmallPrime(q), ToyRSA.moduli.contains(n), e >= 3, e % 2 == 1, e < phi,
              let d = modularInverse(e, phi), let qInverse = modularInverse(q, p) else {
            throw WireCryptoError.unsupported("a toy RSA key needs distinct primes p, q with n = pq from \(ToyRSA.moduli.lowerBound) to \(ToyRSA.moduli.upperBound) and an odd e, 3 ≤ e < φ(n), coprime to it; p = \(p), q = \(q), e = \(e)")
        }
        let numbers = [0, n, e, d, p, q, d % (p - 1), d % (q - 1), qInverse]
        let der = RSAInvalidKeys.tlv(0x30, numbers.reduce(into: Data()) { $0 += RSAInvalidKeys.positiveInteger(bigEndian($1)) })
        return try RSAPrivateKey(decodingToyPKCS1: der)
    }

    /// Per-character decryption: each character U+C of `text` (C < n) becomes U+((Cᵈ mod n) + offset).
    public func _WEAK_AND_INSECURE_perCharacterDecrypt(_ text: String, offset: Int = 0) throws -> String {
        guard let n = smallNumber(key, "n"), let d = smallNumber(key, "d"), ToyRSA.moduli.contains(n) else {
            throw WireCryptoError.unsupported("per-character RSA needs a toy key (n from \(ToyRSA.moduli.lowerBound) to \(ToyRSA.moduli.upperBound))")
        }
        return try perCharacter(text, exponent: d, modulus: n, what: "ciphertext", before: 0, after: offset)
    }
}

extension RSAPublicKey {
    /// A toy key's public half from its numbers, as a teaching server writes them (`e` and `n` in decimal).
    public init(_INSECURE_toyModulus n: Int, exponent e: Int) throws {
        guard ToyRSA.moduli.contains(n) else {
            throw WireCryptoError.malformedKey(reason: "n = \(n): a toy key's modulus is \(ToyRSA.moduli.lowerBound) to \(ToyRSA.moduli.upperBound)", stack: [])
        }
        guard e >= 3, e < n, e % 2 == 1, n % 2 == 1 else {
            throw WireCryptoError.malformedKey(reason: "e = \(e), n = \(n): RFC 8017 §3.1 needs an odd n and an odd e with 3 ≤ e < n", stack: [])
        }
        try self.init(decodingToySPKI: RSAInvalidKeys.subjectPublicKeyInfo(modulus: bigEndian(n), exponent: bigEndian(e)))
    }

    /// n and e of a toy key; nil for any other key.
    public var toyNumbers: (n: Int, e: Int)? {
        guard let n = smallNumber(key, "n"), let e = smallNumber(key, "e"), ToyRSA.moduli.contains(n) else { return nil }
        return (n, e)
    }

    /// Per-character encryption: each character U+c of `text` (0 ≤ c − offset < n) becomes U+((c − offset)ᵉ mod n).
    public func _WEAK_AND_INSECURE_perCharacterEncrypt(_ text: String, offset: Int = 0) throws -> String {
        guard let (n, e) = toyNumbers else {
            throw WireCryptoError.unsupported("per-character RSA needs a toy key (n from \(ToyRSA.moduli.lowerBound) to \(ToyRSA.moduli.upperBound))")
        }
        return try perCharacter(text, exponent: e, modulus: n, what: "plaintext", before: offset, after: 0)
    }
}

/// Each character's value less `before` (0 to n − 1), raised to `exponent` mod n, plus `after`.
private func perCharacter(_ text: String, exponent: Int, modulus: Int, what: String, before: Int, after: Int) throws -> String {
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        let value = Int(scalar.value) - before
        guard (0..<modulus).contains(value) else {
            throw WireCryptoError.invalidLength(what: "per-character RSA \(what) character U+\(String(format: "%04X", scalar.value))",
                                                length: Int(scalar.value), expected: before == 0 ? "below n = \(modulus)" : "from \(before) to below \(before) + n = \(before + modulus)")
        }
        let result = modularPower(value, exponent, modulus) + after
        guard let character = Unicode.Scalar(UInt32(result)) else {  // with an offset, a surrogate or past U+10FFFF
            throw WireCryptoError.invalidLength(what: "per-character RSA \(what) character U+\(String(format: "%04X", scalar.value))",
                                                length: result, expected: "a result that is a character")
        }
        out.append(character)
    }
    return String(out)
}

/// bᵉ mod m by squaring; m < 2¹⁵, so no product overflows.
private func modularPower(_ base: Int, _ exponent: Int, _ modulus: Int) -> Int {
    var result = 1, base = base % modulus, exponent = exponent
    while exponent > 0 {
        if exponent & 1 == 1 { result = result * base % modulus }
        base = base * base % modulus
        exponent >>= 1
    }
    return result
}

private func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int { b == 0 ? a : greatestCommonDivisor(b, a % b) }

/// a⁻¹ mod m by the extended Euclidean algorithm; nil when they share a factor.
private func modularInverse(_ a: Int, _ m: Int) -> Int? {
    var (r0, r1, t0, t1) = (m, a % m, 0, 1)
    while r1 != 0 {
        let quotient = r0 / r1
        (r0, r1) = (r1, r0 - quotient * r1)
        (t0, t1) = (t1, t0 - quotient * t1)
    }
    return r0 == 1 ? (t0 % m + m) % m : nil
}

private func isSmallPrime(_ value: Int) -> Bool {
    value >= 2 && !(2..<value).contains { $0 * $0 <= value && value % $0 == 0 }
}

private func bigEndian(_ value: Int) -> Data {
    var bytes: [UInt8] = []
    var rest = value
    repeat { bytes.insert(UInt8(rest & 0xff), at: 0); rest >>= 8 } while rest > 0
    return Data(bytes)
}

/// A key number that fits an Int (a toy key's), else nil.
private func smallNumber(_ key: EVPKey, _ name: String) -> Int? {
    var number: OpaquePointer? = nil
    guard EVP_PKEY_get_bn_param(key.pointer, name, &number) == 1, let number else { return nil }
    defer { BN_free(number) }
    guard BN_num_bits(number) <= 32 else { return nil }
    return Int(BN_get_word(number))
}

private extension Int {
    /// The bits needed to write it (0 for 0).
    var bitWidthUsed: Int { Int.bitWidth - leadingZeroBitCount }
}
