import Foundation
import StrictFormats
import WireCrypto

/// The byte-level pieces of described values: encodings, key formats, the `sealed` ciphers and
/// Fernet. Every reader here is strict: what it accepts, it would have written the same way.
public enum DescribedBytes {
    public static func encode(_ bytes: Data, _ encoding: ValueEncoding) -> Data {
        switch encoding {
        case .raw, .utf8: return bytes
        case .base64: return Data(bytes.base64EncodedString().utf8)
        case .base64url: return Data(base64url(bytes, padded: false).utf8)
        case .hex: return Data(bytes.hexString.utf8)
        case .latin1: return Data(String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) })).utf8)
        case .python2Tuple: return python2Tuple(bytes)
        }
    }

    /// `str((data,))` in Python 2: "(" + repr(data) + ",)". repr (Objects/stringobject.c,
    /// PyString_Repr) quotes with ' unless the bytes hold ' and no ", escapes that quote and the
    /// backslash, writes \t \n \r, any other byte below 0x20 or from 0x7F as \x and two lowercase hex
    /// digits, and the rest as themselves.
    static func python2Tuple(_ bytes: Data) -> Data {
        let quote: UInt8 = bytes.contains(0x27) && !bytes.contains(0x22) ? 0x22 : 0x27
        var text: [UInt8] = [0x28, quote]
        let hex = Array("0123456789abcdef".utf8)
        for byte in bytes {
            switch byte {
            case quote, 0x5C: text += [0x5C, byte]
            case 0x09: text += [0x5C, 0x74]
            case 0x0A: text += [0x5C, 0x6E]
            case 0x0D: text += [0x5C, 0x72]
            case 0x20..<0x7F: text.append(byte)
            default: text += [0x5C, 0x78, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        text += [quote, 0x2C, 0x29]
        return Data(text)
    }

    /// The bytes of a `python2-tuple` text, only as `python2Tuple` writes it (one way for each bytes).
    static func parsePython2Tuple(_ text: Data) -> Data? {
        let input = [UInt8](text)
        guard input.count >= 5, input[0] == 0x28, input.suffix(2) == [0x2C, 0x29], [0x22, 0x27].contains(input[1]),
              input[input.count - 3] == input[1] else { return nil }
        var bytes: [UInt8] = []
        var index = 2
        let end = input.count - 3
        func hexValue(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: return digit - 0x30
            case 0x61...0x66: return digit - 0x57
            default: return nil
            }
        }
        while index < end {
            let byte = input[index]
            guard byte == 0x5C else { bytes.append(byte); index += 1; continue }
            guard index + 1 < end else { return nil }
            switch input[index + 1] {
            case 0x74: bytes.append(0x09); index += 2
            case 0x6E: bytes.append(0x0A); index += 2
            case 0x72: bytes.append(0x0D); index += 2
            case 0x78:
                guard index + 3 < end, let high = hexValue(input[index + 2]), let low = hexValue(input[index + 3]) else { return nil }
                bytes.append(high << 4 | low); index += 4
            case let escaped: bytes.append(escaped); index += 2
            }
        }
        // Strict: only the text repr writes for these bytes (its quote, its escapes, nothing else).
        let data = Data(bytes)
        return python2Tuple(data) == text ? data : nil
    }

    public static func decode(_ text: Data, _ encoding: ValueEncoding, what: String) throws -> Data {
        let refusal = DescribedRefusal(reason: "\(what) is not \(encoding.rawValue)")
        switch encoding {
        case .raw: return text
        case .utf8:
            guard String(validating: [UInt8](text), as: UTF8.self) != nil else { throw refusal }
            return text
        case .base64:
            guard let bytes = StrictBase64.decode(bytes: [UInt8](text)) else { throw refusal }
            return bytes
        case .base64url:
            guard let bytes = decodeBase64url(String(decoding: text, as: UTF8.self), padded: false) else { throw refusal }
            return bytes
        case .latin1:
            guard let text = String(validating: [UInt8](text), as: UTF8.self), text.unicodeScalars.allSatisfy({ $0.value <= 0xFF }) else { throw refusal }
            return Data(text.unicodeScalars.map { UInt8($0.value) })
        case .python2Tuple:
            guard let bytes = parsePython2Tuple(text) else { throw refusal }
            return bytes
        case .hex:
            // Upper or lower case: base16 is case-insensitive (RFC 4648 §8), and `%02X` or Java's
            // printHexBinary write it in capitals; the engines write lowercase.
            guard let bytes = Data(hexString: String(decoding: text, as: UTF8.self)) else { throw refusal }
            return bytes
        }
    }

    // MARK: forms (application/x-www-form-urlencoded, WHATWG URL §5)

    /// A name or value percent-encoded: every byte but the unreserved ones (RFC 3986 §2.3) as %XX.
    public static func formEscape(_ text: String) -> String {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        return text.utf8.map { unreserved.contains($0) ? String(UnicodeScalar($0)) : String(format: "%%%02X", $0) }.joined()
    }

    /// `name=value&…` as a form reader takes it (Python's `urllib.parse.parse_qsl`, which Flask's
    /// `request.args` follows): pairs split at "&" and the first "=", "+" a space, then "%XX" (two hex
    /// digits) a byte and any other "%" kept as it is, the result UTF-8. Nil for text that is not
    /// UTF-8 (before or after the escapes) or a name given twice.
    public static func formFields(_ bytes: Data) -> [String: String]? {
        guard String(validating: [UInt8](bytes), as: UTF8.self) != nil else { return nil }
        func hexDigit(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: return byte - 0x30
            case 0x41...0x46: return byte - 0x37
            case 0x61...0x66: return byte - 0x57
            default: return nil
            }
        }
        func unescape(_ part: ArraySlice<UInt8>) -> String? {
            let spaced = part.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }
            var out: [UInt8] = []
            var index = 0
            while index < spaced.count {
                if spaced[index] == UInt8(ascii: "%"), index + 2 < spaced.count,
                   let high = hexDigit(spaced[index + 1]), let low = hexDigit(spaced[index + 2]) {
                    out.append(high << 4 | low)
                    index += 3
                } else {
                    out.append(spaced[index])
                    index += 1
                }
            }
            return String(validating: out, as: UTF8.self)
        }
        var fields: [String: String] = [:]
        for pair in [UInt8](bytes).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let name = equals.map { pair[pair.startIndex..<$0] } ?? pair
            let value = equals.map { pair[($0 + 1)...] } ?? []
            guard let key = unescape(name), let text = unescape(value), fields[key] == nil else { return nil }
            fields[key] = text
        }
        return fields
    }

    // MARK: MACs

    public static func mac(_ algorithm: MACAlgorithm, key: Data, message: Data) throws -> Data {
        switch algorithm {
        case .cmacAES: return try AESCMAC.authenticationCode(key: key, message: message)
        case .hmacSHA256: return HMACDigest.authenticationCode(.sha256, key: key, message: message)
        }
    }

    public static func base64url(_ bytes: Data, padded: Bool) -> String {
        var text = bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        if !padded { while text.hasSuffix("=") { text.removeLast() } }
        return text
    }

    /// The URL-safe alphabet only, padded exactly when `padded`, unused bits zero (re-encodes the same).
    static func decodeBase64url(_ text: String, padded: Bool) -> Data? {
        guard !text.contains("+"), !text.contains("/") else { return nil }
        if !padded, text.contains("=") { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if !padded { standard += String(repeating: "=", count: (4 - standard.count % 4) % 4) }
        guard let bytes = StrictBase64.decode(standard), base64url(bytes, padded: padded) == text else { return nil }
        return bytes
    }

    // MARK: RSA public keys

    public static func export(_ key: RSAPublicKey, _ format: PublicKeyFormat) throws -> Data {
        switch format {
        case .pemSPKI: return try key.exported(.spkiPEM)
        case .pemSPKINewline: return try key.exported(.spkiPEM) + Data("\n".utf8)
        case .pemPKCS1: return try key.exported(.pkcs1PEM)
        case .derSPKI: return try key.exported(.spkiDER)
        case .derPKCS1: return try key.exported(.pkcs1DER)
        case .x962, .x962Compressed, .raw, .exponent, .modulus:
            throw DescriptionError.partySetup(reason: "an RSA key has no \(format.rawValue) form here (the description's validator refuses it)")
        case .jsonNE, .jwk:
            let (n, e) = numbers(of: key)
            if format == .jwk {
                return Data("{\"kty\":\"RSA\",\"n\":\"\(base64url(n, padded: false))\",\"e\":\"\(base64url(e, padded: false))\"}".utf8)
            }
            return Data("{\"n\":\(decimal(n)),\"e\":\(decimal(e))}".utf8)
        }
    }

    /// n and e of an RSA public key, as unsigned big-endian bytes.
    static func numbers(of key: RSAPublicKey) -> (n: Data, e: Data) {
        var eHex = key.info.publicExponentHex
        if eHex.count % 2 == 1 { eHex = "0" + eHex }
        return (RSAInvalidKeys.modulus(of: key), Data(hexString: eHex) ?? Data())
    }

    /// The RSA public key of numbers that arrived as they are (a pickle's ints): a toy key by the toy
    /// rules, any other by WireCrypto's (RFC 8017 §3.1, at least 1024 bits); else a refusal.
    static func publicKey(modulus n: Data, exponent e: Data, toy: Bool) throws -> RSAPublicKey {
        do {
            if toy {
                func small(_ bytes: Data) -> Int? { bytes.count <= 4 ? bytes.reduce(0) { $0 << 8 | Int($1) } : nil }
                guard let modulus = small(n), let exponent = small(e) else {
                    throw WireCryptoError.malformedKey(reason: "a toy key's modulus is \(ToyRSA.moduli.lowerBound) to \(ToyRSA.moduli.upperBound)", stack: [])
                }
                return try RSAPublicKey(_INSECURE_toyModulus: modulus, exponent: exponent)
            }
            return try RSAPublicKey(importing: RSAInvalidKeys.subjectPublicKeyInfo(modulus: n, exponent: e))
        } catch {
            throw DescribedRefusal(reason: "the key's numbers are not a valid RSA key: \(error)")
        }
    }

    /// ECDSA over SHA-256 of `message` (FIPS 186-5 §6.4.1), laid out as `format` says.
    static func sign(_ message: Data, with key: ECPrivateKey, format: SignatureFormat) throws -> Data {
        let der = try key.signature(for: message, digest: .sha256)
        return format == .der ? der : try ECDSASignatureEncoding.raw(fromDER: der, curve: key.curve)
    }

    /// True when `signature` (in `format`) is key's ECDSA-SHA256 signature of `message` (FIPS 186-5
    /// §6.4.2); a raw signature of the wrong length, or DER that is not strict, does not verify.
    static func verify(_ signature: Data, of message: Data, with key: ECPublicKey, format: SignatureFormat) -> Bool {
        let der = format == .der ? signature : try? ECDSASignatureEncoding.der(fromRaw: signature, curve: key.curve)
        guard let der else { return false }
        return key.isValidSignature(der, for: message, digest: .sha256)
    }

    /// A public key in `format`, or else in the first of `alsoAccepted` it loads as (`also_accepts`);
    /// when none does, `format`'s refusal.
    static func importKey(_ bytes: Data, _ format: PublicKeyFormat, alsoAccepted: [PublicKeyFormat]) throws -> RSAPublicKey {
        do { return try importKey(bytes, format) } catch let refusal as DescribedRefusal {
            for other in alsoAccepted { if let key = try? importKey(bytes, other) { return key } }
            throw refusal
        }
    }

    /// A public key in `format`, checked as strictly as WireCrypto imports keys (RSA numbers, DER as DER).
    static func importKey(_ bytes: Data, _ format: PublicKeyFormat) throws -> RSAPublicKey {
        func refuse(_ why: String) -> DescribedRefusal { DescribedRefusal(reason: "the public key (\(format.rawValue)) \(why)") }
        let der: Data
        switch format {
        case .pemSPKI, .pemSPKINewline, .pemPKCS1:
            let label = format == .pemPKCS1 ? "RSA PUBLIC KEY" : "PUBLIC KEY"
            // One PEM block from its first byte, and after the END line at most one line end: what
            // docs/PROTOCOL.md asks of a receiver (with or without the final newline, LF, CRLF or CR),
            // and PythonRef's rsa_socket.import_wire_public_key reads (`_PEM_BLOCK`).
            guard bytes.starts(with: Data("-----BEGIN \(label)-----".utf8)) else { throw refuse("does not begin with -----BEGIN \(label)-----") }
            let end = Data("-----END \(label)-----".utf8)
            guard let endAt = bytes.range(of: end, options: .backwards),
                  [Data(), Data([0x0a]), Data([0x0d, 0x0a]), Data([0x0d])].contains(Data(bytes[endAt.upperBound...])) else {
                throw refuse("is not one PEM block ending in -----END \(label)----- and at most a line end")
            }
            do { return try RSAPublicKey(importing: bytes) } catch { throw refuse("is not a valid RSA key: \(error)") }
        case .derSPKI, .derPKCS1:
            der = bytes
        case .x962, .x962Compressed, .raw:
            throw refuse("is an EC point; the description's key is RSA")
        case .exponent, .modulus:
            throw refuse("is one number of a pickle (the description's validator keeps it there)")
        case .jsonNE, .jwk:
            guard case let .object(fields)? = try? StrictJSON.parse(bytes) else { throw refuse("is not a JSON object") }
            let n: Data?, e: Data?
            if format == .jwk {
                guard fields["kty"] == .string("RSA") else { throw refuse("has no \"kty\": \"RSA\"") }
                n = fields["n"]?.stringValue.flatMap { decodeBase64url($0, padded: false) }
                e = fields["e"]?.stringValue.flatMap { decodeBase64url($0, padded: false) }
            } else {
                func number(_ name: String) -> Data? { if case let .number(text)? = fields[name] { return DescribedBytes.bytes(ofDecimal: text) }; return nil }
                n = number("n"); e = number("e")
            }
            guard let n, let e else { throw refuse(format == .jwk ? "needs \"n\" and \"e\" in base64url" : "needs \"n\" and \"e\" as decimal integers") }
            der = RSAInvalidKeys.subjectPublicKeyInfo(modulus: n, exponent: e)
        }
        let key: RSAPublicKey
        do { key = try RSAPublicKey(importing: der) } catch { throw refuse("is not a valid RSA key: \(error)") }
        if format == .derSPKI || format == .derPKCS1 {
            guard (try? key.exported(format == .derSPKI ? .spkiDER : .pkcs1DER)) == der else { throw refuse("is not \(format == .derSPKI ? "SPKI" : "PKCS#1") DER") }
        }
        return key
    }

    /// Unsigned big-endian bytes as a decimal integer.
    public static func decimal(_ bytes: Data) -> String {
        var number = [UInt8](bytes.drop { $0 == 0 })
        if number.isEmpty { return "0" }
        var digits: [UInt8] = []
        while !number.isEmpty {
            var remainder = 0
            var quotient: [UInt8] = []
            for byte in number {
                let current = remainder * 256 + Int(byte)
                let q = current / 10
                remainder = current % 10
                if !(quotient.isEmpty && q == 0) { quotient.append(UInt8(q)) }
            }
            digits.append(UInt8(ascii: "0") + UInt8(remainder))
            number = quotient
        }
        return String(decoding: digits.reversed(), as: UTF8.self)
    }

    /// A JSON number that is a non-negative decimal integer, as unsigned big-endian bytes.
    static func bytes(ofDecimal text: String) -> Data? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), text == "0" || !text.hasPrefix("0") else { return nil }
        var number: [UInt8] = []
        for digit in text.utf8 {
            var carry = Int(digit - 0x30)
            for index in stride(from: number.count - 1, through: 0, by: -1) {
                let value = Int(number[index]) * 10 + carry
                number[index] = UInt8(value & 0xff)
                carry = value >> 8
            }
            while carry > 0 { number.insert(UInt8(carry & 0xff), at: 0); carry >>= 8 }
        }
        return Data(number.isEmpty ? [0] : number)
    }

    /// RSA encryption as the description's padding has it. Textbook RSA (RFC 8017 §5.1.1: m = OS2IP of
    /// the plaintext, c = I2OSP(mᵉ mod n, k)) carries 1 to k − 1 bytes not starting with 0x00: the
    /// receiver's integer cannot keep a leading zero byte, and k − 1 bytes are always below n.
    public static func rsaEncrypt(_ plaintext: Data, to key: RSAPublicKey, padding: RSAPaddingName, offset: Int = 0) throws -> Data {
        if padding == .perCharacter {
            // A refusal, not a set-up error: the text may be what the peer sent (a server answering a
            // client's pickled message it cannot encrypt), as PythonRef refuses it.
            guard let text = String(validating: [UInt8](plaintext), as: UTF8.self), !text.isEmpty else {
                throw DescribedRefusal(reason: "cannot encrypt: per-character RSA carries 1 or more characters of text; this plaintext is \(plaintext.isEmpty ? "empty" : "not UTF-8")")
            }
            do { return Data(try key._WEAK_AND_INSECURE_perCharacterEncrypt(text, offset: offset).utf8) } catch {
                let n = key.toyNumbers?.n ?? 0
                throw DescribedRefusal(reason: "cannot encrypt: per-character RSA carries only characters \(offset == 0 ? "below n = \(n)" : "from \(offset) to below \(offset) + n = \(offset + n)"): \(error)")
            }
        }
        guard let padded = rsaPadding(padding) else {
            guard !plaintext.isEmpty, plaintext.count < key.modulusByteCount, plaintext.first != 0 else {
                throw DescriptionError.partySetup(reason: "textbook RSA (padding none) carries 1 to \(key.modulusByteCount - 1) bytes not starting with 0x00 to a \(key.modulusByteCount * 8)-bit key; this plaintext has \(plaintext.count)\(plaintext.first == 0 ? " and starts with 0x00" : "")")
            }
            return try key._WEAK_AND_INSECURE_textbookEncrypt(plaintext)
        }
        return try key.encrypt(plaintext, padding: padded)
    }

    /// Textbook RSA decryption (RFC 8017 §5.1.2) of 1 to k bytes — PyCrypto sends `long_to_bytes(c)`,
    /// without leading zero bytes — below n; the plaintext without leading zero bytes (one 0x00 for
    /// m = 0), as PyCrypto's `long_to_bytes(m)`. The padded paddings go through `key.decrypt`.
    public static func textbookDecrypt(_ ciphertext: Data, with key: RSAPrivateKey, name: String) throws -> Data {
        let k = key.modulusByteCount
        guard (1...k).contains(ciphertext.count) else {
            throw DescribedRefusal(reason: "the textbook RSA ciphertext has \(ciphertext.count) bytes; key \(name) takes 1 to \(k)")
        }
        let block: Data
        do { block = try key._WEAK_AND_INSECURE_textbookDecrypt(Data(count: k - ciphertext.count) + ciphertext) } catch {
            throw DescribedRefusal(reason: "the textbook RSA ciphertext is not below key \(name)'s modulus (RFC 8017 §5.1.2 step 1)")
        }
        let plaintext = block.drop(while: { $0 == 0 })
        return plaintext.isEmpty ? Data([0]) : Data(plaintext)
    }

    /// Per-character decryption (docs/PROTOCOL-DESCRIPTIONS.md, RSA `padding`): UTF-8 text, not
    /// empty, each character below n, each decrypted alone; the plaintext is the result's UTF-8.
    public static func perCharacterDecrypt(_ ciphertext: Data, with key: RSAPrivateKey, name: String, offset: Int = 0) throws -> Data {
        guard let text = String(validating: [UInt8](ciphertext), as: UTF8.self), !text.isEmpty else {
            throw DescribedRefusal(reason: "the per-character RSA ciphertext is \(ciphertext.isEmpty ? "empty" : "not UTF-8 text")")
        }
        guard let n = key.publicKey.toyNumbers?.n else { throw DescribedRefusal(reason: "RSA (per-character): key \(name) is not a toy key") }
        if let above = text.unicodeScalars.first(where: { Int($0.value) >= n }) {  // RFC 8017 §5.1.2 step 1, per character
            throw DescribedRefusal(reason: "the per-character RSA ciphertext has a character not below n = \(n) (U+\(String(format: "%04X", above.value)))")
        }
        do { return Data(try key._WEAK_AND_INSECURE_perCharacterDecrypt(text, offset: offset).utf8) } catch let WireCryptoError.invalidLength(_, value, _) {
            // With an offset, m + offset may be a surrogate or past U+10FFFF.
            throw DescribedRefusal(reason: "the per-character RSA ciphertext decrypts to no character (U+\(String(format: "%04X", value)))")
        }
    }

    /// WireCrypto's padding for a padded RSA; nil for textbook and per-character RSA (`rsaEncrypt`, `textbookDecrypt`, `perCharacterDecrypt`).
    public static func rsaPadding(_ name: RSAPaddingName) -> RSAEncryptionPadding? {
        switch name {
        case .pkcs1: return ._WEAK_AND_INSECURE_PKCS_V1_5
        case .oaepSHA1: return .oaepSHA1
        case .oaepSHA256: return .oaepSHA256
        case .textbook, .perCharacter: return nil
        }
    }
}

/// The `sealed` ciphers: plaintext to (ciphertext, iv, tag) and back.
enum DescribedCipher {
    struct Output { var ciphertext: Data; var iv: Data; var tag: Data }

    /// `tagDropped`: aes-gcm whose tag is not sent (`tag = "none"`); the Output's tag is then unused.
    static func seal(_ plaintext: Data, cipher: SealedCipher, padding: BlockPadding, key: Data, iv: Data?, tagDropped: Bool = false) throws -> Output {
        switch cipher {
        case .aesCBC:
            let iv = iv ?? secureRandomBytes(16)
            if padding == .pkcs7 { return Output(ciphertext: try AESCBC.encrypt(plaintext, key: key, iv: iv), iv: iv, tag: Data()) }
            return Output(ciphertext: Data(try AESBlockMode.cbc(iv: [UInt8](iv)).process(encrypt: true, key: [UInt8](key), input: [UInt8](try pad(plaintext, padding)))), iv: iv, tag: Data())
        case .aesECB:
            return Output(ciphertext: Data(try AESBlockMode.ecb.process(encrypt: true, key: [UInt8](key), input: [UInt8](try pad(plaintext, padding)))), iv: Data(), tag: Data())
        case .aesCTR:
            let iv = iv ?? secureRandomBytes(16)
            return Output(ciphertext: try ctr(plaintext, key: key, iv: iv), iv: iv, tag: Data())
        case .aesCFB, .aesCFB8:
            let iv = iv ?? secureRandomBytes(16)
            return Output(ciphertext: try cfb(plaintext, segments: cipher, encrypt: true, key: key, iv: iv), iv: iv, tag: Data())
        case .aesGCM where tagDropped || (iv != nil && iv?.count != 12):
            // Any nonce length (a fixed nonce of 8 to 128 bytes) and the dropped tag: SP 800-38D directly.
            let nonce = iv ?? secureRandomBytes(12)
            let sealed = try GCMLongNonce.seal(key: [UInt8](key), nonce: [UInt8](nonce), plaintext: [UInt8](plaintext), aad: [])
            return Output(ciphertext: Data(sealed.ciphertext), iv: nonce, tag: tagDropped ? Data() : Data(sealed.tag))
        case .aesGCM:
            let nonce = iv ?? secureRandomBytes(12)
            let box = try AES.GCM.seal(plaintext, using: SymmetricKey(data: key), nonce: AES.GCM.Nonce(data: nonce))
            return Output(ciphertext: Data(box.ciphertext), iv: nonce, tag: Data(box.tag))
        case .chacha20Poly1305:
            let nonce = iv ?? secureRandomBytes(12)
            let box = try ChaChaPoly.seal(plaintext, using: SymmetricKey(data: key), nonce: ChaChaPoly.Nonce(data: nonce))
            return Output(ciphertext: Data(box.ciphertext), iv: nonce, tag: Data(box.tag))
        case .aesEAX:
            let nonce = iv ?? secureRandomBytes(16)
            let sealed = try AESEAX.seal(plaintext, key: key, nonce: nonce)
            return Output(ciphertext: sealed.ciphertext, iv: nonce, tag: sealed.tag)
        case .fernet:
            return Output(ciphertext: try Fernet.token(plaintext, key: key), iv: Data(), tag: Data())
        case .chacha20:
            let iv = iv ?? secureRandomBytes(ChaCha20Unauthenticated.ivBytes)
            return Output(ciphertext: try ChaCha20Unauthenticated.apply(plaintext, key: key, iv: iv), iv: iv, tag: Data())
        case .salsa20:
            let nonce = iv ?? secureRandomBytes(Salsa20.nonceBytes)
            return Output(ciphertext: try Salsa20.apply(plaintext, key: key, nonce: nonce), iv: nonce, tag: Data())
        }
    }

    /// CBC or ECB over `blocks` as they are, no padding added (an audit's chosen last block); other
    /// ciphers seal them as a plaintext.
    static func sealUnpadded(_ blocks: Data, cipher: SealedCipher, key: Data, iv: Data?, tagDropped: Bool = false) throws -> Output {
        switch cipher {
        case .aesCBC:
            let iv = iv ?? secureRandomBytes(16)
            return Output(ciphertext: Data(try AESBlockMode.cbc(iv: [UInt8](iv)).process(encrypt: true, key: [UInt8](key), input: [UInt8](blocks))), iv: iv, tag: Data())
        case .aesECB:
            return Output(ciphertext: Data(try AESBlockMode.ecb.process(encrypt: true, key: [UInt8](key), input: [UInt8](blocks))), iv: Data(), tag: Data())
        default:
            return try seal(blocks, cipher: cipher, padding: .pkcs7, key: key, iv: iv, tagDropped: tagDropped)
        }
    }

    /// `tagDropped`: aes-gcm sent without its tag, decrypted without verifying anything.
    static func open(_ ciphertext: Data, cipher: SealedCipher, padding: BlockPadding, key: Data, iv: Data, tag: Data, tagDropped: Bool = false) throws -> Data {
        // The kind of each refusal, for a conversation's `errors`: a length anyone can see, a padding
        // that needs the key to check, an authenticator that does not verify.
        let refusal = DescribedRefusal(reason: "the \(cipher.rawValue) ciphertext does not decrypt (wrong key or IV, tampered, or other padding)",
                                       kind: (cipher.isAEAD && !tagDropped) || cipher == .fernet ? .authentication : nil)
        let notWholeBlocks = DescribedRefusal(reason: "the \(cipher.rawValue) ciphertext is \(ciphertext.count) bytes, not a positive multiple of 16", kind: .length)
        do {
            switch cipher {
            case .aesCBC:
                guard iv.count == 16 else { throw refusal }
                guard !ciphertext.isEmpty, ciphertext.count % 16 == 0 else { throw notWholeBlocks }
                if padding == .pkcs7 {
                    do { return try AESCBC.decrypt(ciphertext, key: key, iv: iv) } catch { throw paddingRefusal(padding) }  // whole blocks: only the padding can fail
                }
                // Zero padding makes at least one block (an empty plaintext is a block of zeros), as PythonRef's reader has it.
                return try unpad(Data(AESBlockMode.cbc(iv: [UInt8](iv)).process(encrypt: false, key: [UInt8](key), input: [UInt8](ciphertext))), padding)
            case .aesECB:
                guard !ciphertext.isEmpty, ciphertext.count % 16 == 0 else { throw notWholeBlocks }
                return try unpad(Data(AESBlockMode.ecb.process(encrypt: false, key: [UInt8](key), input: [UInt8](ciphertext))), padding)
            case .aesCTR:
                guard iv.count == 16 else { throw refusal }
                return try ctr(ciphertext, key: key, iv: iv)
            case .aesCFB, .aesCFB8:
                guard iv.count == 16 else { throw refusal }
                return try cfb(ciphertext, segments: cipher, encrypt: false, key: key, iv: iv)  // nothing authenticates it: any bytes open
            case .aesGCM where tagDropped:
                guard !iv.isEmpty else { throw refusal }
                return Data(try GCMLongNonce._WEAK_AND_INSECURE_cryptWithoutTag(key: [UInt8](key), nonce: [UInt8](iv), input: [UInt8](ciphertext)))
            case .aesGCM where iv.count != 12:
                guard SealedCipher.aesGCM.fixedIVBytes.contains(iv.count), tag.count == 16 else { throw refusal }
                return Data(try GCMLongNonce.open(key: [UInt8](key), nonce: [UInt8](iv), ciphertext: [UInt8](ciphertext), tag: [UInt8](tag), aad: []))
            case .aesGCM:
                guard iv.count == 12, tag.count == 16 else { throw refusal }
                return try AES.GCM.open(AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: iv), ciphertext: ciphertext, tag: tag), using: SymmetricKey(data: key))
            case .chacha20Poly1305:
                guard iv.count == 12, tag.count == 16 else { throw refusal }
                return try ChaChaPoly.open(ChaChaPoly.SealedBox(nonce: ChaChaPoly.Nonce(data: iv), ciphertext: ciphertext, tag: tag), using: SymmetricKey(data: key))
            case .aesEAX:
                guard iv.count == 16, tag.count == 16 else { throw refusal }
                return try AESEAX.open(ciphertext, key: key, nonce: iv, tag: tag)
            case .fernet:
                return try Fernet.open(ciphertext, key: key)
            case .chacha20:
                guard iv.count == ChaCha20Unauthenticated.ivBytes else { throw refusal }
                return try ChaCha20Unauthenticated.apply(ciphertext, key: key, iv: iv)
            case .salsa20:
                guard iv.count == Salsa20.nonceBytes else { throw refusal }
                return try Salsa20.apply(ciphertext, key: key, nonce: iv)
            }
        } catch let error as DescribedRefusal { throw error } catch { throw refusal }
    }

    static func ctr(_ input: Data, key: Data, iv: Data) throws -> Data {
        try AESCipherContext.process(input, mode: .ctr, encrypt: true, key: key, iv: iv)
    }

    /// CFB's feedback is the ciphertext, so its two directions differ (SP 800-38A §6.3).
    static func cfb(_ input: Data, segments cipher: SealedCipher, encrypt: Bool, key: Data, iv: Data) throws -> Data {
        try AESCipherContext.process(input, mode: cipher == .aesCFB8 ? .cfb8 : .cfb, encrypt: encrypt, key: key, iv: iv)
    }

    /// Zero and space padding are stripped by their byte, so a plaintext that ends in it cannot be
    /// carried (refused, as PythonRef's `_pad` refuses it).
    static func pad(_ plaintext: Data, _ padding: BlockPadding) throws -> Data {
        switch padding {
        case .pkcs7, .pkcs7To32:
            let block = padding == .pkcs7 ? 16 : 32
            let count = block - plaintext.count % block
            return plaintext + Data(repeating: UInt8(count), count: count)
        case .zero:
            guard plaintext.last != 0 else { throw DescribedRefusal(reason: "zero padding cannot carry a plaintext that ends in 0x00") }
            // Zero bytes to a block boundary; an empty plaintext is one block of zeros (mcrypt's way).
            return plaintext + Data(count: plaintext.isEmpty ? 16 : (16 - plaintext.count % 16) % 16)
        case .space:
            guard plaintext.last != 0x20 else { throw DescribedRefusal(reason: "space padding cannot carry a plaintext that ends in a space") }
            return plaintext + Data(repeating: 0x20, count: 16 - plaintext.count % 16)
        case .sequence:
            return plaintext + Data((1...UInt8(16 - plaintext.count % 16)).map { $0 })
        }
    }

    /// A PKCS#7 (or PKCS#7-32) padding that does not check, from whichever reader found it.
    static func paddingRefusal(_ padding: BlockPadding) -> DescribedRefusal {
        DescribedRefusal(reason: padding == .pkcs7To32 ? "the PKCS#7-32 padding is invalid" : "the PKCS#7 padding is invalid", kind: .padding)
    }

    static func unpad(_ padded: Data, _ padding: BlockPadding) throws -> Data {
        switch padding {
        case .pkcs7, .pkcs7To32:
            let block: UInt8 = padding == .pkcs7 ? 16 : 32
            guard let last = padded.last, (1...block).contains(last), padded.count >= Int(last),
                  padded.suffix(Int(last)).allSatisfy({ $0 == last }) else { throw paddingRefusal(padding) }
            return padded.dropLast(Int(last))
        case .zero:
            var end = padded.endIndex
            while end > padded.startIndex, padded[end - 1] == 0 { end -= 1 }
            return padded[padded.startIndex..<end]
        case .sequence:
            guard let last = padded.last, (1...16).contains(last), padded.count >= Int(last),
                  padded.suffix(Int(last)).elementsEqual(1...last) else {
                throw DescribedRefusal(reason: "the sequence padding (01 02 … n) is invalid", kind: .padding)
            }
            return padded.dropLast(Int(last))
        case .space:
            // 1 to 16 spaces: the last byte is one, and they all go (the plaintext cannot end in one).
            guard padded.last == 0x20 else { throw DescribedRefusal(reason: "the space padding is invalid: the last byte is no space", kind: .padding) }
            var end = padded.endIndex
            while end > padded.startIndex, padded.endIndex - end < 16, padded[end - 1] == 0x20 { end -= 1 }
            return padded[padded.startIndex..<end]
        }
    }
}

/// pyca's `cryptography.fernet` token: 0x80 ‖ timestamp (8 bytes, big-endian) ‖ IV (16) ‖
/// AES-128-CBC ciphertext (PKCS#7) ‖ HMAC-SHA256 over all that, under the first 16 bytes of the
/// 32-byte key (signing); the last 16 encrypt. Written as base64url with padding.
enum Fernet {
    static func token(_ plaintext: Data, key: Data, now: Date = Date(), iv: Data = secureRandomBytes(16)) throws -> Data {
        guard key.count == 32 else { throw DescribedRefusal(reason: "a Fernet key is 32 bytes, not \(key.count)") }
        var timestamp = UInt64(max(0, now.timeIntervalSince1970)).bigEndian
        var body = Data([0x80]) + Data(bytes: &timestamp, count: 8) + iv
        body += try AESCBC.encrypt(plaintext, key: key.suffix(16), iv: iv)
        body += HMACDigest.authenticationCode(.sha256, key: key.prefix(16), message: body)
        return Data(DescribedBytes.base64url(body, padded: true).utf8)
    }

    static func open(_ token: Data, key: Data) throws -> Data {
        guard let body = DescribedBytes.decodeBase64url(String(decoding: token, as: UTF8.self), padded: true) else {
            throw DescribedRefusal(reason: "the Fernet token is not base64url with padding")
        }
        guard body.count >= 1 + 8 + 16 + 16 + 32, (body.count - 57) % 16 == 0 else { throw DescribedRefusal(reason: "the Fernet token has \(body.count) bytes: no token is that long") }
        guard body.first == 0x80 else { throw DescribedRefusal(reason: "the Fernet token's version is not 0x80") }
        let signed = body.prefix(body.count - 32)
        guard HMACDigest.equal(HMACDigest.authenticationCode(.sha256, key: key.prefix(16), message: Data(signed)), Data(body.suffix(32))) else {
            throw DescribedRefusal(reason: "the Fernet token's HMAC does not verify (wrong key or tampered)", kind: .authentication)
        }
        let iv = Data(body.dropFirst(9).prefix(16))
        let ciphertext = Data(signed.dropFirst(25))
        do { return try AESCBC.decrypt(ciphertext, key: Data(key.suffix(16)), iv: iv) } catch {
            throw DescribedRefusal(reason: "the Fernet token's ciphertext does not decrypt", kind: .authentication)  // pyca: InvalidToken, as for the HMAC
        }
    }
}
