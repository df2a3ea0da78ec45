import Foundation
import Conformance
import WireCrypto

/// Key files, aes-https envelopes, raw AES-CBC, key-derivation strings and sealed boxes.
enum SymmetricFrames {
    static func build(_ family: FrameFamily, _ draft: inout FrameDraft, _ random: inout SeededGenerator, _ context: MutationContext) {
        let key = context.key(draft.setting)
        switch family {
        case .publicKey:
            let variant = random.choose(Array(KeyMutations.publicVariants.prefix(7)))
            draft.plaintext = variant.make(key, context.other(than: key), &random)
        case .privateKey:
            let variant = random.choose(Array(KeyMutations.privateVariants.prefix(6)))
            draft.plaintext = variant.make(key, context.other(than: key), &random)
        case .envelope, .cbc:
            draft.plaintext = plaintext(&random)
            draft.iv = random.bytes(16)
            draft.ciphertext = (try? AESCBC.encrypt(draft.plaintext, key: draft.setting.data("symKey") ?? Data(), iv: draft.iv)) ?? Data()
            if family == .cbc { draft.setting.setData("iv", draft.iv) }
        case .kdf:
            draft.plaintext = Data(validEncryptionKey(draft.setting["mode"] ?? "", &random).utf8)
        case .aesGCM, .chaChaPoly:
            draft.ciphertext = seal(draft.setting, plaintext: plaintext(&random), nonce: random.bytes(12))
        default:
            break
        }
    }

    /// A JSON document (what aes-https carries) or arbitrary bytes.
    static func plaintext(_ random: inout SeededGenerator) -> Data {
        if random.chance(60) {
            return Data(random.choose([#"{"command":"status"}"#, #"{"temperature":21,"lights":["hall","porch"],"armed":true}"#, "{}",
                                       #"{"message":"hello from the phone","n":-3.5e2}"#, #"{"a":{"b":{"c":null}}}"#]).utf8)
        }
        return random.bytes(random.choose([0, 1, 15, 16, 17, 31, 32, 100]))
    }

    static func validEncryptionKey(_ mode: String, _ random: inout SeededGenerator) -> String {
        if mode == KeyDerivationMode.weakUTF8ZeroPad16.rawValue {
            return String(random.bytes(12).base64EncodedString().prefix(random.int(in: 1...15)))
        }
        return random.bytes(random.choose([16, 24, 32])).base64EncodedString()
    }

    static func seal(_ setting: FuzzSetting, plaintext: Data, nonce: Data) -> Data {
        let key = SymmetricKey(data: setting.data("symKey") ?? Data())
        let aad = setting.data("aad") ?? Data()
        if setting["alg"] == AEADAlgorithm.chaChaPoly.rawValue {
            return (try? ChaChaPoly.seal(plaintext, using: key, nonce: ChaChaPoly.Nonce(data: nonce), authenticating: aad).combined) ?? Data()
        }
        return (try? AES.GCM.seal(plaintext, using: key, nonce: AES.GCM.Nonce(data: nonce), authenticating: aad).combined) ?? Data()
    }

    static func mutators(_ family: FrameFamily) -> [FrameMutator] {
        switch family {
        case .publicKey: return keyFileMutators(KeyMutations.publicVariants) + keyFileMutators(Array(KeyMutations.privateVariants.prefix(4)))
        case .privateKey: return keyFileMutators(KeyMutations.privateVariants) + passphraseMutators
        case .envelope: return envelopeMutators + cbcMutators(envelope: true)
        case .cbc: return cbcMutators(envelope: false)
        case .kdf: return kdfMutators
        case .aesGCM, .chaChaPoly: return sealedMutators
        default: return []
        }
    }

    static func keyFileMutators(_ variants: [KeyMutations.Variant]) -> [FrameMutator] {
        variants.map { variant in
            FrameMutator(variant.name, spec: variant.spec) { draft, random, context in
                let key = context.key(draft.setting)
                draft.plaintext = variant.make(key, context.other(than: key), &random)
            }
        }
    }

    static let passphraseMutators: [FrameMutator] = [
        FrameMutator("passphrase-for-plain-key") { draft, random, _ in draft.setting.setData("passphrase", Data(random.choose(["fuzz passphrase", "x"]).utf8)) },
        FrameMutator("passphrase-empty") { draft, _, _ in draft.setting.setData("passphrase", Data()) },
    ]

    // MARK: envelopes

    /// DBL_MAX's exact decimal digits (309 of them).
    static let dblMaxDigits = "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368"

    /// Rewrites the envelope's JSON text.
    static func json(_ name: String, spec: FrameSpec? = nil, _ edit: @escaping @Sendable (String, FrameDraft, inout SeededGenerator) -> String) -> FrameMutator {
        FrameMutator(name, spec: spec) { draft, random, _ in
            let text = String(decoding: CBCEnvelope(ciphertext: draft.ciphertext, iv: draft.iv).jsonData, as: UTF8.self)
            draft.raw = Data(edit(text, draft, &random).utf8)
        }
    }

    /// A JSON object with the two fields written as given (already JSON values).
    static func object(_ data: String, _ iv: String) -> String { #"{"data":\#(data),"iv":\#(iv)}"# }
    static func quoted(_ text: String) -> String { "\"" + text + "\"" }

    /// Standard base64 of `bytes`, then edited.
    static func base64Field(_ name: String, _ edit: @escaping @Sendable (String, inout SeededGenerator) -> String) -> FrameMutator {
        FrameMutator(name) { draft, random, _ in
            var data = draft.ciphertext.base64EncodedString(), iv = draft.iv.base64EncodedString()
            if random.chance(50) { data = edit(data, &random) } else { iv = edit(iv, &random) }
            draft.raw = Data(object(quoted(data), quoted(iv)).utf8)
        }
    }

    static let envelopeMutators: [FrameMutator] = [
        json("json-truncated") { text, _, random in String(text.prefix(random.int(in: 0...(text.count - 1)))) },
        json("json-trailing-comma") { text, _, _ in String(text.dropLast()) + ",}" },
        json("json-single-quotes") { text, _, _ in text.replacingOccurrences(of: "\"", with: "'") },
        json("json-comment") { text, _, _ in "/* envelope */" + text },
        json("json-byte-order-mark") { text, _, _ in "\u{feff}" + text },
        json("json-trailing-garbage") { text, _, random in text + random.choose(["x", "}", " ", "\n", "{}", "\0"]) },
        json("json-top-level-array") { text, _, _ in "[" + text + "]" },
        json("json-top-level-string") { _, draft, _ in quoted(draft.ciphertext.base64EncodedString()) },
        json("json-top-level-null") { _, _, random in random.choose(["null", "1", "true", "\"\"", ""]) },
        json("json-nested-deep") { text, _, random in
            let depth = random.choose([100, 600, 5_000, 100_000])
            return String(text.dropLast()) + #","x":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        },
        json("json-whitespace") { text, _, _ in text.replacingOccurrences(of: ":", with: " \n\t: \r\n").replacingOccurrences(of: ",", with: " ,\n ") },
        json("json-escaped-key") { text, _, random in
            text.replacingOccurrences(of: random.chance(50) ? #""data""# : #""iv""#, with: random.chance(50) ? #""d\u0061ta""# : #""\u0069v""#)
        },
        json("json-escaped-slash-in-base64") { text, _, _ in text.replacingOccurrences(of: "/", with: #"\/"#) },
        json("json-unicode-escape-in-base64") { text, _, _ in text.replacingOccurrences(of: "A", with: #"\u0041"#) },
        json("json-duplicate-iv") { _, draft, random in
            let other = random.bytes(random.choose([15, 16, 17])).base64EncodedString()
            return random.chance(50) ? #"{"data":"\#(draft.ciphertext.base64EncodedString())","iv":"\#(draft.iv.base64EncodedString())","iv":"\#(other)"}"#
                                     : #"{"data":"\#(draft.ciphertext.base64EncodedString())","iv":"\#(other)","iv":"\#(draft.iv.base64EncodedString())"}"#
        },
        json("json-duplicate-data") { _, draft, _ in
            #"{"data":"AAAA","data":"\#(draft.ciphertext.base64EncodedString())","iv":"\#(draft.iv.base64EncodedString())"}"#
        },
        json("json-extra-field") { text, _, random in
            String(text.dropLast()) + "," + random.choose([#""mac":"x""#, #""n":1e400"#, #""n":NaN"#, #""n":-0"#, #""n":12345678901234567890123"#,
                                                          #""x":{"y":[1,2,3]}"#, #""data2":"AAAA""#, #""":"""#]) + "}"
        },
        // RFC 8259 §6 lets a reader refuse a number outside binary64 (docs/PROTOCOL.md: "no number
        // too large to be finite"): integers from just below to well past DBL_MAX (≈1.8e308), and
        // past Python's 4,300-digit int limit.
        json("json-integer-too-large-to-be-finite", spec: .invalid("docs/PROTOCOL.md / RFC 8259 §6: no number too large to be finite")) { text, _, random in
            let digits = random.choose([310, 311, 400, 4_301])  // 10^309 and up
            return String(text.dropLast()) + #","n":"# + (random.chance(50) ? "-" : "") + "1" + String(repeating: "0", count: digits - 1) + "}"
        },
        json("json-integer-largest-finite") { text, _, _ in
            // 2^1023·(2 − 2^−52), DBL_MAX itself as an integer literal: finite, so valid.
            String(text.dropLast()) + #","n":"# + Self.dblMaxDigits + "}"
        },
        FrameMutator("json-utf16-bytes") { draft, random, _ in
            let text = String(decoding: CBCEnvelope(ciphertext: draft.ciphertext, iv: draft.iv).jsonData, as: UTF8.self)
            draft.raw = text.data(using: random.chance(50) ? .utf16BigEndian : .utf16LittleEndian) ?? Data()
        },
        FrameMutator("json-invalid-utf8") { draft, random, _ in
            var bytes = [UInt8](CBCEnvelope(ciphertext: draft.ciphertext, iv: draft.iv).jsonData)
            let insertion: [UInt8] = random.choose([[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0x80]])
            bytes.insert(contentsOf: insertion, at: random.choose([1, bytes.count - 1, bytes.count]))
            draft.raw = Data(bytes)
        },
        FrameMutator("field-missing") { draft, random, _ in
            let data = quoted(draft.ciphertext.base64EncodedString()), iv = quoted(draft.iv.base64EncodedString())
            draft.raw = Data(random.choose([#"{"iv":\#(iv)}"#, #"{"data":\#(data)}"#, "{}", #"{"Data":\#(data),"IV":\#(iv)}"#]).utf8)
        },
        FrameMutator("field-mistyped") { draft, random, _ in
            let data = quoted(draft.ciphertext.base64EncodedString()), iv = quoted(draft.iv.base64EncodedString())
            let wrong = random.choose(["1", "null", "true", "[]", "{}", #"["\#(draft.iv.base64EncodedString())"]"#, "1.5", "-0"])
            draft.raw = Data((random.chance(50) ? object(wrong, iv) : object(data, wrong)).utf8)
        },
        base64Field("base64-invalid-char") { text, random in
            var chars = Array(text); guard !chars.isEmpty else { return "!" }
            chars[random.int(in: 0...(chars.count - 1))] = random.choose(Array("!*.#@$%~-_"))
            return String(chars)
        },
        base64Field("base64-padding-missing") { text, _ in text.replacingOccurrences(of: "=", with: "") },
        base64Field("base64-padding-extra") { text, random in text + random.choose(["=", "==", "===="]) },
        base64Field("base64-whitespace") { text, random in
            var chars = Array(text)
            chars.insert(contentsOf: Array(random.choose([" ", "\n", "\r\n", "\t"])), at: random.int(in: 0...chars.count))
            return String(chars)
        },
        base64Field("base64-escaped-newline") { text, random in
            var chars = Array(text); chars.insert(contentsOf: Array("\\n"), at: random.int(in: 0...chars.count))
            return String(chars)
        },
        base64Field("base64-urlsafe") { text, _ in text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_") },
        base64Field("base64-noncanonical-bits") { text, _ in nonCanonical(text) },
        base64Field("base64-empty") { _, _ in "" },
        base64Field("base64-data-after-padding") { text, random in text + random.choose(["AAAA", "QQ==", "=A"]) },
        base64Field("base64-non-ascii") { text, random in text + random.choose(["\u{00e9}", "\u{ff21}", "\u{0661}"]) },
        FrameMutator("huge-body") { draft, random, _ in
            let count = random.choose([300_000, 800_000, 1_100_000])
            draft.raw = Data(object(quoted(Data(count: count).base64EncodedString()), quoted(draft.iv.base64EncodedString())).utf8)
        },
        FrameMutator("plaintext-not-json") { draft, random, _ in
            guard let key = draft.setting.data("symKey") else { return }
            draft.plaintext = random.bytes(random.int(in: 0...40))
            draft.ciphertext = (try? AESCBC.encrypt(draft.plaintext, key: key, iv: draft.iv)) ?? Data()
        },
    ]

    /// A base64 string whose last character carries nonzero bits that decoding throws away.
    static func nonCanonical(_ text: String) -> String {
        var chars = Array(text)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        let padding = chars.reversed().prefix { $0 == "=" }.count
        guard padding > 0, chars.count > padding, let position = alphabet.firstIndex(of: chars[chars.count - padding - 1]) else { return text + "=" }
        chars[chars.count - padding - 1] = alphabet[position | (padding == 2 ? 0x0f : 0x03)]
        return String(chars)
    }

    /// CBC edits; in an envelope they change the JSON's fields, raw they change the frame/setting.
    static func cbcMutators(envelope: Bool) -> [FrameMutator] {
        func edit(_ name: String, _ apply: @escaping @Sendable (inout FrameDraft, inout SeededGenerator) -> Void) -> FrameMutator {
            FrameMutator(name) { draft, random, _ in
                apply(&draft, &random)
                if !envelope { draft.setting.setData("iv", draft.iv) }
            }
        }
        return [
            edit("iv-not-16-bytes") { draft, random in
                let length = random.choose([15, 17, 15, 17, 15, 0, 1, 8, 12, 32])
                draft.iv = length <= draft.iv.count ? Data(draft.iv.prefix(length)) : draft.iv + random.bytes(length - draft.iv.count)
            },
            edit("ciphertext-not-block-multiple") { draft, random in
                if random.chance(50), !draft.ciphertext.isEmpty { draft.ciphertext = Data(draft.ciphertext.dropLast(random.int(in: 1...15))) } else {
                    draft.ciphertext += random.bytes(random.int(in: 1...15))
                }
            },
            edit("ciphertext-empty") { draft, _ in draft.ciphertext = Data() },
            edit("ciphertext-truncated-by-a-block") { draft, _ in draft.ciphertext = Data(draft.ciphertext.dropLast(16)) },
            edit("bad-padding") { draft, random in
                // Flip the last byte of the block before the last (the IV for a one-block message).
                if draft.ciphertext.count >= 32 {
                    draft.ciphertext[draft.ciphertext.count - 17] ^= UInt8(1 + random.next() % 255)
                } else if !draft.iv.isEmpty {
                    draft.iv[draft.iv.count - 1] ^= UInt8(1 + random.next() % 255)
                }
            },
            edit("padding-byte-zero") { draft, _ in craftPadding(&draft, [UInt8](repeating: 0x42, count: 15) + [0x00]) },
            edit("padding-byte-17") { draft, _ in craftPadding(&draft, [UInt8](repeating: 0x42, count: 15) + [0x11]) },
            edit("padding-inconsistent") { draft, random in
                let n = random.int(in: 2...16)
                var block = [UInt8](repeating: 0x42, count: 16 - n) + [UInt8](repeating: UInt8(n), count: n)
                block[16 - n] ^= 0x01
                craftPadding(&draft, block)
            },
            edit("padding-full-block") { draft, _ in craftPadding(&draft, [UInt8](repeating: 0x10, count: 16)) },
            edit("padding-one") { draft, _ in craftPadding(&draft, [UInt8](repeating: 0x42, count: 15) + [0x01]) },
            edit("wrong-iv") { draft, random in draft.iv = random.bytes(16) },
            FrameMutator("wrong-key") { draft, random, _ in
                draft.setting.setData("symKey", random.bytes(draft.setting.data("symKey")?.count ?? 16))
                if !envelope { draft.setting.setData("iv", draft.iv) }
            },
            FrameMutator("key-size-wrong") { draft, random, _ in
                draft.setting.setData("symKey", random.bytes(random.choose([0, 1, 15, 17, 20, 31, 33, 64])))
                if !envelope { draft.setting.setData("iv", draft.iv) }
            },
            FrameMutator("key-and-iv-wrong-size") { draft, random, _ in
                draft.setting.setData("symKey", random.bytes(random.choose([15, 17, 31])))
                draft.iv = random.bytes(random.choose([8, 15, 17]))
                if !envelope { draft.setting.setData("iv", draft.iv) }
            },
        ]
    }

    /// Replaces the ciphertext with one whose last block decrypts to `lastBlock`.
    static func craftPadding(_ draft: inout FrameDraft, _ lastBlock: [UInt8]) {
        guard let key = draft.setting.data("symKey"),
              let ciphertext = try? AESCBC.encrypt(Data(repeating: 0x41, count: 16) + Data(lastBlock), key: key, iv: draft.iv) else { return }
        draft.ciphertext = Data(ciphertext.prefix(32))  // drop the block of full padding
    }

    // MARK: key derivation

    static func text(_ name: String, _ make: @escaping @Sendable (FrameDraft, inout SeededGenerator) -> String) -> FrameMutator {
        FrameMutator(name) { draft, random, _ in draft.plaintext = Data(make(draft, &random).utf8) }
    }

    static let kdfMutators: [FrameMutator] = [
        text("empty") { _, _ in "" },
        text("utf8-length-15-16-17") { _, random in String(repeating: "k", count: random.choose([15, 16, 17])) },
        text("multibyte-at-16-byte-boundary") { _, random in String(repeating: "k", count: random.choose([13, 14, 15])) + random.choose(["\u{00e9}", "\u{20ac}", "\u{1f511}"]) },
        text("nul-characters") { _, random in random.choose(["\0", "abc\0", "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"]) },
        text("base64-of-wrong-length") { _, random in random.bytes(random.choose([0, 1, 15, 17, 23, 25, 31, 33, 64])).base64EncodedString() },
        text("base64-padding-missing") { _, random in random.bytes(random.choose([16, 32])).base64EncodedString().replacingOccurrences(of: "=", with: "") },
        text("base64-urlsafe") { _, random in
            var bytes = random.bytes(32); bytes[0] = 0xfb; bytes[1] = 0xff
            return bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        },
        text("base64-whitespace") { _, random in
            let text = random.bytes(24).base64EncodedString()
            return random.choose([" " + text, text + "\n", text + "\r\n", String(text.prefix(8)) + " " + String(text.dropFirst(8)), "\t" + text])
        },
        text("base64-noncanonical-bits") { _, random in nonCanonical(random.bytes(random.choose([16, 32])).base64EncodedString()) },
        text("base64-data-after-padding") { _, random in random.bytes(16).base64EncodedString() + random.choose(["AAAA", "=", "QQ=="]) },
        text("base64-non-ascii") { _, random in random.bytes(16).base64EncodedString() + random.choose(["\u{00e9}", "\u{0661}", "\u{ff21}"]) },
        text("other-mode-key") { draft, random in
            validEncryptionKey(draft.setting["mode"] == KeyDerivationMode.base64Raw.rawValue ? KeyDerivationMode.weakUTF8ZeroPad16.rawValue
                                                                                              : KeyDerivationMode.base64Raw.rawValue, &random)
        },
        text("long-string") { _, random in String(repeating: random.choose(["A", "\u{00e9}", "=="]), count: random.choose([100, 10_000])) },
    ]

    // MARK: sealed boxes

    static let sealedMutators: [FrameMutator] = [
        // CryptoKit's separate parts (`SealedBox(nonce:ciphertext:tag:)`): what a combined box cannot
        // carry — nonces and tags of other lengths (NIST SP 800-38D §5.2.1.1 allows GCM nonces of
        // any length ≥ 1 byte; CryptoKit takes ≥ 12; ChaChaPoly's nonce is 12 bytes, RFC 8439 §2.8;
        // both tags are 16 bytes as CryptoKit opens them). The frame stays the combined box; the
        // oracle reads the parts from it and the setting.
        FrameMutator("parts-nonce-length") { draft, random, _ in
            draft.setting["parts"] = "1"
            draft.setting["nonceLength"] = String(random.choose([0, 1, 8, 11, 12, 13, 16, 32, 64]))
        },
        FrameMutator("parts-tag-length") { draft, random, _ in
            draft.setting["parts"] = "1"
            draft.setting["tagLength"] = String(random.choose([0, 4, 12, 15, 16, 17, 32]))
        },
        FrameMutator("shorter-than-28-bytes") { draft, random, _ in draft.ciphertext = Data(draft.ciphertext.prefix(random.choose([0, 1, 12, 16, 27]))) },
        FrameMutator("exactly-28-bytes") { draft, random, _ in draft.ciphertext = Data(draft.ciphertext.prefix(12)) + random.bytes(16) },
        FrameMutator("flip-nonce-bit") { draft, random, _ in flip(&draft.ciphertext, in: 0..<12, &random) },
        FrameMutator("flip-ciphertext-bit") { draft, random, _ in flip(&draft.ciphertext, in: 12..<(draft.ciphertext.count - 16), &random) },
        FrameMutator("flip-tag-bit") { draft, random, _ in flip(&draft.ciphertext, in: (draft.ciphertext.count - 16)..<draft.ciphertext.count, &random) },
        FrameMutator("truncated") { draft, random, _ in draft.ciphertext = Data(draft.ciphertext.dropLast(random.int(in: 1...4))) },
        FrameMutator("extended") { draft, random, _ in draft.ciphertext += random.bytes(random.int(in: 1...4)) },
        FrameMutator("wrong-key") { draft, random, _ in draft.setting.setData("symKey", random.bytes(draft.setting.data("symKey")?.count ?? 32)) },
        FrameMutator("key-size-wrong") { draft, random, _ in draft.setting.setData("symKey", random.bytes(random.choose([0, 15, 16, 24, 31, 33, 64]))) },
        FrameMutator("key-size-wrong-and-short-box") { draft, random, _ in
            draft.setting.setData("symKey", random.bytes(random.choose([15, 31, 33])))
            draft.ciphertext = Data(draft.ciphertext.prefix(random.int(in: 0...27)))
        },
        FrameMutator("wrong-associated-data") { draft, random, _ in
            let aad = draft.setting.data("aad")
            draft.setting.setData("aad", aad.map { $0.isEmpty ? random.bytes(3) : Data($0.dropLast()) } ?? random.bytes(random.int(in: 1...8)))
        },
        FrameMutator("associated-data-dropped") { draft, _, _ in draft.setting["aad"] = nil },
        FrameMutator("empty-versus-absent-associated-data") { draft, random, _ in
            draft.setting.setData("aad", random.chance(50) ? Data() : nil)
        },
    ]

    static func flip(_ data: inout Data, in range: Range<Int>, _ random: inout SeededGenerator) {
        guard !range.isEmpty, range.upperBound <= data.count else { return }
        let index = data.startIndex + range.lowerBound + ByteMutator.pick(range.count, &random)
        data[index] ^= UInt8(1) << UInt8(random.next() % 8)
    }
}
