import Foundation
import Conformance
import WireCrypto

/// Requests to the aes-https server logic: `POST /secure-data` envelopes (every envelope mutation,
/// plus plaintexts that decrypt but are not the JSON object the server wants), `POST /login`
/// bodies, tokens, methods, paths and sizes. The frame's bytes are the request body; method, path
/// and the kind of `Authorization` header are in the setting.
public enum HTTPSFrames {
    public static let users = ["alice": "wonderland"]
    static let bodyLimit = 1 << 20

    public static func derivedKey(_ setting: FuzzSetting) -> Data {
        let mode = KeyDerivationMode(rawValue: setting["keyMode"] ?? "") ?? .base64Raw
        return (try? mode.deriveKey(from: setting["encryptionKey"] ?? "")) ?? Data(count: 16)
    }

    static func build(_ draft: inout FrameDraft, _ random: inout SeededGenerator, _ context: MutationContext) {
        draft.setting.setData("symKey", derivedKey(draft.setting))
        if random.chance(25) {
            draft.setting["path"] = "/login"
            draft.setting["auth"] = "none"
            draft.raw = Data(#"{"username":"alice","password":"wonderland"}"#.utf8)
            return
        }
        draft.plaintext = Data(random.choose([#"{"command":"status"}"#, #"{"temperature":21,"lights":["hall","porch"],"armed":true}"#,
                                              #"{"message":"hello","nested":{"list":[1,2,{"x":null}]}}"#, "{}"]).utf8)
        reseal(&draft, &random)
    }

    static func reseal(_ draft: inout FrameDraft, _ random: inout SeededGenerator) {
        draft.iv = random.bytes(16)
        draft.ciphertext = (try? AESCBC.encrypt(draft.plaintext, key: draft.setting.data("symKey") ?? Data(), iv: draft.iv)) ?? Data()
    }

    static func plaintext(_ name: String, _ text: @escaping @Sendable (inout SeededGenerator) -> Data) -> FrameMutator {
        FrameMutator(name) { draft, random, _ in
            guard draft.setting["path"] == "/secure-data" else { return }
            draft.plaintext = text(&random)
            reseal(&draft, &random)
        }
    }

    static func utf8(_ text: String) -> Data { Data(text.utf8) }

    static let plaintextMutators: [FrameMutator] = [
        plaintext("plaintext-not-json") { random in random.bytes(random.int(in: 0...40)) },
        plaintext("plaintext-json-not-an-object") { random in utf8(random.choose(["[1,2]", "\"text\"", "1", "null", "true", ""])) },
        plaintext("plaintext-json-huge-integer") { random in
            utf8(random.choose([#"{"n":12345678901234567890123}"#, #"{"n":9007199254740993}"#, #"{"n":-9223372036854775809}"#,
                                #"{"n":18446744073709551616}"#, #"{"n":9223372036854775807}"#]))
        },
        plaintext("plaintext-json-float-edge") { random in
            utf8(random.choose([#"{"n":1e400}"#, #"{"n":-1e400}"#, #"{"n":1e-400}"#, #"{"n":-0}"#, #"{"n":-0.0}"#, #"{"n":1.0}"#,
                                #"{"n":0.1}"#, #"{"n":1E2}"#, #"{"n":1.5e300}"#, #"{"n":123456789.123456789}"#]))
        },
        plaintext("plaintext-json-non-standard-number") { random in utf8(random.choose([#"{"n":NaN}"#, #"{"n":Infinity}"#, #"{"n":01}"#, #"{"n":+1}"#, #"{"n":.5}"#, #"{"n":1.}"#, #"{"n":0x10}"#])) },
        plaintext("plaintext-json-duplicate-keys") { random in utf8(random.choose([#"{"a":1,"a":2}"#, #"{"a":{"b":1},"a":[2]}"#])) },
        plaintext("plaintext-json-deep") { random in
            let depth = random.choose([64, 500, 600, 2_000, 50_000])
            return utf8(#"{"a":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}")
        },
        plaintext("plaintext-json-string-escapes") { random in
            utf8(random.choose([#"{"s":"\u00e9"}"#, #"{"s":"\ud83d\ude00"}"#, #"{"s":"\ud800"}"#, #"{"s":"\udc00x"}"#, #"{"s":"a\/b"}"#,
                                #"{"s":"\u0000"}"#, #"{"s":"\x41"}"#, #"{"\u0061":1}"#, #"{"s":"tab\there"}"#]))
        },
        plaintext("plaintext-json-control-character") { random in utf8("{\"s\":\"a" + random.choose(["\u{01}", "\n", "\t", "\u{7f}"]) + "\"}") },
        plaintext("plaintext-json-encoding") { random in
            let text = #"{"message":"h\#u{00e9}llo"}"#
            switch random.next() % 4 {
            case 0: return Data([0xef, 0xbb, 0xbf]) + utf8(text)
            case 1: return text.data(using: .utf16LittleEndian) ?? Data()
            case 2: return text.data(using: .utf16) ?? Data()
            default: return utf8(#"{"s":""#) + Data([random.choose([0xff, 0xc3, 0x80, 0xed])]) + utf8(#""}"#)
            }
        },
        plaintext("plaintext-json-trailing") { random in utf8(#"{"a":1}"# + random.choose(["x", " ", "\n", "}", "{}", "\0"])) },
        plaintext("plaintext-json-whitespace") { random in utf8(random.choose([" {\"a\" : 1 } ", "\n\t{}\r\n", "\u{a0}{}"])) },
        plaintext("plaintext-json-literals") { random in utf8(random.choose([#"{"a":true,"b":false,"c":null}"#, #"{"a":True}"#, #"{"a":nul}"#, #"{"a":[]}"#, #"{"":{}}"#])) },
        plaintext("plaintext-json-large") { random in
            utf8("{\"list\":[" + (0..<random.choose([1_000, 20_000])).map { "\($0)" }.joined(separator: ",") + "]}")
        },
    ]

    static let requestMutators: [FrameMutator] = [
        FrameMutator("auth-missing") { draft, _, _ in draft.setting["auth"] = "none" },
        FrameMutator("auth-unknown-token") { draft, _, _ in draft.setting["auth"] = "unknown" },
        FrameMutator("auth-empty") { draft, _, _ in draft.setting["auth"] = "empty" },
        FrameMutator("auth-bearer-prefix") { draft, _, _ in draft.setting["auth"] = "bearer" },
        FrameMutator("method-not-post") { draft, random, _ in draft.setting["method"] = random.choose(["GET", "PUT", "post", "DELETE", ""]) },
        FrameMutator("path-unknown") { draft, random, _ in draft.setting["path"] = random.choose(["/", "/secure-data/", "/Secure-Data", "/login?x=1", "/admin", ""]) },
        FrameMutator("body-over-limit") { draft, random, _ in draft.raw = Data(repeating: 0x41, count: bodyLimit + random.choose([1, 1_000])) },
        FrameMutator("body-at-limit") { draft, _, _ in draft.raw = Data(repeating: 0x20, count: bodyLimit) },
        FrameMutator("body-empty") { draft, _, _ in draft.raw = Data() },
        FrameMutator("encrypted-under-another-key") { draft, random, _ in
            guard draft.setting["path"] == "/secure-data", let key = draft.setting.data("symKey") else { return }
            draft.ciphertext = (try? AESCBC.encrypt(draft.plaintext, key: random.bytes(key.count), iv: draft.iv)) ?? Data()
        },
    ]

    static let loginMutators: [FrameMutator] = [
        // The seed app's AFNetworking posts the login form-encoded (docs/PROTOCOL.md, aes-https login;
        // application/x-www-form-urlencoded as the HTML and URL specifications write it).
        FrameMutator("login-form-encoded") { draft, random, _ in
            draft.setting["path"] = "/login"
            draft.setting["auth"] = "none"
            draft.setting["contentType"] = "application/x-www-form-urlencoded"
            draft.raw = utf8(random.choose([
                "username=alice&password=wonderland", "password=wonderland&username=alice", "username=al%69ce&password=wonderland",
                "username=alice&password=rabbit", "username=alice", "username=alice&password=wonderland&extra=1", "",
                "username=alice&password=wonder+land", "username=alice&password=wonderland&username=bob", "username=alice&password=%zz",
                "username=%E2%82%AC&password=x", "=&=", "username&password",
            ]))
        },
        FrameMutator("login-body") { draft, random, _ in
            draft.setting["path"] = "/login"
            draft.setting["auth"] = "none"
            draft.raw = utf8(random.choose([
                #"{"username":"alice","password":"rabbit"}"#, #"{"username":"bob","password":"wonderland"}"#, #"{"username":"alice"}"#,
                #"{"username":"alice","password":1}"#, #"{"username":"alice","password":"wonderland","extra":true}"#, #"["alice","wonderland"]"#,
                #"{"username":"alice","password":"wonderland","username":"bob"}"#, #"{"username":"alic\u0065","password":"wonderland"}"#,
                #"{"username":"alice","password":"wonderland\u0000"}"#, #"{"username":"alice","password":"wonderland"} x"#, "",
                #"{"username":"\ud800","password":"x"}"#, #"{"username":null,"password":null}"#, #"{"username":"alice","password":"wonderland"#,
            ]))
        },
    ]

    static let mutators: [FrameMutator] = {
        // The server's key is fixed: mutators that change only the caller's key mean nothing here,
        // and plaintexts have their own mutators below.
        let skipped: Set<String> = ["wrong-key", "key-size-wrong", "key-and-iv-wrong-size", "plaintext-not-json"]
        let envelope = (SymmetricFrames.envelopeMutators + SymmetricFrames.cbcMutators(envelope: true)).filter { !skipped.contains($0.name) }
        // Envelope edits only mean something for /secure-data.
        let forSecureData = envelope.map { mutator in
            FrameMutator(mutator.name) { draft, random, context in
                guard draft.setting["path"] == "/secure-data" else { return }
                mutator.apply(&draft, &random, context)
            }
        }
        return forSecureData + plaintextMutators + requestMutators + loginMutators
    }()
}
