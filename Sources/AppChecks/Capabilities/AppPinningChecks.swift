import Foundation
import AppUnderTest
import Conformance
import WireCrypto

/// `sessions.app_pinning`: the app's server-trust decision (seed 002's URLSession delegate) on the
/// chains a server presents, with the pin bundled as the app bundles it (DER). The four refusals
/// of docs/PROTOCOL.md — an impostor certificate for the same name, the pinned certificate under
/// another host name, an expired certificate, plain HTTP — plus a pinned CA that signed the
/// server's leaf. Each refusal carries a control (the same chain accepted with its own pin, or
/// under its own name), so a refusal for the wrong reason — a certificate iOS refuses anyway —
/// cannot pass. The certificates are Vectors/tls/ios-*: valid for at most 825 days with
/// serverAuth, as iOS requires even of chains an app anchors itself.
enum AppPinningChecks {
    /// How many days before the ios-* leaves expire the maintenance check starts to warn.
    static let warningDays = 90

    struct Case {
        let name: String
        let chain: [String]
        let host: String
        let pin: String
        let accepts: Bool
        /// For refusals: chain, host and pin the app must accept, showing the refusal is for the stated reason.
        let control: (chain: [String], host: String, pin: String)?
    }

    static let cases: [Case] = [
        Case(name: "accepts-pinned-leaf-bundled-as-der", chain: ["ios-pinned"], host: "localhost", pin: "ios-pinned", accepts: true, control: nil),
        Case(name: "accepts-pinned-leaf-by-ip-address", chain: ["ios-pinned"], host: "127.0.0.1", pin: "ios-pinned", accepts: true, control: nil),
        Case(name: "accepts-leaf-signed-by-pinned-ca", chain: ["ios-server"], host: "localhost", pin: "ios-ca", accepts: true, control: nil),
        Case(name: "accepts-leaf-and-ca-chain-with-pinned-ca", chain: ["ios-server", "ios-ca"], host: "localhost", pin: "ios-ca", accepts: true,
             control: nil),
        Case(name: "refuses-impostor-certificate-for-the-same-name", chain: ["ios-impostor"], host: "localhost", pin: "ios-pinned", accepts: false,
             control: (["ios-impostor"], "localhost", "ios-impostor")),
        Case(name: "refuses-impostor-certificate-under-a-pinned-ca", chain: ["ios-impostor"], host: "localhost", pin: "ios-ca", accepts: false,
             control: (["ios-server"], "localhost", "ios-ca")),
        Case(name: "refuses-pinned-certificate-under-another-host-name", chain: ["ios-pinned"], host: "pi.invalid", pin: "ios-pinned",
             accepts: false, control: (["ios-pinned"], "localhost", "ios-pinned")),
        Case(name: "refuses-ca-signed-leaf-under-another-host-name", chain: ["ios-server", "ios-ca"], host: "pi.invalid", pin: "ios-ca",
             accepts: false, control: (["ios-server", "ios-ca"], "localhost", "ios-ca")),
        Case(name: "refuses-expired-certificate", chain: ["expired"], host: "localhost", pin: "expired", accepts: false, control: nil),
    ]

    static func checks(_ context: SuiteContext, app: AppSubject) -> [Check] {
        guard app.has(CertificatePinning.self) else { return [] }
        var list = Lists(suite: "sessions.app_pinning", relation: "app_pinning", app: app)
        let tls = context.files.tls
        for item in cases {
            list.add("aes-https", "tls.\(item.name)") {
                let accepted = try decide(app, tls, chain: item.chain, host: item.host, pin: item.pin)
                guard accepted == item.accepts else {
                    throw CheckFailure("\(app.identifier) \(accepted ? "accepted" : "refused") the chain [\(item.chain.joined(separator: ", "))] "
                                       + "for host \(item.host) with the pin \(item.pin).crt (DER); it must \(item.accepts ? "accept" : "refuse") it")
                }
                if let control = item.control {
                    guard try decide(app, tls, chain: control.chain, host: control.host, pin: control.pin) else {
                        throw CheckFailure("control: \(app.identifier) refused [\(control.chain.joined(separator: ", "))] for \(control.host) "
                                           + "with the pin \(control.pin).crt too, so its refusal above says nothing about the pin")
                    }
                }
                return .passed
            }
        }
        list.add("aes-https", "tls.refuses-plain-http") {
            .skipped(reason: "not applicable to the CertificatePinning capability: over plain HTTP no certificate is presented, so "
                     + "the app's server-trust delegate is never asked (on iOS, App Transport Security refuses http:// unless the app's "
                     + "Info.plist allows it); crosscheck's pinned client refuses it in sessions.swift_client.*")
        }
        return list.checks
    }

    static func decide(_ app: AppSubject, _ tls: URL, chain: [String], host: String, pin: String) throws -> Bool {
        let chainDER = try chain.map { try der(tls, $0) }
        let pinDER = try der(tls, pin)
        return try AppExpect.succeeds(app, "decide on the chain [\(chain.joined(separator: ", "))] for \(host)") {
            try app.with(CertificatePinning.self) { try $0.evaluateServerTrust(chainDER: chainDER, host: host, pinnedCertificateDER: pinDER) }
        }
    }

    /// The DER of Vectors/tls/<name>.crt.pem, as an app bundles it.
    static func der(_ tls: URL, _ name: String) throws -> Data {
        let path = tls.appendingPathComponent("\(name).crt.pem")
        guard let pem = FileManager.default.contents(atPath: path.path) else {
            throw CheckFailure("cannot read \(path.path) (make it with: cd PythonRef && /usr/bin/python3 -m pythonref ios-certs --out ../Vectors/tls)")
        }
        do { return try X509Certificate(pem: pem).der } catch {
            throw CheckFailure("\(path.path) is not a PEM certificate: \(error)")
        }
    }

    /// The ios-* leaves expire 825 days after they were made: passes while more than `warningDays`
    /// remain, a skip with a warning (the run still passes) within them, a failure once expired.
    static func maintenanceCheck(_ context: SuiteContext, now: Date) -> Check {
        var list = CheckList(suite: "sessions.app_pinning", profile: "aes-https", relation: "app_pinning")
        let tls = context.files.tls
        list.add("vectors-tls.ios-certificates-not-expiring", properties: ["warning-days": String(warningDays)]) {
            let expiries = try ["ios-ca", "ios-server", "ios-pinned", "ios-impostor"].map { name -> (name: String, date: Date) in
                guard let notAfter = try X509Certificate(der: try der(tls, name)).notAfter else {
                    throw CheckFailure("\(name).crt.pem has no readable notAfter")
                }
                return (name, notAfter)
            }
            guard let soonest = expiries.min(by: { $0.date < $1.date }) else { return .passed }
            let days = Int(soonest.date.timeIntervalSince(now) / 86_400)
            let renew = "renew: cd PythonRef && /usr/bin/python3 -m pythonref ios-certs --out ../Vectors/tls --not-before <a recent date>, then commit the eight files"
            if soonest.date <= now {
                throw CheckFailure("Vectors/tls/\(soonest.name).crt.pem expired on \(day(soonest.date)): the app pinning checks cannot pass; \(renew)")
            }
            if days <= warningDays {
                return .skipped(reason: "WARNING: Vectors/tls/\(soonest.name).crt.pem expires on \(day(soonest.date)), in \(days) days; \(renew)")
            }
            return .passed
        }
        return list.checks[0]
    }

    static func day(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: date)
    }
}
