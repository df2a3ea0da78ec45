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
        case ecdsaVerify = "ecdsa_verify_schema_v1.json"
        case ecdsaP1363Verify = "ecdsa_p1363_verify_schema_v1.json"
        case eddsaVerify = "eddsa_verify_schema_v1.json"
        case rsassaPKCS1Verify = "rsassa_pkcs1_verify_schema_v1.json"
        case rsassaPSSVerify = "rsassa_pss_verify_schema_v1.json"
        case ecdh = "ecdh_test_schema_v1.json"
        case ecdhECPoint = "ecdh_ecpoint_test_schema_v1.json"
        case xdh = "xdh_comp_schema_v1.json"
        case hkdf = "hkdf_test_schema_v1.json"

        /// The group `type` each schema's groups carry.
        var groupType: String {
            switch self {
            case .rsaesPKCS1Decrypt: return "RsaesPkcs1Decrypt"
            case .rsaesOAEPDecrypt: return "RsaesOaepDecrypt"
            case .aead: return "AeadTest"
            case .indCPA: return "IndCpaTest"
            case .ecdsaVerify: return "EcdsaVerify"
            case .ecdsaP1363Verify: return "EcdsaP1363Verify"
            case .eddsaVerify: return "EddsaVerify"
            case .rsassaPKCS1Verify: return "RsassaPkcs1Verify"
            case .rsassaPSSVerify: return "RsassaPssVerify"
            case .ecdh: return "EcdhTest"
            case .ecdhECPoint: return "EcdhEcpointTest"
            case .xdh: return "XdhComp"
            case .hkdf: return "HkdfTest"
            }
        }
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
        /// Signature files: the signature of `msg`.
        public let sig: Data
        /// Key agreement files: the peer's public key (`public`), ours (`private`), the secret (`shared`).
        public let publicKey: Data
        public let privateKey: Data
        public let shared: Data
        /// HKDF files: input keying material, salt, info, output size in bytes, output.
        public let ikm: Data
        public let salt: Data
        public let info: Data
        public let size: Int
        public let okm: Data
    }

    public enum Group: Sendable {
        case rsa(RSAGroup)
        case aead(AEADGroup)
        case indCPA(IndCPAGroup)
        case signature(SignatureGroup)
        case keyAgreement(KeyAgreementGroup)
        case hkdf(HKDFGroup)

        public var tests: [Test] {
            switch self {
            case let .rsa(group): return group.tests
            case let .aead(group): return group.tests
            case let .indCPA(group): return group.tests
            case let .signature(group): return group.tests
            case let .keyAgreement(group): return group.tests
            case let .hkdf(group): return group.tests
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

    /// A signature verification group: one public key, its hash (and PSS parameters), as the file
    /// spells them ("SHA-256", "MGF1"); which scheme follows from the file's schema.
    public struct SignatureGroup: Sendable {
        public let schema: Schema
        /// SubjectPublicKeyInfo DER (`publicKeyDer`).
        public let publicKeyDER: Data
        /// EC: the curve ("secp256r1"); Ed25519: "edwards25519"; RSA: nil.
        public let curve: String?
        /// EC: 04‖X‖Y; Ed25519: its 32 bytes; RSA: empty.
        public let publicKeyRaw: Data
        public let sha: String?
        public let pss: (mgf: String, mgfSha: String, saltLength: Int)?
        public let tests: [Test]
    }

    /// An ECDH or XDH group: the curve, and how each test's `public` is encoded.
    public struct KeyAgreementGroup: Sendable {
        public let curve: String
        public let encoding: PeerKeyEncoding
        public let tests: [Test]
    }

    /// An HKDF group; the hash is the file's algorithm ("HKDF-SHA-256").
    public struct HKDFGroup: Sendable {
        public let keySize: Int
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
                case .ecdsaVerify, .ecdsaP1363Verify, .eddsaVerify, .rsassaPKCS1Verify, .rsassaPSSVerify:
                    decoded.append(.signature(try groups.decode(SignatureGroupDecoder.self).group(schema, at: Self.groupPath(groups))))
                case .ecdh, .ecdhECPoint, .xdh:
                    decoded.append(.keyAgreement(try groups.decode(KeyAgreementGroupDecoder.self).group(schema, at: Self.groupPath(groups))))
                case .hkdf: decoded.append(.hkdf(try groups.decode(HKDFGroupDecoder.self).group))
                }
            }
            testGroups = decoded
        }

        /// Where the group just decoded sits, for a complaint about it.
        private static func groupPath(_ groups: UnkeyedDecodingContainer) -> [CodingKey] {
            [Keys.testGroups, AnyJSONKey(intValue: groups.currentIndex - 1)!]
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

    /// Signature groups of every schema: the union of their fields; `group(_:)` checks each
    /// schema's required ones and refuses fields of another schema.
    struct SignatureGroupDecoder: Decodable {
        let type: String
        let publicKeyDER: Data
        let publicKey: PublicKeyFields
        let present: Set<String>
        let sha: String?, mgf: String?, mgfSha: String?, sLen: Int?
        let tests: [Test]
        enum Keys: String, CodingKey, CaseIterable {
            case type, source, publicKey, publicKeyDer, publicKeyPem, publicKeyJwk, publicKeyAsn, keyJwk, keySize, sha, mgf, mgfSha, sLen, tests
        }
        init(from decoder: Decoder) throws {
            let c = try decoder.strictContainer(Keys.self)
            type = try c.decode(String.self, forKey: .type)
            _ = try c.decode(Source.self, forKey: .source)
            present = Set(c.allKeys.map(\.stringValue))
            publicKeyDER = try c.decodeHex(.publicKeyDer)
            publicKey = try c.decode(PublicKeyFields.self, forKey: .publicKey)
            _ = try c.decode(String.self, forKey: .publicKeyPem)
            _ = try c.decodeIfPresent([String: String].self, forKey: .publicKeyJwk)
            _ = try c.decodeIfPresent([String: String].self, forKey: .keyJwk)
            if c.contains(.publicKeyAsn) { _ = try c.decodeHex(.publicKeyAsn) }
            _ = try c.decodeIfPresent(Int.self, forKey: .keySize)
            sha = try c.decodeIfPresent(String.self, forKey: .sha)
            mgf = try c.decodeIfPresent(String.self, forKey: .mgf)
            mgfSha = try c.decodeIfPresent(String.self, forKey: .mgfSha)
            sLen = try c.decodeIfPresent(Int.self, forKey: .sLen)
            tests = try c.decode([TestDecoder<SignatureTestKeys>].self, forKey: .tests).map(\.test)
        }

        func group(_ schema: Schema, at path: [CodingKey]) throws -> SignatureGroup {
            func refuse(_ reason: String) -> DecodingError { .dataCorrupted(.init(codingPath: path, debugDescription: reason)) }
            guard type == schema.groupType else { throw refuse("group type '\(type)' where the schema has '\(schema.groupType)'") }
            let pssFields: Set<String> = ["mgf", "mgfSha", "sLen"]
            switch schema {
            case .rsassaPSSVerify:
                guard let mgf, let mgfSha, let sLen, sha != nil else { throw refuse("an RSA-PSS group needs sha, mgf, mgfSha and sLen") }
                return SignatureGroup(schema: schema, publicKeyDER: publicKeyDER, curve: nil, publicKeyRaw: Data(), sha: sha,
                                      pss: (mgf, mgfSha, sLen), tests: tests)
            case .rsassaPKCS1Verify:
                guard sha != nil, present.isDisjoint(with: pssFields) else { throw refuse("a PKCS#1 v1.5 group has sha and no PSS parameters") }
                return SignatureGroup(schema: schema, publicKeyDER: publicKeyDER, curve: nil, publicKeyRaw: Data(), sha: sha, pss: nil, tests: tests)
            case .eddsaVerify:
                guard sha == nil, present.isDisjoint(with: pssFields), let curve = publicKey.curve else {
                    throw refuse("an EdDSA group has a curve, no hash and no PSS parameters")
                }
                return SignatureGroup(schema: schema, publicKeyDER: publicKeyDER, curve: curve, publicKeyRaw: publicKey.raw, sha: nil, pss: nil, tests: tests)
            default:
                guard sha != nil, present.isDisjoint(with: pssFields), let curve = publicKey.curve else {
                    throw refuse("an ECDSA group has sha, a curve and no PSS parameters")
                }
                return SignatureGroup(schema: schema, publicKeyDER: publicKeyDER, curve: curve, publicKeyRaw: publicKey.raw, sha: sha, pss: nil, tests: tests)
            }
        }
    }

    /// `publicKey` of a signature group: EC (curve, point), EdDSA (curve, pk) or RSA (modulus, exponent).
    struct PublicKeyFields: Decodable {
        let curve: String?
        let raw: Data
        enum Keys: String, CodingKey, CaseIterable { case type, curve, keySize, uncompressed, wx, wy, pk, modulus, publicExponent }
        init(from decoder: Decoder) throws {
            let c = try decoder.strictContainer(Keys.self)
            _ = try c.decodeIfPresent(String.self, forKey: .type)
            _ = try c.decodeIfPresent(Int.self, forKey: .keySize)
            curve = try c.decodeIfPresent(String.self, forKey: .curve)
            for key in [Keys.wx, .wy, .modulus, .publicExponent] where c.contains(key) { _ = try c.decodeHex(key) }
            raw = c.contains(.uncompressed) ? try c.decodeHex(.uncompressed) : c.contains(.pk) ? try c.decodeHex(.pk) : Data()
        }
    }

    struct KeyAgreementGroupDecoder: Decodable {
        let type: String, curve: String, encoding: String?
        let tests: [Test]
        enum Keys: String, CodingKey, CaseIterable { case type, source, curve, encoding, tests }
        init(from decoder: Decoder) throws {
            let c = try decoder.strictContainer(Keys.self)
            type = try c.decode(String.self, forKey: .type)
            _ = try c.decode(Source.self, forKey: .source)
            curve = try c.decode(String.self, forKey: .curve)
            encoding = try c.decodeIfPresent(String.self, forKey: .encoding)
            tests = try c.decode([TestDecoder<KeyAgreementTestKeys>].self, forKey: .tests).map(\.test)
        }

        func group(_ schema: Schema, at path: [CodingKey]) throws -> KeyAgreementGroup {
            func refuse(_ reason: String) -> DecodingError { .dataCorrupted(.init(codingPath: path, debugDescription: reason)) }
            guard type == schema.groupType else { throw refuse("group type '\(type)' where the schema has '\(schema.groupType)'") }
            let expected: (String?, PeerKeyEncoding) = schema == .ecdh ? ("asn", .spkiDER) : schema == .ecdhECPoint ? ("ecpoint", .x962) : (nil, .raw)
            guard encoding == expected.0 else { throw refuse("encoding '\(encoding ?? "none")' in a \(type) group (expected \(expected.0 ?? "none"))") }
            return KeyAgreementGroup(curve: curve, encoding: expected.1, tests: tests)
        }
    }

    struct HKDFGroupDecoder: Decodable {
        let group: HKDFGroup
        enum Keys: String, CodingKey, CaseIterable { case type, source, keySize, tests }
        init(from decoder: Decoder) throws {
            let c = try decoder.strictContainer(Keys.self)
            try c.expectType("HkdfTest")
            _ = try c.decode(Source.self, forKey: .source)
            group = HKDFGroup(keySize: try c.decode(Int.self, forKey: .keySize),
                              tests: try c.decode([TestDecoder<HKDFTestKeys>].self, forKey: .tests).map(\.test))
        }
    }

    /// The fields a test vector of each schema has: all of them required, no others allowed.
    protocol TestKeys: CodingKey, CaseIterable {}
    enum PKCS1TestKeys: String, TestKeys { case tcId, comment, flags, msg, ct, result }
    enum OAEPTestKeys: String, TestKeys { case tcId, comment, flags, msg, ct, label, result }
    enum AEADTestKeys: String, TestKeys { case tcId, comment, flags, key, iv, aad, msg, ct, tag, result }
    enum IndCPATestKeys: String, TestKeys { case tcId, comment, flags, key, iv, msg, ct, result }
    enum SignatureTestKeys: String, TestKeys { case tcId, comment, flags, msg, sig, result }
    enum KeyAgreementTestKeys: String, TestKeys { case tcId, comment, flags, `public`, `private`, shared, result }
    enum HKDFTestKeys: String, TestKeys { case tcId, comment, flags, ikm, salt, info, size, okm, result }

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
                            iv: try hex("iv"), aad: try hex("aad"), tag: try hex("tag"), sig: try hex("sig"),
                            publicKey: try hex("public"), privateKey: try hex("private"), shared: try hex("shared"),
                            ikm: try hex("ikm"), salt: try hex("salt"), info: try hex("info"),
                            size: try Keys(stringValue: "size").map { try c.decode(Int.self, forKey: $0) } ?? 0, okm: try hex("okm"))
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
