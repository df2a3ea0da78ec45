import Foundation
import Conformance
import Transport
import WireCrypto

/// A scan judged by `ATSPolicy` where ATS governs the name (`ATSScope`, testcase `scope.ats-governs`)
/// and by the app's trust evaluation everywhere: one testcase per finding in `ats.<host:port>` and
/// the verdict `verdict.default-policy`, which fails when iOS would refuse the connection and says
/// which kind of rule refused it: ATS's (with the Info.plist exception keys that would relax it) or
/// the trust evaluation's (which no key relaxes: the certificate must be reissued).
///
/// Outcomes: a finding that refuses is a failure; an ATS rule on a name ATS does not govern is a
/// skipped testcase starting `not governed:`; one iOS never meets by default (TLS 1.0 accepted
/// beside 1.2, a suite iOS does not offer) is a skipped testcase starting `weakness:`, as in
/// `crosscheck remote`'s audit; everything else passes. The verdict fails exactly when a finding does.
public enum ATSChecks {
    public static let classname = "crosscheck.aes-https.ats"

    /// Scans `target` and judges it; never throws: a server that cannot be probed is an error testcase.
    /// The same checks under another classname: a described protocol's, `crosscheck.described.<name>.ats`.
    public static func run(_ target: ServerAddress, options: ATSOptions, classname: String, shouldStop: () -> Bool = { false }) -> [CheckResult] {
        run(target, options: options, shouldStop: shouldStop).map { result in
            let outcome = result.outcome
            let check = Check(suite: result.check.suite, classname: classname, name: result.check.name, properties: result.check.properties) { outcome }
            return CheckResult(check: check, outcome: outcome, duration: result.duration)
        }
    }

    public static func run(_ target: ServerAddress, options: ATSOptions, shouldStop: () -> Bool = { false }) -> [CheckResult] {
        let suite = "ats.\(target)"
        var anchors: [X509Certificate]?
        if let pin = options.pin {
            do { anchors = try loadPin(pin) } catch {
                return [result(suite, "verdict.default-policy", .error(message: "\(error)", details: ""), seconds: 0)]
            }
        }
        let start = Date()
        let scan: ATSScan
        do {
            scan = try ATSScan.run(target, serverName: options.serverName ?? target.host, timeout: options.timeout, shouldStop: shouldStop)
        } catch {
            if shouldStop() { return [] }  // a probe cut short by the interruption says nothing about the server
            return [result(suite, "verdict.default-policy", .error(message: "\(error)", details: ""), seconds: Date().timeIntervalSince(start))]
        }
        // Interrupted: what was probed is incomplete, and a verdict on it could be wrong; the report says partial.
        if shouldStop() { return [] }
        return judge(scan, anchors: anchors, now: options.now, iosMajor: options.iosMajor)
    }

    /// The certificates in the PEM file the app bundles (its pin).
    public static func loadPin(_ path: String) throws -> [X509Certificate] {
        guard let data = FileManager.default.contents(atPath: path) else { throw ATSError.unreadablePin(path: path, reason: "no readable file there") }
        let certificates: [X509Certificate]
        do { certificates = try X509Certificate.all(inPEM: data) } catch {
            throw ATSError.unreadablePin(path: path, reason: "\(error)")
        }
        guard !certificates.isEmpty else { throw ATSError.unreadablePin(path: path, reason: "no CERTIFICATE PEM block in it") }
        return certificates
    }

    /// Judges what a scan found. `anchors`: the app's pinned certificates (nil: the system's roots).
    public static func judge(_ scan: ATSScan, anchors: [X509Certificate]?, now: Date, iosMajor: Int = ATSScope.currentIOS) -> [CheckResult] {
        let scope = ATSScope(name: scan.serverName, iosMajor: iosMajor)
        var judgement = Judgement(suite: "ats.\(scan.target)", scope: scope)
        let scopeProperties = ["name": scope.name, "ios": String(iosMajor), "ats-governs": scope.governed ? "yes" : "no", "rule": scope.rule]
        if scope.governed {
            judgement.add("scope.ats-governs", .passed, seconds: 0, properties: scopeProperties)
        } else {
            judgement.add("scope.ats-governs", .skipped(reason: "note: ATS does not govern \(scope.name) on iOS \(iosMajor) — \(scope.rule); its TLS version and suite rules are reported, not applied; the app's trust evaluation still applies"),
                          seconds: 0, properties: scopeProperties)
        }
        judgeVersions(scan, &judgement)
        judgeSuites(scan, &judgement)
        judgeCertificate(scan, anchors: anchors, now: now, &judgement)
        judgement.verdict(name: scan.serverName)
        return judgement.results
    }

    // MARK: versions

    private static func judgeVersions(_ scan: ATSScan, _ judgement: inout Judgement) {
        let accepted = scan.acceptedVersions
        let modern = accepted.filter { $0 >= ATSPolicy.minimumVersion }
        for probe in scan.versions {
            let name = "protocol.\(probe.version.slug)"
            var properties = ["accepted": probe.accepted == nil ? "no" : "yes"]
            if let facts = probe.accepted { properties["chosen-suite"] = facts.cipher.standardName }
            if let unreachable = probe.unreachable {
                judgement.add(name, .error(message: "could not offer \(probe.version.rawValue) to \(scan.target): \(unreachable)", details: ""),
                              seconds: probe.seconds, properties: properties)
            } else if probe.accepted != nil, probe.version < ATSPolicy.minimumVersion {
                judgement.add(name, .skipped(reason: "weakness: accepts \(probe.version.rawValue), which iOS does not use by default (ATS needs TLS 1.2 or later); other clients can be downgraded to it"),
                              seconds: probe.seconds, properties: properties)
            } else if probe.accepted == nil, probe.version == ATSPolicy.minimumVersion, modern.isEmpty {
                let rule: String
                let exception: ATSPolicy.Exception?
                if let highest = accepted.max() {
                    rule = "accepts neither TLS 1.2 nor TLS 1.3 (its highest version is \(highest.rawValue)): ATS needs TLS 1.2 or later"
                    exception = .minimumTLSVersion(highest)
                } else {
                    rule = "completed no TLS handshake at any version from TLS 1.0 to 1.3: is it a TLS server, on this port?"
                    exception = nil
                }
                judgement.refuseATS(name, rule: rule, exception: exception, seconds: probe.seconds, properties: properties)
            } else {
                judgement.add(name, .passed, seconds: probe.seconds, properties: properties)
            }
        }
    }

    // MARK: cipher suites

    private static func judgeSuites(_ scan: ATSScan, _ judgement: inout Judgement) {
        let accepted = scan.acceptedVersions
        for version in accepted {
            let suites = scan.suites[version] ?? []
            let seconds = (scan.suiteSeconds[version] ?? 0) / Double(max(suites.count, 1))
            for suite in suites {
                let status = ATSPolicy.status(of: suite, at: version)
                let properties = ["standard-name": suite.standardName, "key-exchange": suite.keyExchange,
                                  "forward-secrecy": suite.forwardSecrecy ? "yes" : "no", "mode": suite.aead ? "AEAD" : "CBC",
                                  "ats": version < ATSPolicy.minimumVersion ? "below TLS 1.2" : status.rawValue]
                let name = "cipher.\(version.slug).\(suite.openSSLName)"
                let described = "\(suite.standardName) (\(suite.keyExchange) key exchange, \(suite.forwardSecrecy ? "forward secrecy" : "no forward secrecy"), \(suite.aead ? "AEAD" : "CBC"))"
                if version < ATSPolicy.minimumVersion {
                    judgement.add(name, .skipped(reason: "weakness: \(described) at \(version.rawValue), below what ATS allows by default"),
                                  seconds: seconds, properties: properties)
                } else if status == .allowed || !isWeak(suite) {
                    // A strong suite iOS happens not to offer (DHE, ECDHE with CBC-SHA256) costs the app nothing.
                    judgement.add(name, .passed, seconds: seconds, properties: properties)
                } else {
                    judgement.add(name, .skipped(reason: "weakness: \(described): \(status.rawValue)"), seconds: seconds, properties: properties)
                }
            }
        }
        // The versions iOS would negotiate: 1.2 and later, or (with NSExceptionMinimumTLSVersion) the highest.
        let modern = accepted.filter { $0 >= ATSPolicy.minimumVersion }
        let considered = modern.isEmpty ? Array(accepted.suffix(1)) : modern
        let name = "cipher-suites.default-policy"
        guard !considered.isEmpty else {
            judgement.add(name, .skipped(reason: "not judged: no TLS handshake completed"), seconds: 0)
            return
        }
        let statuses = considered.flatMap { version in (scan.suites[version] ?? []).map { (version, $0, ATSPolicy.status(of: $0, at: version)) } }
        let listed = statuses.map { "\($0.1.standardName) (\($0.0.rawValue))" }.joined(separator: ", ")
        if let usable = statuses.first(where: { $0.2 == .allowed }) {
            judgement.add(name, .passed, seconds: 0, properties: ["ios-would-use": usable.1.standardName])
        } else if statuses.contains(where: { $0.2 == .needsForwardSecrecyException }) {
            judgement.refuseATS(name, rule: "accepts no cipher suite with forward secrecy that ATS allows (it accepts \(listed))",
                                exception: .noForwardSecrecy, seconds: 0)
        } else {
            judgement.refuseATS(name, rule: "accepts none of the cipher suites of ATS's groups (it accepts \(listed)); no Info.plist key adds suites",
                                exception: nil, seconds: 0)
        }
    }

    /// No forward secrecy, or a broken cipher or MAC (RC4, DES, 3DES, NULL, export, MD5, anonymous).
    static func isWeak(_ suite: TLSCipherSuite) -> Bool {
        !suite.forwardSecrecy || ["RC4", "DES", "NULL", "EXPORT", "_MD5", "anon"].contains { suite.standardName.contains($0) }
    }

    // MARK: certificate

    /// The certificate rules are the app's trust evaluation's, not ATS's: `SecTrustEvaluate` with
    /// the SSL server policy (seed 002's pinning delegate; the system's own evaluation otherwise)
    /// applies them on every name, and no Info.plist key relaxes them. Sources (apple-oss-distributions/Security):
    /// `OSX/sec/Security/SecPolicy.c` `SecPolicyCreateSSL_internal` (server: `SecPolicyAddStrongKeySizeOptions`
    /// RSA ≥ 2048 / EC ≥ 256, `SecPolicyRemoveWeakHashOptions` no MD2/MD4/MD5/SHA-1, `set_ssl_validity_periods`,
    /// `kSecPolicyCheckServerAuthEKU`, `set_ssl_ekus`, no key usage for `SecPolicyCreateSSL`) and
    /// `trust/trustd/SecPolicyServer.c` (`SecPolicyCheckKeySize`: every certificate of the path;
    /// `SecPolicyCheckSignatureHashAlgorithms`: self-signed certificates skipped;
    /// `SecPolicyCheckServerAuthEKU`: a leaf issued after 1 July 2019 under an app or system anchor
    /// needs the serverAuth EKU; `SecPolicyCheckValidityPeriodMaximums`: 825 days for app anchors);
    /// Apple support article HT210176 says the same for iOS 13 and later.
    private static func judgeCertificate(_ scan: ATSScan, anchors: [X509Certificate]?, now: Date, _ judgement: inout Judgement) {
        let names = ["certificate.key", "certificate.signature-hash", "certificate.subject-alt-name", "certificate.server-auth-eku",
                     "certificate.validity-period", "certificate.expiry", "certificate.trust"]
        guard let leaf = scan.chain.first else {
            for name in names { judgement.add(name, .skipped(reason: "not judged: no TLS handshake completed, so no certificate was seen"), seconds: 0) }
            return
        }
        let reissue = "reissue the certificate (e.g. `python3 -m pythonref server-cert --host \(scan.serverName)`) and ship the new one in the app"
        // Trust alone: judged at a moment inside the leaf's validity, since expiry is its own testcase.
        let moment = min(max(now, leaf.notBefore ?? now), leaf.notAfter ?? now)
        let verification = try? X509ChainVerifier.verify(leaf: leaf, intermediates: Array(scan.chain.dropFirst()), anchors: anchors ?? [],
                                                         systemRoots: anchors == nil,
                                                         policy: X509VerificationPolicy(hostname: nil, purpose: .none, verifyDate: moment))
        // Every certificate of the path SecTrust builds (the anchor too) when it verifies; else what the server sent.
        let path = verification?.verified == true ? verification?.chain ?? scan.chain : scan.chain
        func label(_ index: Int, _ certificate: X509Certificate) -> String {
            index == 0 ? "the server certificate" : (certificate.isSelfIssued ? "the root (anchor) #\(index)" : "issuing CA #\(index)")
        }

        let weakKeys = path.enumerated().compactMap { index, certificate -> String? in
            let bits = certificate.publicKeyBits, algorithm = certificate.publicKeyAlgorithm
            let strong = (algorithm == "RSA" && bits >= AppleServerCertificateRules.minimumRSABits)
                || (algorithm == "EC" && bits >= AppleServerCertificateRules.minimumECBits)
            return strong ? nil : "\(label(index, certificate)) has a \(algorithm) \(bits)-bit key"
        }
        let keyProperties = ["key": "\(leaf.publicKeyAlgorithm) \(leaf.publicKeyBits)"]
        if weakKeys.isEmpty { judgement.add(names[0], .passed, seconds: 0, properties: keyProperties) } else {
            judgement.refuseTrust(names[0], rule: weakKeys.joined(separator: "; ") + ": the SSL policy needs RSA keys of 2048 bits or more, or EC keys of 256 bits or more, on every certificate (SecPolicyCheckKeySize)",
                                  fix: reissue, seconds: 0, properties: keyProperties)
        }

        // A self-signed certificate's own signature is not judged (SecPolicyCheckSignatureHashAlgorithms skips it).
        let weakHashes = path.enumerated().compactMap { index, certificate -> String? in
            if certificate.isSelfIssued, index > 0 || path.count == 1 { return nil }
            let digest = certificate.signatureDigestName?.uppercased() ?? "unknown"
            return ATSPolicy.acceptedSignatureDigests.contains(digest) ? nil : "\(label(index, certificate)) is signed with \(digest)"
        }
        let hashProperties = ["signature-hash": leaf.signatureDigestName ?? "unknown"]
        if weakHashes.isEmpty { judgement.add(names[1], .passed, seconds: 0, properties: hashProperties) } else {
            judgement.refuseTrust(names[1], rule: weakHashes.joined(separator: "; ") + ": the SSL policy refuses MD5 and SHA-1 signatures (SecPolicyRemoveWeakHashOptions)",
                                  fix: reissue, seconds: 0, properties: hashProperties)
        }

        let altNames = leaf.subjectAltNames
        let sanProperties = ["subject-alt-names": altNames.isEmpty ? "none" : altNames.joined(separator: ", "), "name": scan.serverName]
        if leaf.subjectAltNameMatches(scan.serverName) { judgement.add(names[2], .passed, seconds: 0, properties: sanProperties) } else {
            let found = altNames.isEmpty
                ? "has no subjectAltName (its common name \(leaf.subjectValues(.commonName).first.map { "'\($0)'" } ?? "is empty and") is not consulted since iOS 13)"
                : "names \(altNames.joined(separator: ", ")) in subjectAltName"
            judgement.refuseTrust(names[2], rule: "the certificate \(found), not '\(scan.serverName)', the name the app connects to",
                                  fix: reissue, seconds: 0, properties: sanProperties)
        }

        let strictRules = (leaf.notBefore ?? .distantPast) > AppleServerCertificateRules.strictRulesStart
        if leaf.hasExtendedKeyUsage, !leaf.extendedKeyUsageAllowsTLSServer {
            judgement.refuseTrust(names[3], rule: "the certificate's extended key usage has neither serverAuth nor anyExtendedKeyUsage (set_ssl_ekus)",
                                  fix: reissue, seconds: 0)
        } else if strictRules, !leaf.hasServerAuthExtendedKeyUsage {
            judgement.refuseTrust(names[3], rule: "the certificate, issued after 1 July 2019, has no extended key usage extension with serverAuth (SecPolicyCheckServerAuthEKU)",
                                  fix: reissue, seconds: 0)
        } else {
            judgement.add(names[3], .passed, seconds: 0, properties: ["server-auth-eku": leaf.hasServerAuthExtendedKeyUsage ? "yes" : "absent (issued before 1 July 2019)"])
        }

        guard let notBefore = leaf.notBefore, let notAfter = leaf.notAfter else {
            judgement.refuseTrust(names[4], rule: "the certificate's validity dates cannot be read", fix: reissue, seconds: 0)
            judgement.add(names[5], .skipped(reason: "not judged: no readable validity dates"), seconds: 0)
            judgement.add(names[6], .skipped(reason: "not judged: no readable validity dates"), seconds: 0)
            return
        }
        let validityDays = Int((notAfter.timeIntervalSince(notBefore) / 86_400).rounded(.down))
        let validityProperties = ["validity-days": String(validityDays), "not-before": iso(notBefore), "not-after": iso(notAfter)]
        if AppleServerCertificateRules.validityTooLong(notBefore: notBefore, notAfter: notAfter) {
            judgement.refuseTrust(names[4], rule: "the certificate is valid for \(validityDays) days; iOS allows at most \(AppleServerCertificateRules.maximumValidityDays) for certificates issued after 1 July 2019 (SecPolicyCheckValidityPeriodMaximums)",
                                  fix: reissue, seconds: 0, properties: validityProperties)
        } else {
            judgement.add(names[4], .passed, seconds: 0, properties: validityProperties)
        }

        let daysLeft = Int((notAfter.timeIntervalSince(now) / 86_400).rounded(.down))
        let expiryProperties = ["days-until-expiry": String(daysLeft), "not-after": iso(notAfter)]
        if now > notAfter {
            judgement.refuseTrust(names[5], rule: "the certificate expired on \(iso(notAfter))", fix: reissue, seconds: 0, properties: expiryProperties)
        } else if now < notBefore {
            judgement.refuseTrust(names[5], rule: "the certificate is not valid before \(iso(notBefore))", fix: "wait, or fix the clock of the machine that issued it",
                                  seconds: 0, properties: expiryProperties)
        } else {
            judgement.add(names[5], .passed, seconds: 0, properties: expiryProperties)
        }

        let anchorText = anchors == nil ? "the system's root certificates" : "the pinned certificate"
        if verification?.verified == true {
            judgement.add(names[6], .passed, seconds: 0, properties: ["trusted-by": anchorText])
        } else {
            let reason = verification?.message ?? "verification could not run"
            let fix = anchors == nil
                ? "an app that pins this certificate trusts it through its own delegate (run with --pin CERT)"
                : "serve a chain that ends in the certificate the app pins, or ship the server's certificate in the app"
            judgement.refuseTrust(names[6], rule: "the chain does not verify against \(anchorText) (\(reason))", fix: fix,
                                  seconds: 0, properties: ["trusted-by": "nothing"])
        }
    }

    private static func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    static func result(_ suite: String, _ name: String, _ outcome: CheckOutcome, seconds: TimeInterval,
                       properties: [String: String] = [:]) -> CheckResult {
        CheckResult(check: Check(suite: suite, classname: classname, name: name, properties: properties) { outcome },
                    outcome: outcome, duration: seconds)
    }

    /// The testcases in order, and every rule that refuses the connection, in two kinds: ATS's
    /// (protocol and suites: an Info.plist key under NSExceptionDomains can relax them; applied only
    /// where ATS governs the name) and the app's trust evaluation's (certificates: no Info.plist key
    /// relaxes them).
    struct Judgement {
        let suite: String
        let scope: ATSScope
        var results: [CheckResult] = []
        var atsRefusals: [(rule: String, exception: ATSPolicy.Exception?)] = []
        var trustRefusals: [(rule: String, fix: String)] = []

        mutating func add(_ name: String, _ outcome: CheckOutcome, seconds: TimeInterval, properties: [String: String] = [:]) {
            results.append(ATSChecks.result(suite, name, outcome, seconds: seconds, properties: properties))
        }

        mutating func refuseATS(_ name: String, rule: String, exception: ATSPolicy.Exception?, seconds: TimeInterval,
                                properties: [String: String] = [:]) {
            guard scope.governed else {
                add(name, .skipped(reason: "not governed: ATS would refuse this (\(rule)), but it does not govern \(scope.name): \(scope.rule)"),
                    seconds: seconds, properties: properties)
                return
            }
            atsRefusals.append((rule, exception))
            let fix = exception.map { " (Info.plist exception: \($0))" } ?? " (no Info.plist exception allows this: fix the server)"
            add(name, .failed(message: "ATS refuses: \(rule)\(fix)", details: ""), seconds: seconds, properties: properties)
        }

        mutating func refuseTrust(_ name: String, rule: String, fix: String, seconds: TimeInterval, properties: [String: String] = [:]) {
            trustRefusals.append((rule, fix))
            add(name, .failed(message: "the app's trust evaluation refuses (SecTrust, SSL policy): \(rule) — no Info.plist key relaxes this: \(fix)", details: ""),
                seconds: seconds, properties: properties)
        }

        mutating func verdict(name: String) {
            var properties = ["ats-governs": scope.governed ? "yes" : "no", "scope": scope.rule]
            guard !atsRefusals.isEmpty || !trustRefusals.isEmpty else {
                properties["ats"] = scope.governed ? "allowed" : "not governed"
                add("verdict.default-policy", .passed, seconds: 0, properties: properties)
                return
            }
            var parts: [String] = []
            var keys: [ATSPolicy.Exception] = []
            if !atsRefusals.isEmpty {
                for case let exception? in atsRefusals.map(\.exception) where !keys.contains(exception) { keys.append(exception) }
                var part = "App Transport Security (it governs \(name): \(scope.rule)) refuses: " + atsRefusals.map(\.rule).joined(separator: "; ")
                if atsRefusals.allSatisfy({ $0.exception != nil }) {
                    part += ". Info.plist exceptions that would allow it, under NSAppTransportSecurity › NSExceptionDomains › \(name): "
                        + keys.map(\.description).joined(separator: ", ") + " (better: fix the server)"
                } else {
                    part += ". No Info.plist exception allows it: fix the server"
                }
                parts.append(part)
            }
            if !trustRefusals.isEmpty {
                var fixes: [String] = []
                for fix in trustRefusals.map(\.fix) where !fixes.contains(fix) { fixes.append(fix) }
                parts.append("the app's trust evaluation (SecTrust with the SSL policy, on every name; no Info.plist key relaxes it) refuses: "
                             + trustRefusals.map(\.rule).joined(separator: "; ") + ". Fix: " + fixes.joined(separator: "; "))
            }
            properties["ats"] = atsRefusals.isEmpty ? (scope.governed ? "allowed" : "not governed") : "refused"
            properties["trust"] = trustRefusals.isEmpty ? "accepted" : "refused"
            properties["exceptions"] = keys.isEmpty ? "none" : keys.map(\.description).joined(separator: ", ")
            let details = atsRefusals.map { "- ATS: \($0.rule)" } + trustRefusals.map { "- trust: \($0.rule)" }
            add("verdict.default-policy", .failed(message: "iOS would refuse the connection to \(name): " + parts.joined(separator: ". Also, "),
                                                  details: details.joined(separator: "\n")),
                seconds: 0, properties: properties)
        }
    }
}
