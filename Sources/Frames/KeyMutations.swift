import Foundation
import Conformance
import WireCrypto

/// Structured mutations of key files: PEM framing (labels, base64, lines, headers), DER structure
/// (truncated, padded, trailing bytes, lengths, integers), and the numbers themselves (tiny, huge
/// and even moduli, exponents 0, 1, 2, negative, huge), plus keys that are not RSA at all.
/// `publicVariants` make public-key encodings; `privateVariants` private-key encodings.
enum KeyMutations {
    struct Variant: Sendable {
        let name: String
        /// What the specification requires of the key it makes (nil: it leaves the answer open).
        let spec: FrameSpec?
        let make: @Sendable (_ key: FuzzKey, _ other: FuzzKey, _ random: inout SeededGenerator) -> Data

        init(name: String, spec: FrameSpec? = nil,
             make: @escaping @Sendable (_ key: FuzzKey, _ other: FuzzKey, _ random: inout SeededGenerator) -> Data) {
            self.name = name; self.spec = spec; self.make = make
        }
    }

    // The clauses the specification's answers cite (docs/PROTOCOL.md "Padding and keys").
    static let formats = FrameSpec.valid("docs/PROTOCOL.md \"Padding and keys\": SPKI or PKCS#1, PEM or DER")
    static let privateFormats = FrameSpec.valid("docs/PROTOCOL.md \"Padding and keys\": PKCS#8 or PKCS#1, PEM or DER")
    static let numbers = FrameSpec.invalid("RFC 8017 §3.1: n odd and at least 1024 bits (docs/PROTOCOL.md), 3 ≤ e < n, e odd")
    static let der = FrameSpec.invalid("X.690 §10.1 and §8.3.2: DER lengths and INTEGERs are minimal, lengths definite")
    static let oneStructure = FrameSpec.invalid("docs/PROTOCOL.md \"Padding and keys\": one DER structure, nothing after it")
    static let notDER = FrameSpec.invalid("X.690 §8.1: the bytes are no complete DER structure of the key's type")
    static let notRSA = FrameSpec.invalid("RFC 8017 §3.1 / RFC 3279 §2.3.1: not an RSA key (rsaEncryption)")
    static let nullParameters = FrameSpec.invalid("RFC 3279 §2.3.1: rsaEncryption's parameters MUST be NULL")
    static let version = FrameSpec.invalid("RFC 5208 §5 / RFC 8017 A.1.2: the version is 0 (or 1 for more primes)")

    // A P-256 and an Ed25519 key (made once with `openssl genpkey`): well-formed keys that are not RSA.
    static let ecSPKI = Data(base64Encoded: "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEJ97MITiFq3Ee9JlPO9RZg3ulF1m/PkU/vqJPXviuhSOh5Hgu2Me8D8PQLjG5F1tGu7kd1UKcMTs+EkBWDUgrIg==")!
    static let ecPKCS8 = Data(base64Encoded: "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgVTy96Sb0HSa+Q0DgMOStp4ZhO1uYBG/NzSblE9Q1bGOhRANCAAQn3swhOIWrcR70mU871FmDe6UXWb8+RT++ok9e+K6FI6HkeC7Yx7wPw9AuMbkXW0a7uR3VQpwxOz4SQFYNSCsi")!
    static let ed25519SPKI = Data(base64Encoded: "MCowBQYDK2VwAyEAIoOC42rCTjrN4wgRk1Qouz2U9yxEIA0hE8fVo+49iWo=")!
    static let ed25519PKCS8 = Data(base64Encoded: "MC4CAQAwBQYDK2VwBCIEIILkKf9AHMBUg5MOSwJBUcFLGiXqLbsZsXiTv8nOJLNr")!

    /// PEM with every knob exposed; the defaults give the iOS form (64 columns, no final newline).
    static func pem(_ label: String, _ der: Data, width: Int = 64, lineEnd: String = "\n", final: String = "",
                    endLabel: String? = nil, headers: String = "") -> Data {
        let base64 = der.base64EncodedString()
        var text = "-----BEGIN \(label)-----" + lineEnd + headers
        var index = base64.startIndex
        while index < base64.endIndex {
            let end = base64.index(index, offsetBy: max(1, width), limitedBy: base64.endIndex) ?? base64.endIndex
            text += base64[index..<end] + lineEnd
            index = end
        }
        return Data((text + "-----END \(endLabel ?? label)-----" + final).utf8)
    }

    /// A PEM of `der` with its base64 body edited by `edit` (the lines stay where they were).
    static func pemEditingBody(_ label: String, _ der: Data, _ random: inout SeededGenerator,
                               _ edit: (inout [UInt8], inout SeededGenerator) -> Void) -> Data {
        let text = [UInt8](pem(label, der))
        let begin = "-----BEGIN \(label)-----\n".utf8.count
        let end = text.count - "-----END \(label)-----".utf8.count
        var body = Array(text[begin..<end])
        edit(&body, &random)
        return Data(text[..<begin] + body + text[end...])
    }

    static func randomOddModulus(bits: Int, _ random: inout SeededGenerator) -> Data {
        var bytes = [UInt8](random.bytes((bits + 7) / 8))
        let topBits = bits % 8 == 0 ? 8 : bits % 8
        bytes[0] &= UInt8((1 << topBits) - 1)
        bytes[0] |= UInt8(1 << (topBits - 1))
        bytes[bytes.count - 1] |= 1
        return Data(bytes)
    }

    static func modulus(_ key: FuzzKey) -> Data { key.publicKey.modulus }
    static func exponentBytes(_ value: Int) -> Data {
        var big = UInt64(value).bigEndian
        return Data(bytes: &big, count: 8)
    }

    static func spkiPEM(modulus: Data, exponent: Data) -> Data {
        pem("PUBLIC KEY", FuzzDER.spki(pkcs1: FuzzDER.pkcs1PublicKey(modulus: modulus, exponent: exponent)))
    }

    /// A raw PKCS#1 public key with the modulus INTEGER written as given (sign and padding included).
    static func spkiPEM(rawModulusInteger: Data, exponent: Int) -> Data {
        pem("PUBLIC KEY", FuzzDER.spki(pkcs1: FuzzDER.sequence(FuzzDER.tlv(0x02, rawModulusInteger), FuzzDER.integer(exponent))))
    }

    static let publicVariants: [Variant] = [
        Variant(name: "spki-pem", spec: formats) { key, _, _ in pem("PUBLIC KEY", key.spkiDER) },
        Variant(name: "pkcs1-pem", spec: formats) { key, _, _ in pem("RSA PUBLIC KEY", key.pkcs1DER) },
        Variant(name: "spki-pem-final-newline", spec: formats) { key, _, _ in pem("PUBLIC KEY", key.spkiDER, final: "\n") },
        Variant(name: "spki-pem-crlf", spec: formats) { key, _, _ in pem("PUBLIC KEY", key.spkiDER, lineEnd: "\r\n") },
        Variant(name: "spki-pem-crlf-final", spec: formats) { key, _, _ in pem("PUBLIC KEY", key.spkiDER, lineEnd: "\r\n", final: "\r\n") },
        Variant(name: "spki-der", spec: formats) { key, _, _ in key.spkiDER },
        Variant(name: "pkcs1-der", spec: formats) { key, _, _ in key.pkcs1DER },
        Variant(name: "base64-invalid-char") { key, _, random in
            pemEditingBody("PUBLIC KEY", key.spkiDER, &random) { body, random in
                let lines = body.indices.filter { body[$0] != 0x0a }
                body[random.choose(lines)] = random.choose(Array("!*.#@$%~".utf8))
            }
        },
        Variant(name: "base64-char-removed") { key, _, random in
            pemEditingBody("PUBLIC KEY", key.spkiDER, &random) { body, random in
                body.remove(at: random.choose(body.indices.filter { body[$0] != 0x0a }))
            }
        },
        Variant(name: "base64-padding-added") { key, _, random in
            pemEditingBody("PUBLIC KEY", key.spkiDER, &random) { body, _ in body.insert(0x3d, at: body.count - 1) }
        },
        Variant(name: "base64-padding-removed") { key, _, random in
            pemEditingBody("PUBLIC KEY", key.spkiDER, &random) { body, _ in
                if let last = body.lastIndex(where: { $0 != 0x0a }) { body.remove(at: last) }
            }
        },
        Variant(name: "base64-whitespace") { key, _, random in
            pemEditingBody("PUBLIC KEY", key.spkiDER, &random) { body, random in
                body.insert(random.choose([0x20, 0x09, 0x0b, 0x0c]), at: random.int(in: 0...(body.count - 1)))
            }
        },
        Variant(name: "base64-urlsafe-alphabet") { key, _, random in
            pemEditingBody("PUBLIC KEY", key.spkiDER, &random) { body, _ in
                body = body.map { $0 == 0x2b ? 0x2d : $0 == 0x2f ? 0x5f : $0 }
            }
        },
        Variant(name: "base64-nul-byte") { key, _, random in
            pemEditingBody("PUBLIC KEY", key.spkiDER, &random) { body, random in body.insert(0x00, at: random.int(in: 0...(body.count - 1))) }
        },
        Variant(name: "base64-non-ascii") { key, _, random in
            pemEditingBody("PUBLIC KEY", key.spkiDER, &random) { body, random in
                body.insert(contentsOf: [0xc3, 0xa9], at: random.int(in: 0...(body.count - 1)))
            }
        },
        Variant(name: "line-width-76") { key, _, _ in pem("PUBLIC KEY", key.spkiDER, width: 76) },
        Variant(name: "single-line-body") { key, _, _ in pem("PUBLIC KEY", key.spkiDER, width: 100_000) },
        Variant(name: "line-width-random") { key, _, random in pem("PUBLIC KEY", key.spkiDER, width: random.int(in: 1...120)) },
        Variant(name: "blank-line-inside") { key, _, random in
            pemEditingBody("PUBLIC KEY", key.spkiDER, &random) { body, random in
                let breaks = body.indices.filter { body[$0] == 0x0a }
                body.insert(0x0a, at: random.choose(breaks))
            }
        },
        Variant(name: "label-private-key") { key, _, _ in pem("PRIVATE KEY", key.spkiDER) },
        Variant(name: "label-rsa-public-holding-spki") { key, _, _ in pem("RSA PUBLIC KEY", key.spkiDER) },
        Variant(name: "label-public-holding-pkcs1") { key, _, _ in pem("PUBLIC KEY", key.pkcs1DER) },
        Variant(name: "label-lowercase") { key, _, _ in pem("public key", key.spkiDER) },
        Variant(name: "label-certificate") { key, _, _ in pem("CERTIFICATE", key.spkiDER) },
        Variant(name: "label-unknown") { key, _, random in pem(random.choose(["RSA KEY", "PUBLIC  KEY", "PUBLICKEY", "X"]), key.spkiDER) },
        Variant(name: "begin-line-missing") { key, _, _ in
            Data(String(decoding: pem("PUBLIC KEY", key.spkiDER), as: UTF8.self).replacingOccurrences(of: "-----BEGIN PUBLIC KEY-----\n", with: "").utf8)
        },
        Variant(name: "end-line-missing") { key, _, _ in
            Data(String(decoding: pem("PUBLIC KEY", key.spkiDER), as: UTF8.self).replacingOccurrences(of: "-----END PUBLIC KEY-----", with: "").utf8)
        },
        Variant(name: "end-label-mismatch") { key, _, _ in pem("PUBLIC KEY", key.spkiDER, endLabel: "RSA PUBLIC KEY") },
        Variant(name: "dashes-four") { key, _, _ in
            Data(String(decoding: pem("PUBLIC KEY", key.spkiDER), as: UTF8.self).replacingOccurrences(of: "-----", with: "----").utf8)
        },
        Variant(name: "der-truncated", spec: notDER) { key, _, random in pem("PUBLIC KEY", key.spkiDER.prefix(random.int(in: 1...(key.spkiDER.count - 1)))) },
        Variant(name: "der-padded-zeros", spec: oneStructure) { key, _, random in pem("PUBLIC KEY", key.spkiDER + Data(count: random.int(in: 1...8))) },
        Variant(name: "der-trailing-garbage", spec: oneStructure) { key, _, random in pem("PUBLIC KEY", key.spkiDER + random.bytes(random.int(in: 1...16))) },
        Variant(name: "der-raw-trailing-garbage", spec: oneStructure) { key, _, random in key.spkiDER + random.bytes(random.int(in: 1...16)) },
        Variant(name: "der-raw-pkcs1-trailing-zero", spec: oneStructure) { key, _, _ in key.pkcs1DER + Data([0]) },
        Variant(name: "der-length-nonminimal", spec: der) { key, _, _ in pem("PUBLIC KEY", DERMutations.nonMinimalOuterLength(key.spkiDER)) },
        Variant(name: "der-indefinite-length", spec: der) { key, _, _ in pem("PUBLIC KEY", DERMutations.indefiniteOuterLength(key.spkiDER)) },
        Variant(name: "der-outer-tag-set", spec: notDER) { key, _, _ in var der = key.spkiDER; der[der.startIndex] = 0x31; return pem("PUBLIC KEY", der) },
        Variant(name: "der-integer-bitflip") { key, _, random in pem("PUBLIC KEY", DERMutations.flipIntegerBit(key.spkiDER, &random)) },
        Variant(name: "der-raw-integer-bitflip") { key, _, random in DERMutations.flipIntegerBit(key.pkcs1DER, &random) },
        Variant(name: "trailing-garbage-after-end") { key, _, random in
            pem("PUBLIC KEY", key.spkiDER) + Data(random.choose(["garbage", "\n\n", "\nMORE", "\0", " ", "-----"]).utf8)
        },
        Variant(name: "leading-text") { key, _, random in Data(random.choose(["Public key:\n", "x", "\u{feff}"]).utf8) + pem("PUBLIC KEY", key.spkiDER) },
        Variant(name: "leading-whitespace") { key, _, random in Data(random.choose([" ", "\n", "\r\n", "\t \n"]).utf8) + pem("PUBLIC KEY", key.spkiDER) },
        Variant(name: "two-pem-blocks") { key, other, _ in pem("PUBLIC KEY", key.spkiDER, final: "\n") + pem("PUBLIC KEY", other.spkiDER) },
        Variant(name: "pem-headers") { key, _, _ in
            pem("PUBLIC KEY", key.spkiDER, headers: "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00112233445566778899AABBCCDDEEFF\n\n")
        },
        Variant(name: "empty-body", spec: notDER) { _, _, _ in Data("-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----".utf8) },
        Variant(name: "non-rsa-ec-p256", spec: notRSA) { _, _, _ in pem("PUBLIC KEY", ecSPKI) },
        Variant(name: "non-rsa-ed25519", spec: notRSA) { _, _, _ in pem("PUBLIC KEY", ed25519SPKI) },
        Variant(name: "non-rsa-ec-der", spec: notRSA) { _, _, _ in ecSPKI },
        Variant(name: "rsa-pss-algorithm", spec: notRSA) { key, _, _ in pem("PUBLIC KEY", FuzzDER.spki(pkcs1: key.pkcs1DER, algorithm: FuzzDER.sequence(FuzzDER.rsaPSSOID))) },
        Variant(name: "algorithm-parameters-absent", spec: nullParameters) { key, _, _ in pem("PUBLIC KEY", FuzzDER.spki(pkcs1: key.pkcs1DER, algorithm: FuzzDER.sequence(FuzzDER.rsaEncryptionOID))) },
        Variant(name: "modulus-tiny", spec: numbers) { _, _, random in spkiPEM(modulus: randomOddModulus(bits: random.int(in: 8...512), &random), exponent: exponentBytes(65537)) },
        Variant(name: "modulus-huge") { _, _, random in spkiPEM(modulus: randomOddModulus(bits: random.int(in: 16_385...24_000), &random), exponent: exponentBytes(65537)) },
        Variant(name: "modulus-16384-bits") { _, _, random in spkiPEM(modulus: randomOddModulus(bits: 16_384, &random), exponent: exponentBytes(65537)) },
        Variant(name: "modulus-even", spec: numbers) { key, _, _ in
            var n = modulus(key)
            n[n.index(before: n.endIndex)] &= 0xfe
            return spkiPEM(modulus: n, exponent: exponentBytes(key.info.publicExponent))
        },
        Variant(name: "modulus-zero", spec: numbers) { _, _, _ in spkiPEM(modulus: Data([0]), exponent: exponentBytes(65537)) },
        Variant(name: "modulus-one", spec: numbers) { _, _, _ in spkiPEM(modulus: Data([1]), exponent: exponentBytes(65537)) },
        Variant(name: "modulus-negative", spec: der) { key, _, _ in spkiPEM(rawModulusInteger: modulus(key), exponent: key.info.publicExponent) },
        Variant(name: "modulus-leading-zeros", spec: der) { key, _, _ in spkiPEM(rawModulusInteger: Data([0, 0]) + modulus(key), exponent: key.info.publicExponent) },
        Variant(name: "exponent-1", spec: numbers) { key, _, _ in spkiPEM(modulus: modulus(key), exponent: exponentBytes(1)) },
        Variant(name: "exponent-0", spec: numbers) { key, _, _ in spkiPEM(modulus: modulus(key), exponent: exponentBytes(0)) },
        Variant(name: "exponent-2", spec: numbers) { key, _, _ in spkiPEM(modulus: modulus(key), exponent: exponentBytes(2)) },
        Variant(name: "exponent-3", spec: formats) { key, _, _ in spkiPEM(modulus: modulus(key), exponent: exponentBytes(3)) },
        Variant(name: "exponent-huge") { key, _, random in spkiPEM(modulus: modulus(key), exponent: Data([0x01]) + random.bytes(random.int(in: 9...40))) },
        Variant(name: "exponent-equals-modulus", spec: numbers) { key, _, _ in spkiPEM(modulus: modulus(key), exponent: modulus(key)) },
        Variant(name: "exponent-negative", spec: der) { key, _, _ in
            pem("PUBLIC KEY", FuzzDER.spki(pkcs1: FuzzDER.sequence(FuzzDER.unsignedInteger(modulus(key)), FuzzDER.integer(-65537))))
        },
        Variant(name: "private-key-pkcs8") { key, _, _ in key.privateKeyPEM },
        Variant(name: "private-key-pkcs1") { key, _, _ in (try? key.privateKey.exported(.pkcs1PEM)) ?? key.privateKeyPEM },
    ]

    /// PKCS#1 RSAPrivateKey DER of `key` (from its PKCS#1 PEM).
    static func pkcs1PrivateDER(_ key: FuzzKey) -> Data {
        guard let pem = try? key.privateKey.exported(.pkcs1PEM), let der = try? PEM.body(of: pem, label: "RSA PRIVATE KEY") else { return Data() }
        return der
    }
    static func pkcs8DER(_ key: FuzzKey) -> Data { (try? key.privateKey.exported(.pkcs8DER)) ?? Data() }

    static let privateVariants: [Variant] = [
        Variant(name: "pkcs8-pem", spec: privateFormats) { key, _, _ in key.privateKeyPEM },
        Variant(name: "pkcs8-der", spec: privateFormats) { key, _, _ in pkcs8DER(key) },
        Variant(name: "pkcs1-pem", spec: privateFormats) { key, _, _ in (try? key.privateKey.exported(.pkcs1PEM)) ?? Data() },
        Variant(name: "pkcs1-der", spec: privateFormats) { key, _, _ in pkcs1PrivateDER(key) },
        Variant(name: "pkcs8-pem-ios-form", spec: privateFormats) { key, _, _ in pem("PRIVATE KEY", pkcs8DER(key)) },
        Variant(name: "pkcs8-pem-crlf", spec: privateFormats) { key, _, _ in pem("PRIVATE KEY", pkcs8DER(key), lineEnd: "\r\n", final: "\r\n") },
        Variant(name: "label-rsa-private-holding-pkcs8") { key, _, _ in pem("RSA PRIVATE KEY", pkcs8DER(key), final: "\n") },
        Variant(name: "label-private-holding-pkcs1") { key, _, _ in pem("PRIVATE KEY", pkcs1PrivateDER(key), final: "\n") },
        Variant(name: "label-encrypted-on-plain-key") { key, _, _ in pem("ENCRYPTED PRIVATE KEY", pkcs8DER(key), final: "\n") },
        Variant(name: "label-public-on-private-key") { key, _, _ in pem("PUBLIC KEY", pkcs8DER(key), final: "\n") },
        Variant(name: "public-key-as-private") { key, _, _ in pem("PUBLIC KEY", key.spkiDER) },
        Variant(name: "der-truncated", spec: notDER) { key, _, random in let der = pkcs8DER(key); return der.prefix(random.int(in: 1...(der.count - 1))) },
        Variant(name: "der-trailing-garbage", spec: oneStructure) { key, _, random in pkcs8DER(key) + random.bytes(random.int(in: 1...16)) },
        Variant(name: "pem-der-trailing-garbage", spec: oneStructure) { key, _, random in pem("PRIVATE KEY", pkcs8DER(key) + random.bytes(random.int(in: 1...16)), final: "\n") },
        Variant(name: "pkcs1-der-trailing-zero", spec: oneStructure) { key, _, _ in pkcs1PrivateDER(key) + Data([0]) },
        Variant(name: "der-length-nonminimal", spec: der) { key, _, _ in DERMutations.nonMinimalOuterLength(pkcs8DER(key)) },
        Variant(name: "der-integer-bitflip") { key, _, random in pem("RSA PRIVATE KEY", DERMutations.flipIntegerBit(pkcs1PrivateDER(key), &random), final: "\n") },
        Variant(name: "der-raw-integer-bitflip") { key, _, random in DERMutations.flipIntegerBit(pkcs8DER(key), &random) },
        Variant(name: "base64-invalid-char") { key, _, random in
            pemEditingBody("PRIVATE KEY", pkcs8DER(key), &random) { body, random in
                body[random.choose(body.indices.filter { body[$0] != 0x0a })] = random.choose(Array("!*.#@$%~".utf8))
            }
        },
        Variant(name: "base64-whitespace") { key, _, random in
            pemEditingBody("PRIVATE KEY", pkcs8DER(key), &random) { body, random in body.insert(0x20, at: random.int(in: 0...(body.count - 1))) }
        },
        Variant(name: "single-line-body") { key, _, _ in pem("PRIVATE KEY", pkcs8DER(key), width: 100_000) },
        Variant(name: "trailing-garbage-after-end") { key, _, random in key.privateKeyPEM + Data(random.choose(["garbage", "\n\n", "\0"]).utf8) },
        Variant(name: "leading-text") { key, _, random in Data(random.choose(["Private key:\n", "x", " \n"]).utf8) + key.privateKeyPEM },
        Variant(name: "two-pem-blocks") { key, other, _ in key.privateKeyPEM + other.privateKeyPEM },
        Variant(name: "non-rsa-ec-p256", spec: notRSA) { _, _, _ in pem("PRIVATE KEY", ecPKCS8, final: "\n") },
        Variant(name: "non-rsa-ed25519", spec: notRSA) { _, _, _ in pem("PRIVATE KEY", ed25519PKCS8, final: "\n") },
        Variant(name: "non-rsa-ec-der", spec: notRSA) { _, _, _ in ecPKCS8 },
        Variant(name: "empty", spec: notDER) { _, _, _ in Data() },
    ]
}

/// Edits of DER structures that keep the rest intact.
enum DERMutations {
    /// (content start, content end) of every INTEGER, also inside SEQUENCEs and inside OCTET and
    /// BIT STRINGs that hold DER (PKCS#8's key, SPKI's key).
    static func integerRanges(_ der: [UInt8], from: Int, to: Int, depth: Int = 0) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var index = from
        while index < to {
            guard let (tag, start, end) = header(der, at: index, limit: to) else { return ranges }
            if tag == 0x02 { ranges.append(start..<end) }
            if depth < 6 {
                if tag & 0x20 != 0 { ranges += integerRanges(der, from: start, to: end, depth: depth + 1) }
                if tag == 0x04 { ranges += integerRanges(der, from: start, to: end, depth: depth + 1) }
                if tag == 0x03, start < end { ranges += integerRanges(der, from: start + 1, to: end, depth: depth + 1) }
            }
            index = end
        }
        return ranges
    }

    /// (tag, content start, content end) of the TLV at `index`, nil if it does not fit.
    static func header(_ der: [UInt8], at index: Int, limit: Int) -> (UInt8, Int, Int)? {
        guard index + 2 <= limit else { return nil }
        let tag = der[index]
        var length = Int(der[index + 1])
        var start = index + 2
        if length & 0x80 != 0 {
            let count = length & 0x7f
            guard count >= 1, count <= 4, start + count <= limit else { return nil }
            length = der[start..<(start + count)].reduce(0) { $0 << 8 | Int($1) }
            start += count
        }
        guard start + length <= limit else { return nil }
        return (tag, start, start + length)
    }

    static func flipIntegerBit(_ der: Data, _ random: inout SeededGenerator) -> Data {
        var bytes = [UInt8](der)
        let ranges = integerRanges(bytes, from: 0, to: bytes.count).filter { !$0.isEmpty }
        guard !ranges.isEmpty else { return der }
        let range = random.choose(ranges)
        let index = range.lowerBound + ByteMutator.pick(range.count, &random)
        bytes[index] ^= UInt8(1) << UInt8(random.next() % 8)
        return Data(bytes)
    }

    /// The outer length written with one more length byte than needed (BER, not DER).
    static func nonMinimalOuterLength(_ der: Data) -> Data {
        let bytes = [UInt8](der)
        guard let (tag, start, end) = header(bytes, at: 0, limit: bytes.count) else { return der }
        let length = end - start
        var lengthBytes: [UInt8] = []
        var rest = length
        repeat { lengthBytes.insert(UInt8(rest & 0xff), at: 0); rest >>= 8 } while rest > 0
        return Data([tag, 0x80 | UInt8(lengthBytes.count + 1), 0x00] + lengthBytes + bytes[start...])
    }

    /// The outer SEQUENCE with BER's indefinite length (0x80 … 00 00).
    static func indefiniteOuterLength(_ der: Data) -> Data {
        let bytes = [UInt8](der)
        guard let (tag, start, end) = header(bytes, at: 0, limit: bytes.count) else { return der }
        return Data([tag, 0x80] + bytes[start..<end] + [0x00, 0x00])
    }
}
