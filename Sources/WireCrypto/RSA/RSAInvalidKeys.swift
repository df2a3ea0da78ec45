import Foundation

/// Keys that are not RSA keys, for the probes that must show a peer refuses them (crosscheck
/// remote's invalid-key probes, the fuzzer's spec oracle), and the evidence when a peer does not:
/// a "ciphertext" made with e = 1 is the encoded message itself (c = m¹ mod n = m), so anyone can
/// read it. Nothing here validates: `RSAPublicKey(importing:)` is where keys are judged.
public enum RSAInvalidKeys {
    /// A SubjectPublicKeyInfo (rsaEncryption, NULL parameters) holding `modulus` and `exponent`
    /// as they are, each as a minimal positive DER INTEGER: well-formed DER whatever the numbers.
    public static func subjectPublicKeyInfo(modulus: Data, exponent: Data) -> Data {
        let rsaPublicKey = tlv(0x30, positiveInteger(modulus) + positiveInteger(exponent))
        let algorithm = Data([0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00])
        return tlv(0x30, algorithm + tlv(0x03, Data([0]) + rsaPublicKey))
    }

    /// The same key as `BEGIN PUBLIC KEY` PEM in the iOS layout.
    public static func spkiPEM(modulus: Data, exponent: Data) -> Data {
        PEM.iOSStyle(label: "PUBLIC KEY", der: subjectPublicKeyInfo(modulus: modulus, exponent: exponent))
    }

    /// The modulus of a valid key, as unsigned big-endian bytes (no sign byte).
    public static func modulus(of key: RSAPublicKey) -> Data {
        let hexDigits = key.info.modulusHex
        let padded = hexDigits.count % 2 == 1 ? "0" + hexDigits : hexDigits
        return Data(hexString: padded) ?? Data()
    }

    /// n and e (INTEGER contents as written) of an SPKI or PKCS#1 public key, PEM or DER, read
    /// without any check: what a refused key held, for reports and planted flaws. Nil when the
    /// bytes do not have that shape.
    public static func numbers(in data: Data) -> (modulus: Data, exponent: Data)? {
        let der = PEM.firstLabel(in: data).flatMap { try? PEM.body(of: data, label: $0) } ?? data
        let bytes = [UInt8](der)
        func element(_ index: Int) -> DERElement? { DERElement(bytes, at: index) }
        guard let outer = element(0), var first = element(outer.start) else { return nil }
        if first.tag == 0x30 {  // SPKI: algorithm, BIT STRING { 00, RSAPublicKey }
            guard let bits = element(first.end), bits.tag == 0x03, let inner = element(bits.start + 1), let n = element(inner.start) else { return nil }
            first = n
        }
        guard first.tag == 0x02, let e = element(first.end), e.tag == 0x02 else { return nil }
        return (Data(bytes[first.start..<first.end]), Data(bytes[e.start..<e.end]))
    }

    /// What a block "encrypted" to e = 1 reveals: the message, and the padding whose encoding it is
    /// (RFC 8017 §7.2.2 for PKCS#1 v1.5: 00 02 PS 00 M with at least 8 nonzero PS bytes; §7.1.2
    /// for OAEP, whose mask is keyed only by bytes in the block itself, tried with SHA-1 and
    /// SHA-256 and an empty label). Nil when `block` is neither encoding: then it is not the
    /// message in the clear.
    public static func messageInTheClear(_ block: Data) -> (padding: RSAEncryptionPadding, message: Data)? {
        let bytes = [UInt8](block)
        guard bytes.count >= 11, bytes[0] == 0 else { return nil }
        if bytes[1] == 2, let separator = bytes[2...].firstIndex(of: 0), separator >= 10 {
            return (._WEAK_AND_INSECURE_PKCS_V1_5, Data(bytes[(separator + 1)...]))
        }
        for hash in [Digest.sha1, .sha256] {
            if let message = oaepDecoded(bytes, hash: hash) { return (.oaep(hash: hash, mgf1: hash), message) }
        }
        return nil
    }

    /// EME-OAEP decoding (RFC 8017 §7.1.2 step 3) of `block`, or nil when it does not decode.
    private static func oaepDecoded(_ block: [UInt8], hash: Digest) -> Data? {
        let hLen = hash.byteCount, k = block.count
        guard k >= 2 * hLen + 2 else { return nil }
        let maskedSeed = Array(block[1...hLen]), maskedDB = Array(block[(hLen + 1)...])
        let seed = zip(maskedSeed, mgf1(maskedDB, length: hLen, hash: hash)).map { $0 ^ $1 }
        let db = zip(maskedDB, mgf1(seed, length: k - hLen - 1, hash: hash)).map { $0 ^ $1 }
        guard Data(db.prefix(hLen)) == hash.hash(Data()) else { return nil }
        guard let one = db[hLen...].firstIndex(where: { $0 != 0 }), db[one] == 1 else { return nil }
        return Data(db[(one + 1)...])
    }

    /// MGF1 (RFC 8017 B.2.1).
    private static func mgf1(_ seed: [UInt8], length: Int, hash: Digest) -> [UInt8] {
        var output: [UInt8] = []
        var counter: UInt32 = 0
        while output.count < length {
            output += hash.hash(Data(seed) + withUnsafeBytes(of: counter.bigEndian) { Data($0) })
            counter += 1
        }
        return Array(output.prefix(length))
    }

    static func positiveInteger(_ value: Data) -> Data {
        var bytes = [UInt8](value.drop { $0 == 0 })
        if bytes.isEmpty { bytes = [0] }
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return tlv(0x02, Data(bytes))
    }

    static func tlv(_ tag: UInt8, _ content: Data) -> Data {
        let count = content.count
        var length: [UInt8] = []
        if count < 0x80 {
            length = [UInt8(count)]
        } else {
            var rest = count
            while rest > 0 { length.insert(UInt8(rest & 0xff), at: 0); rest >>= 8 }
            length.insert(0x80 | UInt8(length.count), at: 0)
        }
        return Data([tag] + length) + content
    }
}
