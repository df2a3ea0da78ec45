import Foundation
import Conformance
import WireCrypto

/// One Project Wycheproof test-vector file (github.com/C2SP/wycheproof, `testvectors_v1/`) of a
/// schema crosscheck runs. The loader is strict, as the schemas are (`additionalProperties: false`):
/// an unknown schema, group type, field or `result`, malformed hex, a duplicate `tcId` or a test
/// count that disagrees with `numberOfTests` all throw `WycheproofLoadError`, naming the file, the
/// place in it and the `tcId`. Nothing it does not understand is silently run, or silently skipped.
public struct WycheproofFile: Sendable {
    public enum Schema: String, Sendable, CaseIterable {
        case rsaesPKCS1Decrypt = "rsaes_pkcs1_decrypt_schema_v1.json"
        case rsaesOAEPDecrypt = "rsaes_oaep_decrypt_schema_v1.json"
        case aead = "aead_test_schema_v1.json"
        case indCPA = "ind_cpa_test_schema_v1.json"
    }

    /// The file name, e.g. `rsa_pkcs1_2048_test.json`.
    public let fileName: String
    public let algorithm: String
    public let schema: Schema
    public let header: [String]
    /// Flag name → what the flag means.
    public let notes: [String: Note]
    public let groups: [Group]

    /// The file name without `.json`: what testcase names start with.
    public var stem: String { fileName.hasSuffix(".json") ? String(fileName.dropLast(5)) : fileName }
    public var tests: [Test] { groups.flatMap(\.tests) }

    public static func load(contentsOf url: URL) throws -> WycheproofFile {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw WycheproofLoadError(file: url.lastPathComponent, place: "", reason: "cannot read \(url.path): \(error.localizedDescription)")
        }
        return try WycheproofFile(json: data, fileName: url.lastPathComponent)
    }

    public init(json: Data, fileName: String) throws {
        let envelope: Envelope
        do { envelope = try JSONDecoder().decode(Envelope.self, from: json) } catch let error as DecodingError {
            throw WycheproofLoadError(file: fileName, decoding: error)
        } catch {
            throw WycheproofLoadError(file: fileName, place: "", reason: "\(error)")
        }
        self.fileName = fileName
        algorithm = envelope.algorithm; schema = envelope.schema; header = envelope.header
        notes = envelope.notes; groups = envelope.testGroups
        let ids = groups.flatMap(\.tests).map(\.tcId)
        guard ids.count == envelope.numberOfTests else {
            throw WycheproofLoadError(file: fileName, place: "numberOfTests",
                                      reason: "says \(envelope.numberOfTests) but the file holds \(ids.count) tests (truncated or edited?)")
        }
        var seen = Set<Int>()
        for id in ids where !seen.insert(id).inserted {
            throw WycheproofLoadError(file: fileName, place: "tcId \(id)", reason: "tcId \(id) occurs more than once")
        }
    }

    /// What a flag means (`notes` in the file). Older files give only a description string.
    public struct Note: Sendable, Decodable {
        public var bugType: String?
        public var description: String?
        public var effect: String?
        public var links: [String]?
        public var cves: [String]?

        public init(from decoder: Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                description = text
                return
            }
            let c = try decoder.strictContainer(Keys.self)
            bugType = try c.decodeIfPresent(String.self, forKey: .bugType)
            description = try c.decodeIfPresent(String.self, forKey: .description)
            effect = try c.decodeIfPresent(String.self, forKey: .effect)
            links = try c.decodeIfPresent([String].self, forKey: .links)
            cves = try c.decodeIfPresent([String].self, forKey: .cves)
        }
        enum Keys: String, CodingKey, CaseIterable { case bugType, description, effect, links, cves }
    }

    /// `valid`: must succeed with the expected output. `invalid`: must fail and release nothing.
    /// `acceptable`: either is conformant; the outcome is recorded.
    public enum ExpectedResult: String, Sendable, CaseIterable { case valid, invalid, acceptable }

    /// One test vector. Which byte fields are present depends on the schema.
    public struct Test: Sendable {
        public let tcId: Int
        public let comment: String
        public let flags: [String]
        public let result: ExpectedResult
        public let msg: Data
        public let ct: Data
        /// OAEP label (RSA-OAEP files).
        public let label: Data
        /// AEAD and IND-CPA: key, IV or nonce, associated data, tag.
        public let key: Data
        public let iv: Data
        public let aad: Data
        public let tag: Data
    }

    public enum Group: Sendable {
        case rsa(RSAGroup)
        case aead(AEADGroup)
        case indCPA(IndCPAGroup)

        public var tests: [Test] {
            switch self {
            case let .rsa(group): return group.tests
            case let .aead(group): return group.tests
            case let .indCPA(group): return group.tests
            }
        }
    }

    /// `RsaesPkcs1Decrypt` and `RsaesOaepDecrypt` groups: one private key, OAEP parameters for OAEP.
    public struct RSAGroup: Sendable {
        public let keySize: Int
        public let privateKeyPKCS8: Data
        public let privateKeyPEM: String
        /// The modulus as lowercase hex without leading zeros (as `RSAKeyInfo` has it).
        public let modulusHex: String
        /// OAEP only: label hash (`sha`), mask generation function (`mgf`) and its hash (`mgfSha`),
        /// as the file spells them ("SHA-256", "MGF1").
        public let oaep: (sha: String, mgf: String, mgfSha: String)?
        public let tests: [Test]
    }

    public struct AEADGroup: Sendable {
        public let keySize: Int
        public let ivSize: Int
        public let tagSize: Int
        public let tests: [Test]
    }

    public struct IndCPAGroup: Sendable {
        public let keySize: Int
        public let ivSize: Int
        public let tests: [Test]
    }
}

/// A file the loader refuses, with where and why.
public struct WycheproofLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    public let file: String
    /// e.g. `testGroups[2].tests[5] (tcId 37).result`; empty for the file as a whole.
    public let place: String
    public let reason: String

    public init(file: String, place: String, reason: String) { self.file = file; self.place = place; self.reason = reason }

    init(file: String, decoding error: DecodingError) {
        let (path, reason): ([CodingKey], String)
        switch error {
        case let .dataCorrupted(context): (path, reason) = (context.codingPath, context.debugDescription)
        case let .keyNotFound(key, context): (path, reason) = (context.codingPath + [key], "required field is missing")
        case let .typeMismatch(type, context): (path, reason) = (context.codingPath, "expected \(type): \(context.debugDescription)")
        case let .valueNotFound(type, context): (path, reason) = (context.codingPath, "expected \(type), found null")
        @unknown default: (path, reason) = ([], "\(error)")
        }
        var place = ""
        for key in path {
            if let index = key.intValue { place += "[\(index)]" } else { place += (place.isEmpty ? "" : ".") + key.stringValue }
        }
        self.init(file: file, place: place, reason: reason)
    }

    public var description: String { "\(file): \(place.isEmpty ? "" : place + ": ")\(reason)" }
}

// MARK: - Decoding

extension WycheproofFile {
    /// The top level of a file.
    struct Envelope: Decodable {
        let algorithm: String
        let schema: Schema
        let header: [String]
        let notes: [String: Note]
        let numberOfTests: Int
        let testGroups: [Group]

        enum Keys: String, CodingKey, CaseIterable { case algorithm, generatorVersion, header, notes, numberOfTests, schema, testGroups }

        init(from decoder: Decoder) throws {
            let c = try decoder.strictContainer(Keys.self)
            let schemaName = try c.decode(String.self, forKey: .schema)
            guard let schema = Schema(rawValue: schemaName) ?? Schema(rawValue: schemaName + ".json") else {
                throw DecodingError.dataCorruptedError(forKey: .schema, in: c, debugDescription:
                    "schema '\(schemaName)' is not one crosscheck runs (\(Schema.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            self.schema = schema
            algorithm = try c.decode(String.self, forKey: .algorithm)
            header = try c.decode([String].self, forKey: .header)
            notes = try c.decode([String: Note].self, forKey: .notes)
            numberOfTests = try c.decode(Int.self, forKey: .numberOfTests)
            _ = try c.decodeIfPresent(String.self, forKey: .generatorVersion)
            var groups = try c.nestedUnkeyedContainer(forKey: .testGroups)
            var decoded: [Group] = []
            while !groups.isAtEnd {
                switch schema {
                case .rsaesPKCS1Decrypt, .rsaesOAEPDecrypt:
                    let group = try groups.decode(RSAGroupDecoder.self).group
                    guard (group.oaep != nil) == (schema == .rsaesOAEPDecrypt) else {
                        throw DecodingError.dataCorrupted(.init(codingPath: [Keys.testGroups, AnyJSONKey(intValue: groups.currentIndex - 1)!],
                            debugDescription: "a \(group.oaep == nil ? "PKCS#1 v1.5" : "OAEP") group in a \(schema.rawValue) file"))
                    }
                    decoded.append(.rsa(group))
                case .aead: decoded.append(.aead(try groups.decode(AEADGroupDecoder.self).group))
                case .indCPA: decoded.append(.indCPA(try groups.decode(IndCPAGroupDecoder.self).group))
                }
            }
            testGroups = decoded
        }
    }

    /// `source` in every v1 group: the generator's name and version.
    struct Source: Decodable {
        enum Keys: String, CodingKey, CaseIterable { case name, version }
        init(from decoder: Decoder) throws {
            let c = try decoder.strictContainer(Keys.self)
            _ = try c.decode(String.self, forKey: .name)
            _ = try c.decode(String.self, forKey: .version)
        }
    }

    /// rsa_common.json `PrivateKey`: the key as hex integers.
    struct RSAPrivateKeyFields: Decodable {
        let modulusHex: String
        enum Keys: String, CodingKey, CaseIterable {
            case modulus, privateExponent, publicExponent, prime1, prime2, exponent1, exponent2, coefficient
        }
        init(from decoder: Decoder) throws {
            let c = try decoder.strictContainer(Keys.self)
            for key in Keys.allCases { _ = try c.decodeHex(key) }
            let modulus = try c.decodeHex(.modulus).hexString.drop { $0 == "0" }
            modulusHex = modulus.isEmpty ? "0" : String(modulus)
        }
    }

    struct RSAGroupDecoder: Decodable {
        let group: RSAGroup
        enum Keys: String, CodingKey, CaseIterable {
            case type, source, keySize, sha, mgf, mgfSha, privateKey, privateKeyPkcs8, privateKeyPem, privateKeyJwk, tests
        }
        init(from decoder: Decoder) throws {
            let c = try decoder.strictContainer(Keys.self)
            let type = try c.decode(String.self, forKey: .type)
            let oaep: (String, String, String)?
            switch type {
            case "RsaesPkcs1Decrypt":
                for key in [Keys.sha, .mgf, .mgfSha] where c.contains(key) {
                    throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "a PKCS#1 v1.5 group has no \(key.stringValue)")
                }
                oaep = nil
            case "RsaesOaepDecrypt":
                oaep = (try c.decode(String.self, forKey: .sha), try c.decode(String.self, forKey: .mgf), try c.decode(String.self, forKey: .mgfSha))
            default:
                throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "group type '\(type)' is not an RSA decryption group")
            }
            _ = try c.decode(Source.self, forKey: .source)
            let fields = try c.decode(RSAPrivateKeyFields.self, forKey: .privateKey)
            group = RSAGroup(keySize: try c.decode(Int.self, forKey: .keySize),
                             privateKeyPKCS8: try c.decodeHex(.privateKeyPkcs8),
                             privateKeyPEM: try c.decode(String.self, forKey: .privateKeyPem),
                             modulusHex: fields.modulusHex, oaep: oaep,
                             tests: oaep == nil ? try c.decode([TestDecoder<PKCS1TestKeys>].self, forKey: .tests).map(\.test)
                                                : try c.decode([TestDecoder<OAEPTestKeys>].self, forKey: .tests).map(\.test))
        }
    }

    struct AEADGroupDecoder: Decodable {
        let group: AEADGroup
        enum Keys: String, CodingKey, CaseIterable { case type, source, ivSize, keySize, tagSize, tests }
        init(from decoder: Decoder) throws {
            let c = try decoder.strictContainer(Keys.self)
            try c.expectType("AeadTest")
            _ = try c.decode(Source.self, forKey: .source)
            group = AEADGroup(keySize: try c.decode(Int.self, forKey: .keySize), ivSize: try c.decode(Int.self, forKey: .ivSize),
                              tagSize: try c.decode(Int.self, forKey: .tagSize),
                              tests: try c.decode([TestDecoder<AEADTestKeys>].self, forKey: .tests).map(\.test))
        }
    }

    struct IndCPAGroupDecoder: Decodable {
        let group: IndCPAGroup
        enum Keys: String, CodingKey, CaseIterable { case type, source, ivSize, keySize, tests }
        init(from decoder: Decoder) throws {
            let c = try decoder.strictContainer(Keys.self)
            try c.expectType("IndCpaTest")
            _ = try c.decode(Source.self, forKey: .source)
            group = IndCPAGroup(keySize: try c.decode(Int.self, forKey: .keySize), ivSize: try c.decode(Int.self, forKey: .ivSize),
                                tests: try c.decode([TestDecoder<IndCPATestKeys>].self, forKey: .tests).map(\.test))
        }
    }

    /// The fields a test vector of each schema has: all of them required, no others allowed.
    protocol TestKeys: CodingKey, CaseIterable {}
    enum PKCS1TestKeys: String, TestKeys { case tcId, comment, flags, msg, ct, result }
    enum OAEPTestKeys: String, TestKeys { case tcId, comment, flags, msg, ct, label, result }
    enum AEADTestKeys: String, TestKeys { case tcId, comment, flags, key, iv, aad, msg, ct, tag, result }
    enum IndCPATestKeys: String, TestKeys { case tcId, comment, flags, key, iv, msg, ct, result }

    struct TestDecoder<Keys: TestKeys>: Decodable {
        let test: Test
        init(from decoder: Decoder) throws {
            // The tcId first, so that every later complaint about this vector can name it.
            let tcId = try decoder.container(keyedBy: AnyJSONKey.self).decode(Int.self, forKey: AnyJSONKey(stringValue: "tcId"))
            do {
                let c = try decoder.strictContainer(Keys.self)
                func hex(_ name: String) throws -> Data {
                    guard let key = Keys(stringValue: name) else { return Data() }  // not in this schema
                    return try c.decodeHex(key)
                }
                let resultKey = Keys(stringValue: "result")!
                let resultName = try c.decode(String.self, forKey: resultKey)
                guard let result = ExpectedResult(rawValue: resultName) else {
                    throw DecodingError.dataCorruptedError(forKey: resultKey, in: c,
                        debugDescription: "unknown result '\(resultName)' (valid, invalid or acceptable)")
                }
                test = Test(tcId: tcId, comment: try c.decode(String.self, forKey: Keys(stringValue: "comment")!),
                            flags: try c.decode([String].self, forKey: Keys(stringValue: "flags")!), result: result,
                            msg: try hex("msg"), ct: try hex("ct"), label: try hex("label"), key: try hex("key"),
                            iv: try hex("iv"), aad: try hex("aad"), tag: try hex("tag"))
            } catch let error as DecodingError {
                throw error.annotated("tcId \(tcId)")
            }
        }
    }
}

// MARK: - Strict decoding helpers

struct AnyJSONKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue; intValue = nil }
    init?(intValue: Int) { stringValue = String(intValue); self.intValue = intValue }
}

extension Decoder {
    /// A keyed container that refuses keys outside `Keys` (the schemas' `additionalProperties: false`).
    func strictContainer<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type) throws -> KeyedDecodingContainer<Keys> {
        let all = try container(keyedBy: AnyJSONKey.self)
        let known = Set(Keys.allCases.map(\.stringValue))
        let unknown = all.allKeys.map(\.stringValue).filter { !known.contains($0) }.sorted()
        if !unknown.isEmpty {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath,
                debugDescription: "unknown field\(unknown.count == 1 ? "" : "s") \(unknown.map { "'\($0)'" }.joined(separator: ", ")) (known: \(known.sorted().joined(separator: ", ")))"))
        }
        return try container(keyedBy: Keys.self)
    }
}

extension KeyedDecodingContainer {
    /// Wycheproof `HexBytes`: an even number of hex digits.
    func decodeHex(_ key: Key) throws -> Data {
        let text = try decode(String.self, forKey: key)
        guard let data = Data(hexString: text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not hex bytes: '\(text.prefix(40))'")
        }
        return data
    }

    func expectType(_ expected: String) throws {
        let key = Key(stringValue: "type")!
        let type = try decode(String.self, forKey: key)
        guard type == expected else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "group type '\(type)' where the schema has '\(expected)'")
        }
    }
}

extension DecodingError {
    /// The same error with `prefix` in front of its description (to name the tcId).
    func annotated(_ prefix: String) -> DecodingError {
        switch self {
        case let .dataCorrupted(context): return .dataCorrupted(context.prefixed(prefix))
        case let .keyNotFound(key, context):
            return .dataCorrupted(.init(codingPath: context.codingPath + [key], debugDescription: "\(prefix): required field is missing"))
        case let .typeMismatch(type, context): return .typeMismatch(type, context.prefixed(prefix))
        case let .valueNotFound(type, context): return .valueNotFound(type, context.prefixed(prefix))
        @unknown default: return self
        }
    }
}

extension DecodingError.Context {
    func prefixed(_ prefix: String) -> DecodingError.Context {
        .init(codingPath: codingPath, debugDescription: "\(prefix): \(debugDescription)", underlyingError: underlyingError)
    }
}
