import Foundation
import Conformance
import Transport
import WireCrypto

/// A scan judged by `ATSPolicy`: one testcase per finding in `ats.<host:port>` and the verdict
/// `verdict.default-policy`, which fails when iOS's default ATS policy would refuse the connection
/// and names the Info.plist exception keys that would allow it.
///
/// Outcomes: a finding that makes ATS refuse is a failure; one iOS never meets by default (TLS 1.0
/// accepted beside 1.2, a suite iOS does not offer) is a skipped testcase starting `weakness:`, as
/// in `crosscheck remote`'s audit; everything else passes. The verdict fails exactly when a finding does.
public enum ATSChecks {
    public static let classname = "crosscheck.aes-https.ats"

    /// Scans `target` and judges it; never throws: a server that cannot be probed is an error testcase.
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
        return judge(scan, anchors: anchors, now: options.now)
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
    public static func judge(_ scan: ATSScan, anchors: [X509Certificate]?, now: Date) -> [CheckResult] {
        var judgement = Judgement(suite: "ats.\(scan.target)")
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
                judgement.refuse(name, rule: rule, exception: exception, seconds: probe.seconds, properties: properties)
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
                    // A strong suite iOS happens not to offer (DHE, ChaCha20 at TLS 1.2) costs the app nothing.
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
            judgement.refuse(name, rule: "accepts no cipher suite with forward secrecy that ATS allows (it accepts \(listed))",
                             exception: .noForwardSecrecy, seconds: 0)
        } else {
            judgement.refuse(name, rule: "accepts none of the cipher suites iOS offers (it accepts \(listed)); no Info.plist key adds suites",
                             exception: nil, seconds: 0)
        }
    }

    /// No forward secrecy, or a broken cipher or MAC (RC4, DES, 3DES, NULL, export, MD5, anonymous).
    static func isWeak(_ suite: TLSCipherSuite) -> Bool {
        !suite.forwardSecrecy || ["RC4", "DES", "NULL", "EXPORT", "_MD5", "anon"].contains { suite.standardName.contains($0) }
    }

    // MARK: certificate

    private static func judgeCertificate(_ scan: ATSScan, anchors: [X509Certificate]?, now: Date, _ judgement: inout Judgement) {
        let names = ["certificate.key", "certificate.signature-hash", "certificate.subject-alt-name", "certificate.server-auth-eku",
                     "certificate.validity-period", "certificate.expiry", "certificate.trust"]
        guard let leaf = scan.chain.first else {
            for name in names { judgement.add(name, .skipped(reason: "not judged: no TLS handshake completed, so no certificate was seen"), seconds: 0) }
            return
        }
        // The leaf and the issuing CAs the server sent (a root's self-signature is not judged).
        let judged = [leaf] + scan.chain.dropFirst().filter { !$0.isSelfIssued }
        let insecure = ATSPolicy.Exception.insecureLoads

        let weakKeys = judged.enumerated().compactMap { index, certificate -> String? in
            let bits = certificate.publicKeyBits, algorithm = certificate.publicKeyAlgorithm
            let strong = (algorithm == "RSA" && bits >= AppleServerCertificateRules.minimumRSABits)
                || (algorithm == "EC" && bits >= AppleServerCertificateRules.minimumECBits)
            return strong ? nil : "\(index == 0 ? "the server certificate" : "issuing CA #\(index)") has a \(algorithm) \(bits)-bit key"
        }
        let keyProperties = ["key": "\(leaf.publicKeyAlgorithm) \(leaf.publicKeyBits)"]
        if weakKeys.isEmpty { judgement.add(names[0], .passed, seconds: 0, properties: keyProperties) } else {
            judgement.refuse(names[0], rule: weakKeys.joined(separator: "; ") + ": ATS needs RSA keys of 2048 bits or more, or EC keys of 256 bits or more",
                             exception: insecure, seconds: 0, properties: keyProperties)
        }

        let weakHashes = judged.enumerated().compactMap { index, certificate -> String? in
            let digest = certificate.signatureDigestName?.uppercased() ?? "unknown"
            return ATSPolicy.acceptedSignatureDigests.contains(digest) ? nil
                : "\(index == 0 ? "the server certificate" : "issuing CA #\(index)") is signed with \(digest)"
        }
        let hashProperties = ["signature-hash": leaf.signatureDigestName ?? "unknown"]
        if weakHashes.isEmpty { judgement.add(names[1], .passed, seconds: 0, properties: hashProperties) } else {
            judgement.refuse(names[1], rule: weakHashes.joined(separator: "; ") + ": ATS needs SHA-256 or stronger signatures",
                             exception: insecure, seconds: 0, properties: hashProperties)
        }

        let altNames = leaf.subjectAltNames
        let sanProperties = ["subject-alt-names": altNames.isEmpty ? "none" : altNames.joined(separator: ", "), "name": scan.serverName]
        if leaf.subjectAltNameMatches(scan.serverName) { judgement.add(names[2], .passed, seconds: 0, properties: sanProperties) } else {
            let found = altNames.isEmpty
                ? "has no subjectAltName (its common name \(leaf.subjectValues(.commonName).first.map { "'\($0)'" } ?? "is empty and") is not consulted since iOS 13)"
                : "names \(altNames.joined(separator: ", ")) in subjectAltName"
            judgement.refuse(names[2], rule: "the certificate \(found), not '\(scan.serverName)', the name the app connects to",
                             exception: insecure, seconds: 0, properties: sanProperties)
        }

        let strictRules = (leaf.notBefore ?? .distantPast) > AppleServerCertificateRules.strictRulesStart
        if leaf.hasExtendedKeyUsage, !leaf.hasServerAuthExtendedKeyUsage {
            judgement.refuse(names[3], rule: "the certificate's extended key usage does not include serverAuth (id-kp-serverAuth)",
                             exception: insecure, seconds: 0)
        } else if strictRules, !leaf.hasExtendedKeyUsage {
            judgement.refuse(names[3], rule: "the certificate, issued after 1 July 2019, has no extended key usage extension with serverAuth",
                             exception: insecure, seconds: 0)
        } else {
            judgement.add(names[3], .passed, seconds: 0, properties: ["server-auth-eku": leaf.hasServerAuthExtendedKeyUsage ? "yes" : "absent (issued before 1 July 2019)"])
        }

        guard let notBefore = leaf.notBefore, let notAfter = leaf.notAfter else {
            judgement.refuse(names[4], rule: "the certificate's validity dates cannot be read", exception: insecure, seconds: 0)
            judgement.add(names[5], .skipped(reason: "not judged: no readable validity dates"), seconds: 0)
            judgement.add(names[6], .skipped(reason: "not judged: no readable validity dates"), seconds: 0)
            return
        }
        let validityDays = Int((notAfter.timeIntervalSince(notBefore) / 86_400).rounded(.down))
        let validityProperties = ["validity-days": String(validityDays), "not-before": iso(notBefore), "not-after": iso(notAfter)]
        if AppleServerCertificateRules.validityTooLong(notBefore: notBefore, notAfter: notAfter) {
            judgement.refuse(names[4], rule: "the certificate is valid for \(validityDays) days; iOS allows at most \(AppleServerCertificateRules.maximumValidityDays) for certificates issued after 1 July 2019",
                             exception: insecure, seconds: 0, properties: validityProperties)
        } else {
            judgement.add(names[4], .passed, seconds: 0, properties: validityProperties)
        }

        let daysLeft = Int((notAfter.timeIntervalSince(now) / 86_400).rounded(.down))
        let expiryProperties = ["days-until-expiry": String(daysLeft), "not-after": iso(notAfter)]
        if now > notAfter {
            judgement.refuse(names[5], rule: "the certificate expired on \(iso(notAfter))", exception: insecure, seconds: 0, properties: expiryProperties)
        } else if now < notBefore {
            judgement.refuse(names[5], rule: "the certificate is not valid before \(iso(notBefore))", exception: insecure, seconds: 0, properties: expiryProperties)
        } else {
            judgement.add(names[5], .passed, seconds: 0, properties: expiryProperties)
        }

        // Trust alone: judged at a moment inside the leaf's validity, since expiry is its own testcase.
        let moment = min(max(now, notBefore), notAfter)
        let verification = try? X509ChainVerifier.verify(leaf: leaf, intermediates: Array(scan.chain.dropFirst()), anchors: anchors ?? [],
                                                         systemRoots: anchors == nil,
                                                         policy: X509VerificationPolicy(hostname: nil, serverAuthentication: true, verifyDate: moment))
        let anchorText = anchors == nil ? "the system's root certificates" : "the pinned certificate"
        if verification?.verified == true {
            judgement.add(names[6], .passed, seconds: 0, properties: ["trusted-by": anchorText])
        } else {
            let reason = verification?.message ?? "verification could not run"
            let advice = anchors == nil ? "; an app that pins this certificate trusts it through its own delegate (run with --pin CERT)" : ""
            judgement.refuse(names[6], rule: "the chain does not verify against \(anchorText) (\(reason))\(advice)",
                             exception: insecure, seconds: 0, properties: ["trusted-by": "nothing"])
        }
    }

    private static func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    static func result(_ suite: String, _ name: String, _ outcome: CheckOutcome, seconds: TimeInterval,
                       properties: [String: String] = [:]) -> CheckResult {
        CheckResult(check: Check(suite: suite, classname: classname, name: name, properties: properties) { outcome },
                    outcome: outcome, duration: seconds)
    }

    /// The testcases in order, and every rule ATS would refuse the connection for.
    struct Judgement {
        let suite: String
        var results: [CheckResult] = []
        var refusals: [(rule: String, exception: ATSPolicy.Exception?)] = []

        mutating func add(_ name: String, _ outcome: CheckOutcome, seconds: TimeInterval, properties: [String: String] = [:]) {
            results.append(ATSChecks.result(suite, name, outcome, seconds: seconds, properties: properties))
        }

        mutating func refuse(_ name: String, rule: String, exception: ATSPolicy.Exception?, seconds: TimeInterval,
                             properties: [String: String] = [:]) {
            refusals.append((rule, exception))
            let fix = exception.map { " (Info.plist exception: \($0))" } ?? " (no Info.plist exception allows this: fix the server)"
            add(name, .failed(message: "ATS refuses: \(rule)\(fix)", details: ""), seconds: seconds, properties: properties)
        }

        mutating func verdict(name: String) {
            guard !refusals.isEmpty else {
                add("verdict.default-policy", .passed, seconds: 0, properties: ["ats": "allowed"])
                return
            }
            var keys: [ATSPolicy.Exception] = []
            for case let exception? in refusals.map(\.exception) where !keys.contains(exception) { keys.append(exception) }
            let unfixable = refusals.filter { $0.exception == nil }.map(\.rule)
            var message = "iOS's default App Transport Security policy refuses \(name): " + refusals.map(\.rule).joined(separator: "; ")
            if unfixable.isEmpty {
                message += ". Info.plist exceptions that would allow it, under NSAppTransportSecurity › NSExceptionDomains › \(name): "
                    + keys.map(\.description).joined(separator: ", ") + " (better: fix the server)"
            } else {
                message += ". No Info.plist exception allows it: fix the server"
            }
            let properties = ["ats": "refused", "exceptions": keys.isEmpty ? "none" : keys.map(\.description).joined(separator: ", ")]
            add("verdict.default-policy", .failed(message: message, details: refusals.map { "- \($0.rule)" }.joined(separator: "\n")),
                seconds: 0, properties: properties)
        }
    }
}
