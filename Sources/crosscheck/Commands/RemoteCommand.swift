import Foundation
import AppChecks
import ATS
import CommandLineKit
import Conformance
import Described
import Remote
import Reports
import Transport
import WireCrypto
import WireProtocol

/// `crosscheck remote`: a live server (a Raspberry Pi, or a namespace test host) checked from outside.
struct RemoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "remote", abstract: "Check a live server over the network (rsa-socket, aes-https, or your own protocol with --protocol FILE) and write JUnit XML.",
        synopsis: ["--host H [--port P] --profile rsa-socket|aes-https [options]",
                   "--targets FILE [-j N] [--shard K/N] --profile … [options]",
                   "--host H [--port P] | --targets FILE … --protocol FILE [--secret NAME=HEX] [--public-key NAME=FILE] [options]"],
        discussion: """
        Checks everything observable from outside: both directions, the padding the server uses (found
        by trying), every public-key PEM variant, binary safety of legacy framing, the digest proof, a
        padding-oracle audit (ROBOT-style raw-RSA classes; verdict not vulnerable, weak oracle, strong
        oracle or inconsistent results), malformed input with a known-good conversation after each
        class, the size limit, Quit; for aes-https the pinned certificate, login, bad credentials and
        tokens, envelopes both ways, one answer for every bad envelope, a CBC padding-oracle audit, and
        reuse of response IVs, keys and tokens. Probes follow the conversation as a client does (they
        wait for the server's key, and half-close where no more bytes are coming), and their bytes come
        from --seed, so a run's verdicts repeat. A server that does not conform fails the run; a weak but
        conforming choice (PKCS#1 v1.5, RSA < 2048, legacy framing, utf8-zeropad16, CBC without MAC, a
        legacy message buffered without bound, a key reused across logins, a weak token) is a skipped
        testcase in the audit testsuite, and a failure with --strict. --timing adds latency statistics
        to the audit; they never decide a verdict. For aes-https it also runs `crosscheck ats` (would iOS's
        App Transport Security allow the connection?) as testsuite ats.<host:port>, unless --skip-ats.
        --app DIR|seed-00N adds the app under test as a client of the server through its own code and
        networking (seed 000's socket session, seed 001's envelopes, seed 002's pinning delegate on the
        live chain): testcases app.<identifier>.… in remote.<host:port>, failures with the app's printed lines.
        """,
        exitCodes: [.success, .checksFailed, .usage, .noInput, .cannotCreate, .interrupted],
        exitNotes: [.success: "the server conforms (weaknesses only reported)", .noInput: "--targets, --pin or --known-failures names a missing or unreadable file, or the --protocol description is refused (the message names the key, its line and what is allowed)"])

    enum Direction: String, CaseIterable, ExpressibleByArgument { case piToPhone = "pi-to-phone", phoneToPi = "phone-to-pi", both }

    @Option(name: "--host", value: "H", help: "the server (name or IP address)")
    var host: String?
    @Option(name: "--port", value: "P", help: "its port (default 9876 for rsa-socket, 8443 for aes-https)")
    var port: PortNumber?
    @Option(name: "--profile", value: "NAME", help: "rsa-socket or aes-https (required)")
    var profile: RemoteOptions.Profile?
    enum Clients: String, CaseIterable, ExpressibleByArgument {
        case reference, seedApp = "seed-app", both
        var profiles: [ClientProfile] { self == .both ? ClientProfile.allCases : [self == .reference ? .reference : .seedApp] }
    }

    @Option(name: "--direction", value: "D", help: "pi-to-phone, phone-to-pi or both")
    var direction = Direction.both
    @Option(name: "--pin", value: "CERT", help: "aes-https: the certificate the app bundles (PEM or DER, e.g. the server.crt.der pythonref server-cert writes); required for aes-https")
    var pin: String?
    @Option(name: "--server-name", value: "NAME", help: "aes-https: verify the certificate for NAME while connecting to --host")
    var serverName: String?
    @Option(name: "--load", value: "N", help: "instead of the checks, run N known-good conversations (-j at once) and print conversations per second (with --protocol: its first conversation)")
    var load: Int?
    @Option(name: "--timing", value: "N", help: "padding-oracle audits (with --protocol: every RSA and CBC one): also N interleaved latency samples per class and a signed-rank test (10 to 10000; reported in the audit, never part of the verdict)")
    var timing: Int?
    @Option(name: "--seed", value: "N", help: "seed of the probes' bytes: the same seed sends the same probes")
    var seed: UInt64 = 1
    @OptionGroup var checks: RemoteCheckOptions
    @Flag(name: "--strict", help: "weaknesses fail the run (timing statistics never do)")
    var strict: Bool
    @OptionGroup var appOptions: AppOptions
    @Flag(name: "--skip-ats", help: "aes-https, or a description over https: leave out the App Transport Security checks (testsuite ats.<host:port>, as `crosscheck ats`)")
    var skipATS: Bool
    @Option(name: "--targets", value: "FILE", help: "one host:port per line (# comments); one testsuite per target")
    var targetsFile: String?
    @Option(name: "--jobs", short: "-j", value: "N", help: "targets checked at once, 1 to 64")
    var jobs = 1
    @Option(name: "--shard", value: "K/N", help: "only every N-th target starting at the K-th (1-based), to split CI jobs")
    var shard: String?
    @Option(name: "--known-failures", value: "FILE", help: "a known-failures list (the format of run's, Vectors/known-failures.json): listed failing checks are reported as skipped 'known: <reason>', a listed check that passes fails the run, an entry that matches no check is an error")
    var knownFailuresFile: String?
    @OptionGroup var report: ReportOptions
    @OptionGroup var protocolOptions: ProtocolOptions
    init() {}

    func validate() throws {
        if protocolOptions.given {
            // Issue 31: a described protocol: one --host or a --targets fleet, and nothing that belongs to the seed profiles.
            guard (host == nil) != (targetsFile == nil) else { throw UsageError("--protocol FILE checks --host H [--port P] or every server of --targets FILE: give one of them") }
            guard (1...64).contains(jobs) else { throw UsageError("-j takes 1 to 64, not \(jobs)") }
            if let shard {
                guard targetsFile != nil else { throw UsageError("--shard K/N splits the targets of --targets FILE; one --host has nothing to split: leave it out") }
                _ = try Self.parseShard(shard)
            }
            if let load {
                guard (1...100_000).contains(load) else { throw UsageError("--load takes 1 to 100000 conversations, not \(load)") }
                guard host != nil else { throw UsageError("--load takes one --host") }
            }
            if let timing, !(10...10_000).contains(timing) {
                throw UsageError("--timing takes 10 to 10000 samples per class (a signed-rank test needs at least 10), not \(timing)")
            }
            let refused: [(Bool, String)] = [(profile != nil, "--profile"), ($direction, "--direction"), (checks.$clients, "--client"),
                                             (checks.$padding, "--padding"), (checks.$framing, "--framing"), (checks.$keyBits, "--key-bits"),
                                             (checks.keyMode != nil, "--key-mode")]
            let names = refused.filter(\.0).map(\.1)
            if !names.isEmpty {
                throw UsageError("\(names.joined(separator: ", ")) \(names.count == 1 ? "does" : "do") not apply to --protocol FILE (the description says what the seed profiles' options would): leave \(names.count == 1 ? "it" : "them") out")
            }
            if let host {
                do { _ = try ServerAddress(parsing: host, defaultPort: 1) } catch { throw UsageError("--host: \(error)") }
            }
            return
        }
        guard let profile else { throw UsageError("--profile rsa-socket or --profile aes-https is required (or --protocol FILE for a described protocol)") }
        guard (host == nil) != (targetsFile == nil) else { throw UsageError("give --host H or --targets FILE (one of them)") }
        guard (1...64).contains(jobs) else { throw UsageError("-j takes 1 to 64, not \(jobs)") }
        if let timing, !(10...10_000).contains(timing) {
            throw UsageError("--timing takes 10 to 10000 samples per class (a signed-rank test needs at least 10), not \(timing)")
        }
        if let load {
            guard (1...100_000).contains(load) else { throw UsageError("--load takes 1 to 100000 conversations, not \(load)") }
            guard host != nil, profile == .rsaSocket else { throw UsageError("--load takes one --host and the rsa-socket profile") }
        }
        if let shard {
            guard targetsFile != nil else { throw UsageError("--shard K/N splits the targets of --targets FILE; one --host has nothing to split: leave it out") }
            _ = try Self.parseShard(shard)
        }
        if profile == .aesHTTPS, pin == nil { throw UsageError("\(RemoteError.missingPin)") }
        // Issue 33: an option that does not apply to the profile is refused, never ignored.
        let notForProfile: [(Bool, String)] = profile == .rsaSocket
            ? [(pin != nil, "--pin"), (serverName != nil, "--server-name"), (checks.$user, "--user"), (checks.keyMode != nil, "--key-mode"),
               (skipATS, "--skip-ats")]
            : [(checks.$padding, "--padding"), (checks.$framing, "--framing"), (checks.$keyBits, "--key-bits"), ($direction, "--direction"),
               (checks.$quietGap, "--quiet-gap")]
        let refused = notForProfile.filter(\.0).map(\.1)
        if !refused.isEmpty {
            throw UsageError("\(refused.joined(separator: ", ")) \(refused.count == 1 ? "does" : "do") not apply to --profile \(profile.rawValue)"
                             + (profile == .rsaSocket ? " (they are for aes-https)" : " (they are for rsa-socket)") + ": leave \(refused.count == 1 ? "it" : "them") out")
        }
        if let host {
            do { _ = try ServerAddress(parsing: host, defaultPort: 1) } catch { throw UsageError("--host: \(error)") }
        }
    }

    /// `K/N` with 1 ≤ K ≤ N.
    static func parseShard(_ text: String) throws -> (index: Int, count: Int) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let index = parts[0], let count = parts[1], count >= 1, (1...count).contains(index) else {
            throw UsageError("--shard takes K/N with 1 ≤ K ≤ N (e.g. 1/4), not '\(text)'")
        }
        return (index, count)
    }

    func run() throws -> ExitCode {
        if protocolOptions.given { return try runDescribed() }
        guard let profile else { throw UsageError("--profile is required") }
        let pin = try self.pin.map { try PinFile.pemPath($0, command: "remote") }  // PEM or DER, as the app bundles it
        let known = try knownFailuresFile.map { try KnownFailureList.load($0, command: "remote") }
        var options = RemoteOptions()
        options.profile = profile
        checks.apply(to: &options)
        options.strict = strict
        options.directions = direction == .both ? RSASocket.Direction.allCases : [direction == .piToPhone ? .piToPhone : .phoneToPi]
        options.pin = pin
        options.serverName = serverName
        options.timingSamples = timing
        options.seed = seed
        options.foreignCertificate = Self.foreignCertificate(besides: pin)

        let defaultPort = port?.value ?? (profile == .rsaSocket ? 9876 : 8443)
        var targets: [ServerAddress]
        if let host {
            var target = try ServerAddress(parsing: host, defaultPort: defaultPort)
            if let port { target.port = port.value }
            targets = [target]
        } else {
            targets = try Self.readTargets(targetsFile ?? "", defaultPort: defaultPort)
        }
        if let shard {
            let (index, count) = try Self.parseShard(shard)
            targets = targets.enumerated().filter { $0.offset % count == index - 1 }.map(\.element)
        }

        if let load {
            let measured = RemoteLoad.run(targets[0], options: options, conversations: load, parallel: jobs)
            print(String(format: "%d of %d conversations completed in %.2f s at -j %d: %.1f conversations/s", measured.completed, load,
                         measured.seconds, jobs, Double(measured.completed) / max(measured.seconds, 1e-9)))
            if let failure = measured.firstFailure { printError("crosscheck remote: \(failure)") }
            return measured.completed == load ? .success : .checksFailed
        }
        let latch = InterruptLatch()
        let quiet = report.quiet
        // `--app DIR|seed-00N`: the app under test as one more client of each target (its own code and networking).
        let hosted = appOptions.app == nil ? [] : try appOptions.apps(files: ProjectFiles.locate(), quiet: quiet)
        defer { hosted.forEach { $0.stop() } }
        let apps = hosted.map { AppSubject($0, folder: appOptions.folder) }
        if !quiet { printError("crosscheck remote: \(targets.count) target(s), profile \(profile.rawValue), -j \(jobs)") }
        let started = Date()
        let (chosenOptions, skipATS) = (options, self.skipATS)  // immutable copies for the workers
        let collected = Self.checkEach(targets, jobs: jobs, latch: latch) { target in
            let report: (CheckResult) -> Void = { result in
                if quiet { return }
                switch result.outcome {
                case let .failed(message, _): printError("  FAIL \(target) \(result.check.name): \(message)")
                case let .error(message, _): printError("  ERROR \(target) \(result.check.name): \(message)")
                default: break
                }
            }
            var results = RemoteRun.run(target, options: chosenOptions, shouldStop: { latch.interrupted }, progress: report)
            // Issue 21: before any byte of aes-https, iOS's App Transport Security decides (testsuite ats.<host:port>).
            if chosenOptions.profile == .aesHTTPS, !skipATS, !latch.interrupted {
                let ats = ATSChecks.run(target, options: Self.atsOptions(chosenOptions), shouldStop: { latch.interrupted })
                ats.forEach(report)
                results += ats
            }
            for app in apps where !latch.interrupted {
                var remote = AppRemoteTarget(target: target, profile: chosenOptions.profile.rawValue)
                remote.serverName = chosenOptions.serverName
                remote.pin = chosenOptions.pin
                (remote.username, remote.password) = (chosenOptions.username, chosenOptions.password)
                remote.timeout = chosenOptions.timeout
                let appResults = Runner().run(AppRemoteChecks.checks(app, remote), shouldStop: { latch.interrupted })
                appResults.forEach(report)
                results += appResults
            }
            return results
        }
        let (results, knownFooter) = known.map {
            KnownFailureList.apply($0, path: knownFailuresFile ?? "", to: collected.all, checkStale: !latch.interrupted, fleet: targets.count > 1)
        } ?? (collected.all, [])
        let junit = JUnitAdapter.report(results, properties: [
            ("crosscheck.profile", profile.rawValue), ("crosscheck.strict", String(options.strict)),
            ("crosscheck.timeout", String(options.timeout)), ("crosscheck.framing", options.framing.rawValue),
            ("crosscheck.seed", String(options.seed)),
        ], timestamp: started)
        return try RunReport.finish(junit, interrupted: latch.interrupted, done: collected.finishedTargets, planned: targets.count,
                                    partial: collected.partialNote(planned: targets.count),
                                    started: started, junitPath: report.junit ?? "reports/remote.xml", footer: knownFooter)
    }

    /// `remote --protocol FILE --host H` (or `--targets FILE`): the described checks, the Swift
    /// engine as the client of each server; testsuites remote.<host:port> and audit.<host:port> each.
    func runDescribed() throws -> ExitCode {
        let description = try protocolOptions.description(command: "remote")
        // 0: no port from anywhere; a target then has to name its own.
        let defaultPort = port?.value ?? description.transport.port.map({ UInt16($0) }) ?? 0
        var targets: [ServerAddress]
        if let host {
            var address = try ServerAddress(parsing: host, defaultPort: defaultPort)
            if let given = self.port { address.port = given.value }
            targets = [address]
        } else {
            targets = try Self.readTargets(targetsFile ?? "", defaultPort: defaultPort)
        }
        if let unported = targets.first(where: { $0.port == 0 }) {
            throw UsageError("\(unported.host) has no port and the description names no transport.port: give --port P" + (host == nil ? ", or host:port in --targets" : ""))
        }
        if let shard {
            let (index, count) = try Self.parseShard(shard)
            targets = targets.enumerated().filter { $0.offset % count == index - 1 }.map(\.element)
        }
        let pin = try self.pin.map { try PinFile.pemPath($0, command: "remote") }
        if skipATS, description.transport.kind != .https {
            throw UsageError("--skip-ats leaves out App Transport Security, which governs https; the description's transport is \(description.transport.kind.rawValue): leave it out")
        }
        if description.transport.kind == .https, pin == nil {
            throw UsageError("the description's transport is https: give --pin CERT, the certificate the app bundles (PEM or DER)")
        }
        let known = try knownFailuresFile.map { try KnownFailureList.load($0, command: "remote") }
        var options = DescribedRemote.Options()
        options.timeout = checks.timeout.value
        options.quietGap = checks.quietGap.value
        options.strict = strict
        options.seed = seed
        options.timingSamples = timing
        let colon = checks.user.firstIndex(of: ":") ?? checks.user.endIndex
        options.config["username"] = String(checks.user[..<colon])
        options.config["password"] = String(checks.user[checks.user.index(after: colon)...])
        try protocolOptions.apply(to: &options, description: description)
        if let load {
            let target = DescribedTarget(.network(targets[0]), pin: pin, serverName: serverName, timeout: options.timeout)
            let measured = DescribedRemote.load(description, target: target, options: options, conversations: load, parallel: jobs)
            print(String(format: "%d of %d conversations (%@) completed in %.2f s at -j %d: %.1f conversations/s", measured.completed, load,
                         description.conversations[0].name, measured.seconds, jobs, Double(measured.completed) / max(measured.seconds, 1e-9)))
            if let failure = measured.firstFailure { printError("crosscheck remote: \(failure)") }
            return measured.completed == load ? .success : .checksFailed
        }
        let quiet = report.quiet
        let latch = InterruptLatch()  // before the first line, which tells a waiting caller that SIGINT is handled
        if !quiet {
            let place = targets.count == 1 ? "\(targets[0])" : "\(targets.count) targets, -j \(jobs)"
            printError("crosscheck remote: \(place), protocol \(description.name) (\(protocolOptions.file ?? ""))")
        }
        // `--app DIR|seed-00N`: the app's own client of the description, one more client of each target.
        let files = ProjectFiles.locate()
        let hosted = appOptions.app == nil ? [] : try appOptions.apps(files: files, quiet: quiet)
        defer { hosted.forEach { $0.stop() } }
        let apps = hosted.map { AppSubject($0, folder: appOptions.folder) }
        let started = Date()
        let (chosenOptions, skipATS, serverName) = (options, self.skipATS, self.serverName)  // immutable copies for the workers
        let progress = SharedProgress(quiet: quiet, known: known, fleet: targets.count > 1)
        let collected = Self.checkEach(targets, jobs: jobs, latch: latch) { address in
            let target = DescribedTarget(.network(address), pin: pin, serverName: serverName, timeout: chosenOptions.timeout)
            var (results, downSince) = DescribedRemote.check(description, target: target, options: chosenOptions, shouldStop: { latch.interrupted },
                                                              progress: progress.record)
            // An iOS app reaches an https server through the URL Loading System, which App Transport
            // Security governs before any byte of the protocol: the same testsuite ats.<host:port> as
            // --profile aes-https runs (Apple, NSAppTransportSecurity). A raw socket (tcp) is not ATS's.
            if description.transport.kind == .https, !skipATS, !latch.interrupted {
                var ats = ATSOptions()
                (ats.pin, ats.serverName, ats.timeout) = (pin, serverName, chosenOptions.timeout)
                let atsResults = ATSChecks.run(address, options: ats, classname: "crosscheck.described.\(description.name).ats", shouldStop: { latch.interrupted })
                atsResults.forEach(progress.record)
                results += atsResults
            }
            for app in apps where !latch.interrupted {
                var remote = AppRemoteTarget(target: address, profile: description.name)
                (remote.serverName, remote.pin, remote.timeout) = (serverName, pin, chosenOptions.timeout)
                let appResults = Runner().run(AppRemoteChecks.described(app, remote, description: description, files: files, serverDownSince: downSince),
                                              shouldStop: { latch.interrupted })
                appResults.forEach(progress.record)
                results += appResults
            }
            return results
        }
        let (results, knownFooter) = known.map {
            KnownFailureList.apply($0, path: knownFailuresFile ?? "", to: collected.all, checkStale: !latch.interrupted, fleet: targets.count > 1)
        } ?? (collected.all, [])
        let junit = JUnitAdapter.report(results, properties: [
            ("crosscheck.protocol", protocolOptions.file ?? ""), ("crosscheck.protocol.name", description.name),
            ("crosscheck.strict", String(options.strict)), ("crosscheck.timeout", String(options.timeout)), ("crosscheck.seed", String(seed)),
        ], timestamp: started)
        let footer = knownFooter + description.weaknesses.map { "weak by description: \($0)" }
        if targets.count == 1 {
            return try RunReport.finish(junit, interrupted: latch.interrupted, done: results.count, planned: nil,
                                        started: started, junitPath: report.junit ?? "reports/remote.xml", footer: footer)
        }
        return try RunReport.finish(junit, interrupted: latch.interrupted, done: collected.finishedTargets, planned: targets.count,
                                    partial: collected.partialNote(planned: targets.count),
                                    started: started, junitPath: report.junit ?? "reports/remote.xml", footer: footer)
    }

    /// Progress lines from concurrent targets, one at a time. One server: the suite tallies, with
    /// the known-failures list applied as the report will have it. A fleet: each failure with the
    /// server it is of (their checks share names, and their suites interleave), as it came — whether
    /// a listed check is known or fixed is told only across every server, in the summary.
    final class SharedProgress: @unchecked Sendable {
        private var printer: ProgressPrinter
        private var done = 0
        private let known: KnownFailures?
        private let fleet: Bool
        private let lock = NSLock()
        init(quiet: Bool, known: KnownFailures?, fleet: Bool) { printer = ProgressPrinter(quiet: quiet); self.known = known; self.fleet = fleet }
        func record(_ result: CheckResult) {
            lock.lock(); defer { lock.unlock() }
            done += 1
            guard fleet else { return printer.record(done: done, total: 0, result: known?.apply(to: result) ?? result) }
            guard !printer.quiet else { return }
            switch result.outcome {
            case let .failed(message, _): printError("  \(Verdict.fail.padded) [\(result.check.suite)] \(result.check.fullName): \(message)")
            case let .error(message, _): printError("  \(Verdict.error.padded) [\(result.check.suite)] \(result.check.fullName): \(message)")
            case .passed, .skipped: break
            }
        }
    }

    static func readTargets(_ path: String, defaultPort: UInt16) throws -> [ServerAddress] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandExit(.noInput, "crosscheck remote: --targets \(path): no such file, or not readable")
        }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
            .map { $0.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "" }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !lines.isEmpty else { throw CommandExit(.noInput, "crosscheck remote: --targets \(path): no targets in the file (one host:port per line)") }
        return try lines.enumerated().map { number, line in
            do { return try ServerAddress(parsing: line, defaultPort: defaultPort) } catch {
                throw CommandExit(.noInput, "crosscheck remote: --targets \(path), target \(number + 1): \(error)")
            }
        }
    }

    /// `crosscheck ats` as the aes-https profile runs it: the same pin, name and deadline.
    static func atsOptions(_ options: RemoteOptions) -> ATSOptions {
        var ats = ATSOptions()
        ats.pin = options.pin
        ats.serverName = options.serverName
        ats.timeout = options.timeout
        return ats
    }

    /// A certificate that is surely not the server's (the repo's impostor test certificate), to show
    /// that a client pinned to it refuses the server.
    static func foreignCertificate(besides pin: String?) -> String? {
        let candidate = ProjectFiles.locate().tls.appendingPathComponent("impostor.crt.pem").path
        guard FileManager.default.isReadableFile(atPath: candidate), let pin,
              (try? Data(contentsOf: URL(fileURLWithPath: pin))) != (try? Data(contentsOf: URL(fileURLWithPath: candidate))) else { return nil }
        return candidate
    }

    /// Each target checked by `check`, `jobs` at once; once interrupted no target starts, and one
    /// under way is kept as cut short.
    static func checkEach(_ targets: [ServerAddress], jobs: Int, latch: InterruptLatch, _ check: @Sendable (ServerAddress) -> [CheckResult]) -> Collected {
        let collected = Collected(count: targets.count)
        DispatchQueue.concurrentPerform(iterations: min(jobs, max(targets.count, 1))) { worker in
            var index = worker
            while index < targets.count, !latch.interrupted {
                let results = check(targets[index])
                collected.set(index, results, complete: !latch.interrupted)
                index += jobs
            }
        }
        return collected
    }

    /// Results of concurrent targets, kept in target order, and which were checked to the end.
    final class Collected: @unchecked Sendable {
        private var slots: [(results: [CheckResult], complete: Bool)?]
        private let lock = NSLock()
        init(count: Int) { slots = Array(repeating: nil, count: count) }
        /// `complete`: false for a target whose checks an interrupt cut short.
        func set(_ index: Int, _ results: [CheckResult], complete: Bool) { lock.withLock { slots[index] = (results, complete) } }
        var all: [CheckResult] { lock.withLock { slots.compactMap { $0 }.flatMap(\.results) } }
        var finishedTargets: Int { lock.withLock { slots.compactMap { $0 }.filter(\.complete).count } }
        /// For an interrupted run's report: how many targets were checked to the end, and how many in part.
        func partialNote(planned: Int) -> String {
            let (finished, cut) = lock.withLock { (slots.compactMap { $0 }.filter(\.complete).count, slots.compactMap { $0 }.filter { !$0.complete }.count) }
            let notStarted = planned - finished - cut
            return "interrupted: \(finished) of \(planned) targets checked to the end"
                + (cut > 0 ? ", \(cut) cut short (their checks after the interrupt did not run)" : "")
                + (notStarted > 0 ? ", \(notStarted) not started" : "")
        }
    }
}
