// AppChecks — the app under test as a fourth implementation in the suites: a seed app's own code
// or a team's (through the adapter of Sources/AppUnderTest), checked against PythonRef, the
// openssl command line and the Swift and PythonRef servers. `roundtrip.app_to_python` and
// `roundtrip.python_to_app`, `vectors.openssl_to_app` and `vectors.app_to_openssl`,
// `sessions.app_client.<server>_server` and `sessions.app_pinning` (with a team's server in the
// server seat, `sessions.app_client.team_server.<server>`). Classnames keep
// `crosscheck.<profile>.<relation>`; the app's identifier starts each testcase name
// (`crosscheck.sealed.app_to_python.seed-003.aes-gcm256.fixed-plaintext`), so one report can
// hold several apps and a known-failures pattern can name one.
// May import: Conformance (the core), AppUnderTest, WireCrypto, WireProtocol, Transport.
// Never the seed apps (the CLI composes: it makes the apps and passes them in).
import Foundation
import AppUnderTest
import Conformance
import Transport
import WireCrypto

/// The app-under-test checks of each suite; `crosscheck run` adds them to the suite of that name.
public enum AppSuites {
    public static func roundTrip(_ context: SuiteContext, apps: [AppSubject]) -> [Check] {
        apps.flatMap { AppRoundTrips.checks(context, app: $0) }
    }

    public static func vectors(_ context: SuiteContext, apps: [AppSubject]) -> [Check] {
        let openssl = Result { try OpenSSLTool.locate() }.mapError { $0 as? OpenSSLToolError ?? .notFound("\($0)") }
        return apps.flatMap { AppVectorChecks.checks(context, app: $0, openssl: openssl) }
    }

    public static func sessions(_ context: SuiteContext, apps: [AppSubject], settings: AppSessionSettings) -> [Check] {
        var checks = apps.flatMap { AppSessionChecks.checks(context, app: $0, settings: settings) }
        if apps.contains(where: { $0.has(CertificatePinning.self) }) { checks.append(iosCertificateExpiry(context)) }
        return checks + apps.flatMap { AppPinningChecks.checks(context, app: $0) }
    }

    /// `run --server … --suite sessions --app …`: the apps as clients of the team's server in the
    /// server seat (no pinning: no TLS in-process), in place of their conversations with Swift's and PythonRef's.
    public static func teamServerSessions(apps: [AppSubject], seat: TeamServerSeat<any InProcessServer>, settings: AppSessionSettings) -> [Check] {
        apps.flatMap { AppTeamServerChecks.checks($0, seat: seat, settings: settings) }
    }

    /// The maintenance check of Vectors/tls/ios-*: passes while more than 90 days remain, warns
    /// (a skip) within them, fails once they have expired. `now` is for tests.
    public static func iosCertificateExpiry(_ context: SuiteContext, now: Date = Date()) -> Check {
        AppPinningChecks.maintenanceCheck(context, now: now)
    }
}

/// One app under test as the suites hold it: its identifier, and the app used by one check at a
/// time (app code is not thread-safe, and an app in its own process answers one request at a time).
public final class AppSubject: @unchecked Sendable {
    public let identifier: String
    public let summary: String
    private let app: AppUnderTest
    private let lock = NSLock()

    /// The folder the app's code came from (`--app DIR`), where its adapter's relative paths are looked for first.
    public let folder: URL?

    public init(_ app: AppUnderTest, folder: URL? = nil) {
        self.app = app
        identifier = app.identifier
        summary = app.summary
        self.folder = folder
    }

    /// An app made by `make` (an adapter's init runs app code, which may print), or nil.
    public static func making(_ make: () -> AppUnderTest?) -> AppSubject? {
        AppOutput.toStandardError { make() }.map { AppSubject($0) }
    }

    public var capabilityNames: [String] { lock.lock(); defer { lock.unlock() }; return app.capabilityNames }

    public func has<T>(_ capability: T.Type) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return app.capability(capability) != nil
    }

    /// A property of a capability, read when the checks are built (nil without the capability).
    func read<T, R>(_ capability: T.Type, _ property: (T) -> R) -> R? {
        lock.lock(); defer { lock.unlock() }
        return app.capability(capability).map(property)
    }

    /// Where one of the app's logs is read from later: a file in its container when it runs in a
    /// process of its own (every app a command hosts), from its size now; else a count in this process.
    enum LogMark {
        case inProcess(Int)
        case log(URL, offset: UInt64)
    }

    /// `file` of the app's container from where it ends now, or `inProcess` without a container.
    func mark(_ file: KeyPath<AppContainer, URL>, inProcess: @autoclosure () -> Int) -> LogMark {
        guard let log = read(KeyStorageInspection.self, { $0.container[keyPath: file] }) else { return .inProcess(inProcess()) }
        let size = (try? FileManager.default.attributesOfItem(atPath: log.path)[.size] as? NSNumber)?.uint64Value ?? 0
        return .log(log, offset: size)
    }

    /// The app's printed lines (its container's console log, else AppConsole in this process).
    var consoleMark: LogMark { mark(\.console, inProcess: AppConsole.mark) }

    /// The app's implicit rejections (SecurityEventLog: its container's log, else this process's count).
    var securityMark: LogMark { mark(\.securityEvents, inProcess: SecurityEventLog.implicitRejectionCount) }

    /// How many PKCS#1 v1.5 decryptions the app made since `mark` answered a synthetic message.
    func implicitRejections(since mark: LogMark) -> Int {
        switch mark {
        case let .inProcess(count): return SecurityEventLog.implicitRejectionCount - count
        case let .log(url, offset): return SecurityEventLog.implicitRejections(in: url, after: offset)
        }
    }

    /// The lines the app printed since `mark` (the last `AppConsole.capacity` of them).
    func lines(since mark: LogMark) -> [String] {
        switch mark {
        case .inProcess(let mark):
            return AppConsole.lines(since: mark)
        case let .log(url, offset):
            guard let handle = try? FileHandle(forReadingFrom: url) else { return [] }
            defer { try? handle.close() }
            guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.readToEnd() else { return [] }
            var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if lines.last == "" { lines.removeLast() }
            return Array(lines.suffix(AppConsole.capacity))
        }
    }

    /// Runs `body` with the app as `capability`. What app code prints (the seeds log to stdout)
    /// goes to stderr meanwhile, so stdout keeps only crosscheck's summary.
    func with<T, R>(_ capability: T.Type, _ body: (T) throws -> R) throws -> R {
        lock.lock(); defer { lock.unlock() }
        guard let adopted = app.capability(capability) else {
            throw CheckFailure("\(identifier) does not adopt \(capability) (its capabilities changed while the checks ran)")
        }
        return try AppOutput.toStandardError { try body(adopted) }
    }
}

/// What the app must do, and what it must refuse. The app's own errors (an `AppFailure`, a
/// thrown `CryptoKitError`, a status) are its answers; `AppUnreachable` (its process died or
/// hung) is not an answer and passes through, so the check ends as an error, never a verdict.
enum AppExpect {
    /// `function`: the app's function the adapter calls, as the adapter declares it; a failure names
    /// it and the error it threw, so the developer knows where to look.
    static func succeeds<R>(_ app: AppSubject, _ what: String, function: String = "", _ step: () throws -> R) throws -> R {
        let console = app.consoleMark
        do { return try step() } catch let unreachable as AppUnreachable { throw unreachable } catch let failure as CheckFailure {
            throw failure
        } catch {
            let inFunction = function.isEmpty ? "" : " in \(function)"
            let thrown = function.isEmpty || error is AppFailure ? "\(error)" : "\(error) (\(type(of: error)))"
            throw CheckFailure("\(app.identifier) failed to \(what)\(inFunction): \(thrown)", details: printed(app, since: console))
        }
    }

    /// What the app printed since `mark` (its console, as a phone would show it), for a failure's body.
    static func printed(_ app: AppSubject, since mark: AppSubject.LogMark) -> String {
        let lines = app.lines(since: mark)
        return lines.isEmpty ? "" : "the app printed:\n" + lines.map { "  \($0)" }.joined(separator: "\n")
    }

    /// The app must refuse: throw (anything but `AppUnreachable`) and release nothing.
    static func refuses(_ app: AppSubject, _ what: String, _ step: () throws -> Data) throws {
        let released: Data
        do { released = try step() } catch let unreachable as AppUnreachable { throw unreachable } catch let failure as CheckFailure {
            throw failure
        } catch {
            return
        }
        throw CheckFailure("\(app.identifier) accepted \(what) and released \(released.count) bytes", details: "released: \(Expect.preview(released))")
    }

    /// Two JSON values are the same when their sorted serializations are.
    static func sameJSON(_ actual: Any, _ expected: Any, _ what: String) throws {
        let canonical = { (value: Any) -> Data? in
            try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        }
        guard let a = canonical(actual), let b = canonical(expected) else { throw CheckFailure("\(what): not JSON values") }
        guard a == b else {
            throw CheckFailure("\(what): expected \(String(decoding: b, as: UTF8.self)), got \(String(decoding: a, as: UTF8.self))")
        }
    }
}

/// The names an adapter gives, as the peers take them.
enum AppCheckNames {
    /// "pkcs1", "oaep-sha1" or "oaep-sha256" (docs/PROTOCOL.md's names).
    static func padding(_ name: String) -> RSAEncryptionPadding? { try? RSAEncryptionPadding(name: name) }
}

/// App code's prints, sent to stderr while it runs (file descriptor 1 pointed at 2, then back).
enum AppOutput {
    static func toStandardError<R>(_ body: () throws -> R) rethrows -> R {
        fflush(nil)
        let saved = dup(STDOUT_FILENO)
        guard saved >= 0 else { return try body() }
        dup2(STDERR_FILENO, STDOUT_FILENO)
        defer {
            fflush(nil)
            dup2(saved, STDOUT_FILENO)
            close(saved)
        }
        return try body()
    }
}
