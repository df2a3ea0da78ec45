import Foundation
import ATS
import CommandLineKit
import Conformance
import Transport

/// `crosscheck ats`: would iOS's App Transport Security let the app connect to this TLS server?
struct ATSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "ats", abstract: "Would iOS's App Transport Security allow a connection to this TLS server? Probe it and write JUnit XML.",
        synopsis: ["--host H [--port P] [--pin CERT] [--server-name N] [--ios VERSION] [--timeout S] [--junit PATH]"],
        discussion: """
        Offers the server each TLS version (1.0, 1.1, 1.2, 1.3) on its own connection, then at each
        version it accepts every cipher suite, one connection each (the probes run at OpenSSL security
        level 0 so old versions and weak suites can be offered; they verify nothing and send no
        request), and reads the certificate chain. One testcase per version, per accepted suite (key
        exchange, forward secrecy, AEAD or CBC, its ATS status), per certificate rule (key type and
        size, signature hash, subjectAltName against --server-name, serverAuth EKU, the 825-day
        validity rule, days until expiry, trust: --pin CERT as the app pins it, else the system's
        roots), and the verdict: would iOS allow this connection? ATS's rules (TLS version, suites)
        apply only where ATS governs the name (scope.ats-governs: not .local or unqualified names
        such as localhost, nor IP addresses before iOS 17 — --ios VERSION says which iOS, default
        \(ATSScope.currentIOS)); a refusal names the Info.plist exception keys that would relax it
        (NSExceptionMinimumTLSVersion, NSExceptionRequiresForwardSecrecy). The certificate rules are
        the app's trust evaluation's (SecTrust's SSL policy) on every name: no Info.plist key relaxes
        them, the certificate must be reissued. docs/PROTOCOL.md "App Transport Security" names the
        source of each rule. `crosscheck remote --profile aes-https`, and `remote --protocol FILE`
        for a description over https, run the same checks as testsuite ats.<host:port>.
        """,
        exitCodes: [.success, .checksFailed, .usage, .noInput, .cannotCreate, .interrupted],
        exitNotes: [.success: "iOS's default ATS policy allows the connection (weaknesses only reported)",
                    .checksFailed: "iOS's default ATS policy refuses the connection (the verdict names the rules and exception keys), or the server could not be probed",
                    .noInput: "--pin names a missing file or one without a PEM or DER certificate"])

    @Option(name: "--host", value: "H", help: "the server (name or IP address)")
    var host: String?
    @Option(name: "--port", value: "P", help: "its port")
    var port = PortNumber(8443)
    @Option(name: "--pin", value: "CERT", help: "the certificate the app pins (PEM or DER): trust is judged against it, as the app's delegate does (default: the system's roots)")
    var pin: String?
    @Option(name: "--server-name", value: "NAME", help: "the name the app uses in its URL: sent as SNI and checked against subjectAltName (default: --host)")
    var serverName: String?
    @Option(name: "--ios", value: "VERSION", help: "the iOS version to judge for (9 or later; default \(ATSScope.currentIOS)): from iOS 17 ATS governs IP addresses")
    var ios: String?
    @Option(name: "--timeout", value: "SECONDS", help: "deadline for every connect and handshake, at most 600")
    var timeout = Seconds(5)
    @OptionGroup var report: ReportOptions
    init() {}

    func validate() throws {
        guard let host else { throw UsageError("--host H is required: the TLS server to judge") }
        do { _ = try ServerAddress(parsing: host, defaultPort: 1) } catch { throw UsageError("--host: \(error)") }
        guard timeout.value <= 600 else { throw UsageError("--timeout takes seconds above 0 and at most 600, not \(timeout.argumentText)") }
        if let ios, Self.iosMajor(ios) == nil { throw UsageError("--ios takes an iOS version such as 16 or 17.4 (9 or later), not \(ios)") }
    }

    /// The major version of `--ios` ("17", "17.4"), nil when it is not one.
    static func iosMajor(_ text: String) -> Int? {
        guard let first = text.split(separator: ".", omittingEmptySubsequences: false).first, let major = Int(first),
              (9...99).contains(major), text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy({ Int($0) != nil }) else { return nil }
        return major
    }

    func run() throws -> ExitCode {
        var target = try ServerAddress(parsing: host ?? "", defaultPort: port.value)
        if $port { target.port = port.value }
        let pin = try self.pin.map { try PinFile.pemPath($0, command: "ats") }  // PEM or DER (issue 33)
        if let pin {
            do { _ = try ATSChecks.loadPin(pin) } catch { throw CommandExit(.noInput, "crosscheck ats: \(error)") }
        }
        var options = ATSOptions()
        options.pin = pin
        options.serverName = serverName
        options.timeout = timeout.value
        if let ios, let major = Self.iosMajor(ios) { options.iosMajor = major }
        let latch = InterruptLatch()
        if !report.quiet { printError("crosscheck ats: probing \(target) as \(serverName ?? target.host)") }
        let started = Date()
        var progress = ProgressPrinter(quiet: report.quiet)
        let results = ATSChecks.run(target, options: options, shouldStop: { latch.interrupted })
        for (index, result) in results.enumerated() { progress.record(done: index + 1, total: results.count, result: result) }
        let junit = JUnitAdapter.report(results, properties: [("crosscheck.profile", "aes-https"), ("crosscheck.timeout", String(options.timeout))],
                                        timestamp: started)
        return try RunReport.finish(junit, interrupted: latch.interrupted, done: latch.interrupted ? 0 : 1, planned: 1, started: started,
                                    junitPath: report.junit ?? "reports/ats.xml")
    }
}
