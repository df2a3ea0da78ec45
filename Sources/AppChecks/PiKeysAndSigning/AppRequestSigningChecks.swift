import Foundation
import AppUnderTest
import Conformance
import WireCrypto

/// `RequestSigning`: the app signs requests over the canonical string its adapter states. With a
/// shared secret, the Pi computes HMAC (RFC 2104; FIPS 198-1) over the same string with the secret's
/// bytes and compares; with a key pair, it verifies the signature with the app's exported key.
/// PythonRef decides in `roundtrip.app_to_python`, `openssl dgst -mac HMAC` (or `-verify`) in
/// `vectors.app_to_openssl`. When the Pi's value differs, the checks look for the usual mistakes
/// and name the one that explains the app's value: another hash, the secret's text used as the key
/// instead of the bytes it encodes, another string signed, another signature encoding.
enum AppRequestSigningChecks {
    static let profile = "request-signing"
    static let hmacHashes: [String: Digest] = ["hmac-sha1": .sha1, "hmac-sha256": .sha256, "hmac-sha512": .sha512]
    static let secretEncodings: Set<String> = ["raw", "hex", "base64"]
    static let signatureEncodings: Set<String> = ["hex", "base64", "raw"]

    /// The requests each check signs: no body, a small JSON body, a larger one with a query.
    static func requests(_ context: SuiteContext, _ id: String) -> [(name: String, request: SignableRequest)] {
        let large = "{\"log\":\"" + context.bytes(600, for: "\(id).request-signing.large").base64EncodedString() + "\"}"
        return [
            ("get", SignableRequest(method: "GET", path: "/api/status", query: "", timestamp: "1767225600", nonce: "6f1c2a", body: Data())),
            ("post-json", SignableRequest(method: "POST", path: "/api/door/unlock", query: "", timestamp: "1767225601", nonce: "a90b17",
                                          body: Data("{\"door\":\"front\",\"seconds\":5}".utf8))),
            ("post-large", SignableRequest(method: "POST", path: "/api/logs", query: "since=2026-01-01&limit=50", timestamp: "1767225602", nonce: "0d44e3",
                                           body: Data(large.utf8))),
        ]
    }

    static func problem(_ scheme: RequestSigningScheme) -> String? {
        let isHMAC = hmacHashes[scheme.algorithm] != nil
        if !isHMAC, !AppKeyPairChecks.signatureAlgorithms.contains(scheme.algorithm) {
            return "the app's RequestSigningScheme algorithm '\(scheme.algorithm)' is not \(hmacHashes.keys.sorted().joined(separator: ", ")) or a MessageSigning signature name"
        }
        if isHMAC, !secretEncodings.contains(scheme.secretEncoding) {
            return "the app's RequestSigningScheme secretEncoding '\(scheme.secretEncoding)' is not raw, hex or base64"
        }
        if !signatureEncodings.contains(scheme.signatureEncoding) {
            return "the app's RequestSigningScheme signatureEncoding '\(scheme.signatureEncoding)' is not hex, base64 or raw"
        }
        if SignableRequest(method: "", path: "", query: "", timestamp: "", nonce: "", body: Data()).canonical(scheme.canonicalTemplate, bodySHA256: { Digest.sha256.hash($0) }) == nil {
            return "the app's canonicalTemplate '\(scheme.canonicalTemplate)' names a placeholder other than {method}, {path}, {query}, {timestamp}, {nonce}, {body}, {body-sha256-hex}, {body-sha256-base64}"
        }
        return nil
    }

    static func add(_ context: SuiteContext, _ app: AppSubject, _ toPython: inout Lists) {
        guard let scheme = app.read(RequestSigning.self, { $0.requestSigningScheme }) else { return }
        if let problem = problem(scheme) { toPython.unknown(profile, profile, problem); return }
        let id = app.identifier
        for (name, request) in requests(context, id) {
            toPython.add(profile, "\(profile).\(scheme.algorithm).\(name).python-verifies") {
                let signed = try sign(context, app, scheme, request)
                if try accepted(context, scheme, signed) { return .passed }
                throw CheckFailure(try diagnose(context, app, scheme, signed), details: signed.details)
            }
        }
        toPython.add(profile, "\(profile).\(scheme.algorithm).changed-request-refused") {
            // The Pi's check must fail for a request changed in any field the canonical string holds.
            let (_, original) = requests(context, id)[1]
            let signed = try sign(context, app, scheme, original)
            guard try accepted(context, scheme, signed) else {
                throw CheckFailure("control: the Pi does not accept \(id)'s signature on the unchanged request, so a changed one says nothing (see the python-verifies checks)")
            }
            for (field, changed) in changes(original, scheme.canonicalTemplate) {
                var forged = signed
                forged.request = changed
                if try accepted(context, scheme, forged) {
                    throw CheckFailure("the Pi accepted \(id)'s signature on a request whose \(field) was changed: the declared canonical string leaves it out")
                }
            }
            return .passed
        }
    }

    /// The request with each field the template names changed.
    static func changes(_ request: SignableRequest, _ template: String) -> [(String, SignableRequest)] {
        var out: [(String, SignableRequest)] = []
        var copy = request
        if template.contains("{method}") { copy = request; copy.method = "DELETE"; out.append(("method", copy)) }
        if template.contains("{path}") { copy = request; copy.path += "/all"; out.append(("path", copy)) }
        if template.contains("{query}") { copy = request; copy.query = "limit=9999"; out.append(("query", copy)) }
        if template.contains("{timestamp}") { copy = request; copy.timestamp = "1767229200"; out.append(("timestamp", copy)) }
        if template.contains("{nonce}") { copy = request; copy.nonce = "ffffff"; out.append(("nonce", copy)) }
        if template.contains("{body") { copy = request; copy.body = Data("{\"door\":\"back\",\"seconds\":5}".utf8); out.append(("body", copy)) }
        return out
    }

    /// One signature the app made, with what the Pi needs to check it.
    struct Signed {
        var request: SignableRequest
        let secret: Data
        let secretGiven: Data
        let written: Data
        let publicKey: Data

        var details: String {
            "request: \(request.method) \(request.path)\(request.query.isEmpty ? "" : "?" + request.query) timestamp \(request.timestamp) nonce \(request.nonce), "
                + "\(request.body.count)-byte body\nsecret given: \(Expect.preview(secretGiven))\nsignature written: \(Expect.preview(written))"
        }
    }

    static func sign(_ context: SuiteContext, _ app: AppSubject, _ scheme: RequestSigningScheme, _ request: SignableRequest) throws -> Signed {
        let isHMAC = hmacHashes[scheme.algorithm] != nil
        let secret = isHMAC ? context.bytes(32, for: "\(app.identifier).request-signing.secret.\(request.nonce)") : Data()
        let given: Data
        switch scheme.secretEncoding {
        case "hex": given = Data(secret.hexString.utf8)
        case "base64": given = Data(secret.base64EncodedString().utf8)
        default: given = secret
        }
        let written = try AppExpect.succeeds(app, "sign a \(request.method) \(request.path) request", function: scheme.appFunction) {
            try app.with(RequestSigning.self) { try $0.signRequest(request, secret: given) }
        }
        let publicKey = isHMAC ? Data() : try AppExpect.succeeds(app, "export its request-signing public key", function: scheme.appFunction) {
            try app.with(RequestSigning.self) { try $0.requestSigningPublicKey() }
        }
        return Signed(request: request, secret: secret, secretGiven: given, written: written, publicKey: publicKey)
    }

    static func canonical(_ request: SignableRequest, _ template: String) -> Data {
        request.canonical(template, bodySHA256: { Digest.sha256.hash($0) }) ?? Data()
    }

    static func decode(_ written: Data, _ encoding: String) -> Data? {
        switch encoding {
        case "hex": return Data(hexString: String(decoding: written, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        case "base64": return Data(base64Encoded: String(decoding: written, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        default: return written
        }
    }

    /// Whether the Pi accepts the signature as declared.
    static func accepted(_ context: SuiteContext, _ scheme: RequestSigningScheme, _ signed: Signed) throws -> Bool {
        guard let signature = decode(signed.written, scheme.signatureEncoding) else { return false }
        return try value(context, scheme.algorithm, key: signed.secret, publicKey: signed.publicKey, message: canonical(signed.request, scheme.canonicalTemplate), signature: signature)
    }

    /// True when `signature` is what the Pi computes (HMAC) or verifies (signatures) over `message`.
    static func value(_ context: SuiteContext, _ algorithm: String, key: Data, publicKey: Data, message: Data, signature: Data) throws -> Bool {
        if let digest = hmacHashes[algorithm] {
            return try AppKeyPairChecks.judged(context) { try $0.hmac(hash: digest.rawValue, key: key, message: message) } == signature
        }
        return try AppKeyPairChecks.judged(context) { try $0.verifySignature(algorithm: algorithm, publicKey: publicKey, message: message, signature: signature) }
    }

    /// What the app did instead, in words and with the fix.
    static func diagnose(_ context: SuiteContext, _ app: AppSubject, _ scheme: RequestSigningScheme, _ signed: Signed) throws -> String {
        let id = app.identifier
        let inFunction = scheme.appFunction.isEmpty ? "" : " (in \(scheme.appFunction))"
        // The mistake first (the terminal shows a message's first 200 characters), then where and what it did to the Pi.
        let head = "\(id)\(inFunction) "
        let rejected = " (the Pi rejects its \(scheme.algorithm) signature on a \(signed.request.method) \(signed.request.path) request)"
        let message = canonical(signed.request, scheme.canonicalTemplate)
        // Another signature encoding than declared.
        for other in signatureEncodings.sorted() where other != scheme.signatureEncoding {
            if let signature = decode(signed.written, other), !signature.isEmpty,
               (try? value(context, scheme.algorithm, key: signed.secret, publicKey: signed.publicKey, message: message, signature: signature)) == true {
                return head + "wrote a right signature as \(other), declared \(scheme.signatureEncoding)\(rejected): write it as the Pi reads it "
                    + (scheme.signatureEncoding == "hex" ? "(lowercase hex: map { String(format: \"%02x\", $0) }.joined())" : "")
            }
        }
        guard let signature = decode(signed.written, scheme.signatureEncoding) else {
            return head + "wrote a signature that is not \(scheme.signatureEncoding) text\(rejected)"
        }
        if let declared = hmacHashes[scheme.algorithm] {
            let textKey = signed.secretGiven != signed.secret ? [("the secret's \(scheme.secretEncoding) text", signed.secretGiven)] : []
            for (keyName, key) in [("the secret's bytes", signed.secret)] + textKey {
                for (name, digest) in hmacHashes.sorted(by: { $0.key < $1.key }) {
                    guard key != signed.secret || digest != declared else { continue }
                    if (try? value(context, name, key: key, publicKey: Data(), message: message, signature: signature)) == true {
                        if key != signed.secret {
                            return head + "used \(keyName) as the HMAC key (\(name)), not the \(signed.secret.count) bytes that text encodes\(rejected). Fix: decode the "
                                + "secret first (\(scheme.secretEncoding == "hex" ? "hex → Data" : "Data(base64Encoded:)")) and pass those bytes to CCHmac / "
                                + "SymmetricKey(data:); Data(secret.utf8) is the text, not the key (RFC 2104: the key is bytes)"
                        }
                        return head + "computed \(name.uppercased()), declared \(scheme.algorithm.uppercased())\(rejected): the Pi computes \(scheme.algorithm.uppercased()) and "
                            + "gets another value. Fix: use \(ccName(declared)) (CCHmac) or HMAC<\(kitName(declared))> (CryptoKit)"
                    }
                }
            }
        }
        for (what, variant) in wrongStrings(signed.request, scheme.canonicalTemplate) {
            let key = signed.secret
            if (try? value(context, scheme.algorithm, key: key, publicKey: signed.publicKey, message: variant, signature: signature)) == true {
                return head + "signed \(what) instead of the declared canonical string \(quoted(scheme.canonicalTemplate))\(rejected). Fix: build the string exactly as the Pi does, "
                    + "field by field in that order with those separators, and sign its UTF-8 bytes"
            }
        }
        return head + "signed so that the Pi rejects it\(rejected), and no usual mistake explains it (another hash, the secret's text as the key, another string, another encoding): compare the app's "
            + "canonical string with \(quoted(scheme.canonicalTemplate)) byte by byte, and check that the app signs with the secret it was given"
    }

    static func ccName(_ digest: Digest) -> String {
        switch digest {
        case .sha1: return "kCCHmacAlgSHA1"
        case .sha512: return "kCCHmacAlgSHA512"
        default: return "kCCHmacAlgSHA256"
        }
    }

    static func kitName(_ digest: Digest) -> String {
        switch digest {
        case .sha1: return "Insecure.SHA1"
        case .sha512: return "SHA512"
        default: return "SHA256"
        }
    }

    static func quoted(_ template: String) -> String {
        "\"" + template.replacingOccurrences(of: "\n", with: "\\n") + "\""
    }

    /// Strings an app signs by mistake, each described: a field alone, the template without one of
    /// its fields, the fields joined otherwise, a line break more or less at the end.
    static func wrongStrings(_ request: SignableRequest, _ template: String) -> [(String, Data)] {
        let right = canonical(request, template)
        var out: [(String, Data)] = [("the body alone", request.body), ("the path alone", Data(request.path.utf8)),
                                     ("the canonical string with a line break at the end", right + Data("\n".utf8))]
        if right.last == 0x0a { out.append(("the canonical string without its final line break", right.dropLast())) }
        // The template's placeholders, in order, and the separators between them.
        var names: [String] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[open...close]))
            rest = rest[rest.index(after: close)...]
        }
        for separator in ["", "\n", "&", "|", ":"] {
            let joined = names.joined(separator: separator)
            if joined != template { out.append(("the fields joined with \(separator.isEmpty ? "nothing" : quoted(separator))", canonical(request, joined))) }
        }
        for (index, name) in names.enumerated() where names.count > 1 {
            // The template with one placeholder and the separator after it (or before it, for the last) removed.
            guard let range = template.range(of: name) else { continue }
            var reduced = template
            if index < names.count - 1, let next = template.range(of: names[index + 1], range: range.upperBound..<template.endIndex) {
                reduced.removeSubrange(range.lowerBound..<next.lowerBound)
            } else if index > 0, let previous = template.range(of: names[index - 1], options: .backwards, range: template.startIndex..<range.lowerBound) {
                reduced.removeSubrange(previous.upperBound..<range.upperBound)
            }
            out.append(("the canonical string without \(name)", canonical(request, reduced)))
        }
        if template.contains("{body-sha256-hex}") {
            out.append(("the body itself where its SHA-256 hex belongs", canonical(request, template.replacingOccurrences(of: "{body-sha256-hex}", with: "{body}"))))
        }
        if template.contains("{body}") {
            out.append(("the body's SHA-256 hex where the body belongs", canonical(request, template.replacingOccurrences(of: "{body}", with: "{body-sha256-hex}"))))
        }
        return out.filter { $0.1 != right }
    }

    // MARK: openssl

    /// `vectors.app_to_openssl`: `openssl dgst -<hash> -mac HMAC -macopt hexkey:…` over the
    /// canonical string gives the app's HMAC; for signatures, `openssl dgst -verify` accepts it.
    static func addOpenSSL(_ context: SuiteContext, _ app: AppSubject, _ toCLI: inout Lists, openssl: Result<OpenSSLTool, OpenSSLToolError>) {
        guard let scheme = app.read(RequestSigning.self, { $0.requestSigningScheme }), problem(scheme) == nil else { return }
        let id = app.identifier
        toCLI.add(AppVectorChecks.profileName, "\(profile).\(scheme.algorithm).openssl-agrees") {
            let tool: OpenSSLTool
            do { tool = try openssl.get() } catch { throw CheckFailure("cannot run the openssl command line: \(error)") }
            let scratch = try Scratch()
            defer { scratch.remove() }
            let (_, request) = requests(context, id)[1]
            let signed = try sign(context, app, scheme, request)
            guard let signature = decode(signed.written, scheme.signatureEncoding) else {
                throw CheckFailure("\(id) wrote a signature that is not \(scheme.signatureEncoding) text", details: signed.details)
            }
            try canonical(request, scheme.canonicalTemplate).write(to: scratch.file("canonical.bin"))
            if let digest = hmacHashes[scheme.algorithm] {
                let command = ["dgst", "-\(digest.rawValue.lowercased())", "-mac", "HMAC", "-macopt", "hexkey:\(signed.secret.hexString)", "canonical.bin"]
                let outcome = try tool.batch([command], in: scratch.directory)[0]
                let printed = String(decoding: outcome.stdout, as: UTF8.self)
                guard outcome.succeeded, let hex = printed.split(separator: " ").last.map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }), let mac = Data(hexString: hex) else {
                    throw CheckFailure("'openssl \(command.joined(separator: " "))' did not compute an HMAC (exit \(outcome.status))", details: printed + outcome.stderr)
                }
                guard mac == signature else {
                    throw CheckFailure(try diagnose(context, app, scheme, signed),
                                       details: "openssl dgst -mac HMAC over the declared canonical string: \(mac.hexString)\napp: \(signature.hexString)\n" + signed.details)
                }
                return .passed
            }
            let (pem, der) = try AppKeyPairChecks.judged(context) { try $0.opensslSignatureInputs(algorithm: scheme.algorithm, publicKey: signed.publicKey, signature: signature) }
            try pem.write(to: scratch.file("app-public.pem"))
            try der.write(to: scratch.file("signature.der"))
            let command = ["dgst", "-\(AppKeyPairChecks.digest(scheme.algorithm))", "-verify", "app-public.pem", "-signature", "signature.der"]
                + AppKeyPairChecks.pssOptions(scheme.algorithm) + ["canonical.bin"]
            let outcome = try tool.batch([command], in: scratch.directory)[0]
            guard outcome.succeeded, String(decoding: outcome.stdout, as: UTF8.self).contains("Verified OK") else {
                throw CheckFailure(try diagnose(context, app, scheme, signed),
                                   details: "'openssl \(command.joined(separator: " "))' did not verify it over the declared canonical string (exit \(outcome.status))\n" + signed.details)
            }
            return .passed
        }
    }
}
