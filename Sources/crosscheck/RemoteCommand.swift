import Foundation
import Conformance
import Remote
import Transport
import Reports
import WireCrypto
import WireProtocol

/// `crosscheck remote`: a live server (a Raspberry Pi, or a namespace test host) checked from outside.
enum RemoteCommand: Command {
    static let name = "remote"
    static let abstract = "Check a live rsa-socket or aes-https server over the network and write JUnit XML."
    static let usage = """
    USAGE: crosscheck remote --host H [--port P] --profile rsa-socket|aes-https [options]
           crosscheck remote --targets FILE [-j N] [--shard K/N] --profile … [options]

    Checks everything observable from outside: both directions, the padding the server uses (found
    by trying), every public-key PEM variant, binary safety of legacy framing, the digest proof, the
    size limit, Quit, malformed input with a known-good conversation after each class; for
    aes-https the pinned certificate, login, bad credentials and tokens, envelopes both ways and one
    answer for every bad envelope. A server that does not conform fails the run; a weak but
    conforming choice (PKCS#1 v1.5, RSA < 2048, legacy framing, utf8-zeropad16, CBC without MAC) is a
    skipped testcase in the audit testsuite, and a failure with --strict.

    OPTIONS:
      --host H              the server (name or IP address)
      --port P              its port (default 9876 for rsa-socket, 8443 for aes-https)
      --profile NAME        rsa-socket or aes-https
      --direction D         pi-to-phone, phone-to-pi or both (default both)
      --padding P           auto (default: find it), pkcs1, oaep-sha1 or oaep-sha256
      --framing F           legacy (default, as the tutorials) or framed
      --key-bits LIST       client key sizes for pi-to-phone, e.g. 1024,2048 (default 2048)
      --pin CERT            aes-https: the certificate the app bundles (PEM); required for aes-https
      --user NAME:PASSWORD  aes-https account (default user:password)
      --key-mode M          aes-https key derivation: utf8-zeropad16 or base64-raw (default: inferred)
      --server-name NAME    aes-https: verify the certificate for NAME while connecting to --host
      --load N              instead of the checks, run N known-good conversations (-j at once) and
                            print conversations per second
      --timeout SECONDS     deadline for every connect, read and write (default 5)
      --quiet-gap SECONDS   silence that ends a legacy message (default 0.3)
      --strict              weaknesses fail the run
      --targets FILE        one host:port per line (# comments); one testsuite per target
      -j N                  targets checked at once (default 1)
      --shard K/N           only every N-th target starting at the K-th (1-based), to split CI jobs
      --junit PATH          report path (default reports/remote.xml); partial report on SIGINT/SIGTERM
      --quiet               no progress lines
      -h, --help            this help

    EXIT STATUS: 0 the server conforms (weaknesses only reported), 1 a check failed or errored, 64 usage
    error, 73 report not writable, 130 interrupted (a partial report is written first).
    """

    static func run(_ arguments: inout Arguments) throws -> ExitCode {
        var options = RemoteOptions()
        let profileName = try arguments.option("--profile")
        guard let profileName, let profile = RemoteOptions.Profile(rawValue: profileName) else {
            throw CommandExit.usage("--profile rsa-socket or --profile aes-https is required", command: self)
        }
        options.profile = profile
        let defaultPort: UInt16 = profile == .rsaSocket ? 9876 : 8443
        let host = try arguments.option("--host")
        let port = try arguments.integer("--port", as: UInt16.self)
        let targetsFile = try arguments.option("--targets")
        if let direction = try arguments.option("--direction") {
            switch direction {
            case "both": options.directions = RSASocket.Direction.allCases
            default:
                guard let value = RSASocket.Direction(rawValue: direction) else {
                    throw CommandExit.usage("--direction takes pi-to-phone, phone-to-pi or both", command: self)
                }
                options.directions = [value]
            }
        }
        if let padding = try arguments.option("--padding"), padding != "auto" {
            do { options.padding = try RSAEncryptionPadding(name: padding) } catch {
                throw CommandExit.usage("--padding takes auto, pkcs1, oaep-sha1 or oaep-sha256", command: self)
            }
        }
        if let framing = try arguments.option("--framing") {
            guard let value = Framing(rawValue: framing) else { throw CommandExit.usage("--framing takes legacy or framed", command: self) }
            options.framing = value
        }
        if let bits = try arguments.option("--key-bits") {
            let sizes = bits.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !sizes.isEmpty, sizes.count == bits.split(separator: ",").count, sizes.allSatisfy({ (1024...16384).contains($0) }) else {
                throw CommandExit.usage("--key-bits takes sizes from 1024 to 16384, e.g. 1024,2048", command: self)
            }
            options.keyBits = sizes
        }
        options.pin = try arguments.option("--pin")
        if let pin = options.pin, !FileManager.default.isReadableFile(atPath: pin) {
            throw CommandExit.usage("--pin \(pin): no readable certificate file there", command: self)
        }
        if let user = try arguments.option("--user") {
            guard let colon = user.firstIndex(of: ":") else { throw CommandExit.usage("--user takes NAME:PASSWORD", command: self) }
            options.username = String(user[..<colon]); options.password = String(user[user.index(after: colon)...])
        }
        if let mode = try arguments.option("--key-mode") {
            guard let value = KeyDerivationMode(rawValue: mode) else { throw CommandExit.usage("--key-mode takes utf8-zeropad16 or base64-raw", command: self) }
            options.keyMode = value
        }
        if let timeout = try arguments.option("--timeout") {
            guard let value = Double(timeout), value > 0, value <= 600 else { throw CommandExit.usage("--timeout takes seconds, > 0 and ≤ 600", command: self) }
            options.timeout = value
        }
        if let gap = try arguments.option("--quiet-gap") {
            guard let value = Double(gap), value > 0, value < options.timeout else { throw CommandExit.usage("--quiet-gap takes seconds below --timeout", command: self) }
            options.quietGap = value
        }
        options.serverName = try arguments.option("--server-name")
        let load = try arguments.integer("--load")
        if let load, !(1...100_000).contains(load) { throw CommandExit.usage("--load takes 1 to 100000 conversations", command: self) }
        options.strict = arguments.flag("--strict")
        let jobs = try arguments.integer("-j") ?? 1
        guard (1...64).contains(jobs) else { throw CommandExit.usage("-j takes 1 to 64", command: self) }
        let shard = try arguments.option("--shard")
        let junitPath = try arguments.option("--junit") ?? "reports/remote.xml"
        let quiet = arguments.flag("--quiet")
        try arguments.noPositionals()
        if profile == .aesHTTPS && options.pin == nil { throw CommandExit.usage("\(RemoteError.missingPin)", command: self) }
        options.foreignCertificate = foreignCertificate(besides: options.pin)

        var targets: [ServerAddress]
        do {
            switch (host, targetsFile) {
            case let (host?, nil): targets = [try ServerAddress(parsing: host, defaultPort: port ?? defaultPort)]
                if let port { targets[0].port = port }
            case let (nil, file?): targets = try readTargets(file, defaultPort: port ?? defaultPort)
            default: throw CommandExit.usage("give --host H or --targets FILE (one of them)", command: self)
            }
        } catch let error as RemoteError { throw CommandExit.usage("\(error)", command: self) }
        if let shard {
            let parts = shard.split(separator: "/").compactMap { Int($0) }
            guard parts.count == 2, (1...parts[1]).contains(parts[0]) else { throw CommandExit.usage("--shard takes K/N with 1 ≤ K ≤ N", command: self) }
            targets = targets.enumerated().filter { $0.offset % parts[1] == parts[0] - 1 }.map(\.element)
        }

        if let load {
            guard targets.count == 1, options.profile == .rsaSocket else {
                throw CommandExit.usage("--load takes one --host and the rsa-socket profile", command: self)
            }
            let measured = RemoteLoad.run(targets[0], options: options, conversations: load, parallel: jobs)
            print(String(format: "%d of %d conversations completed in %.2f s at -j %d: %.1f conversations/s", measured.completed, load,
                         measured.seconds, jobs, Double(measured.completed) / max(measured.seconds, 1e-9)))
            if let failure = measured.firstFailure { printError("crosscheck remote: \(failure)") }
            return measured.completed == load ? .success : .checksFailed
        }
        let latch = InterruptLatch()
        if !quiet { printError("crosscheck remote: \(targets.count) target(s), profile \(profile.rawValue), -j \(jobs)") }
        let started = Date()
        let collected = Collected(count: targets.count)
        let (chosenTargets, chosenOptions) = (targets, options)  // immutable copies for the workers
        DispatchQueue.concurrentPerform(iterations: min(jobs, max(targets.count, 1))) { worker in
            var index = worker
            while index < chosenTargets.count {
                let target = chosenTargets[index]
                let results = RemoteRun.run(target, options: chosenOptions, shouldStop: { latch.interrupted }) { result in
                    if quiet { return }
                    switch result.outcome {
                    case let .failed(message, _), let .error(message, _): printError("  FAIL \(target) \(result.check.name): \(message)")
                    default: break
                    }
                }
                collected.set(index, results)
                index += jobs
            }
        }
        let results = collected.all
        var report = JUnitAdapter.report(results, properties: [
            ("crosscheck.profile", profile.rawValue), ("crosscheck.strict", String(options.strict)),
            ("crosscheck.timeout", String(options.timeout)), ("crosscheck.framing", options.framing.rawValue),
        ], timestamp: started)
        if latch.interrupted { JUnitAdapter.markPartial(&report, note: "interrupted", timestamp: started) }
        do { try JUnitXML.write(report, to: URL(fileURLWithPath: junitPath)) } catch {
            printError(Summary.text(report))
            throw CommandExit(code: .cannotCreate, message: "crosscheck: \(error)")
        }
        print(Summary.text(report))
        print("JUnit report: \(junitPath)")
        if latch.interrupted { return .interrupted }
        return report.failures + report.errors == 0 ? .success : .checksFailed
    }

    static func readTargets(_ path: String, defaultPort: UInt16) throws -> [ServerAddress] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CommandExit(code: .usage, message: "--targets \(path): cannot read the file")
        }
        let lines = text.split(separator: "\n").map { $0.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "" }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !lines.isEmpty else { throw CommandExit(code: .usage, message: "--targets \(path): no targets in the file") }
        return try lines.map { try ServerAddress(parsing: $0, defaultPort: defaultPort) }
    }

    /// A certificate that is surely not the server's (the repo's impostor test certificate), to show
    /// that a client pinned to it refuses the server.
    static func foreignCertificate(besides pin: String?) -> String? {
        let candidate = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Vectors/tls/impostor.crt.pem").path
        guard FileManager.default.isReadableFile(atPath: candidate), let pin,
              (try? Data(contentsOf: URL(fileURLWithPath: pin))) != (try? Data(contentsOf: URL(fileURLWithPath: candidate))) else { return nil }
        return candidate
    }

    /// Results of concurrent targets, kept in target order.
    final class Collected: @unchecked Sendable {
        private var slots: [[CheckResult]]
        private let lock = NSLock()
        init(count: Int) { slots = Array(repeating: [], count: count) }
        func set(_ index: Int, _ results: [CheckResult]) { lock.lock(); slots[index] = results; lock.unlock() }
        var all: [CheckResult] { lock.lock(); defer { lock.unlock() }; return slots.flatMap { $0 } }
    }
}
