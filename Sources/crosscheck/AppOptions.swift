import Foundation
import AppChecks
import AppHost
import AppUnderTest
import CommandLineKit
import Conformance
import SeedApps

/// `--app DIR|SEED`: the app under test. By default the five seed apps, in process (their own
/// code through their adapters); a seed's identifier picks one; a folder is a team's app: its
/// Swift files and adapter are built into a host (AppPackage) and served out of process
/// (HostedApp), so the suites see it through the same capability protocols.
struct AppOptions: ParsableArguments {
    @Option(name: "--app", value: "DIR|SEED", help: "the app under test: a folder of Swift files (the app's crypto code, unchanged, plus an adapter defining makeAppUnderTest(); built with swift build in reports/app-build/) or one seed app (\(SeedApps.identifiers.joined(separator: ", "))); default: the five seed apps, in process")
    var app: String?
    @Option(name: "--app-build-timeout", value: "S", help: "deadline for building --app DIR, in seconds (a first build compiles crosscheck's CryptoKit, Security and CommonCrypto too)")
    var buildTimeout: Double = 1800
    @Option(name: "--app-timeout", value: "S", help: "deadline for each request to an --app DIR host, in seconds; a host that misses it is stopped and the check is an error")
    var requestTimeout: Double = 60
    init() {}

    func validate() throws {
        guard buildTimeout > 0, requestTimeout > 0 else { throw UsageError("--app-build-timeout and --app-timeout take a number of seconds above 0") }
        if let app, app.isEmpty { throw UsageError("--app takes a folder or a seed app (\(SeedApps.identifiers.joined(separator: ", ")))") }
    }

    /// The apps for this run, and the hosted one to stop at its end. A folder that cannot become
    /// an app ends the command: 66 when the folder is not usable as given (no Swift files, no
    /// adapter, an entry point of its own), 69 when it does not build.
    func apps(files: ProjectFiles, quiet: Bool) throws -> (apps: [AppSubject], hosted: HostedApp?) {
        guard let app else { return (SeedApps.identifiers.compactMap { id in AppSubject.making { SeedApps.make(id) } }, nil) }
        if let seed = AppSubject.making({ SeedApps.make(app) }) { return ([seed], nil) }
        let package = AppPackage(sources: URL(fileURLWithPath: app), checkout: Self.checkout(files),
                                 buildRoot: URL(fileURLWithPath: "reports/app-build"))
        do {
            let swiftFiles = try package.swiftFiles()
            try package.check(swiftFiles)
            try package.prepare(swiftFiles)
            if !quiet { printError("crosscheck run: building the app in \(package.sources.path) (\(swiftFiles.count) Swift files) in \(package.directory.path) …") }
            let executable = try package.build(timeout: buildTimeout)
            let log = package.hostLog
            let hosted = try HostedApp(launch: { try HostChannel.launch(executable: executable, log: log) }, requestTimeout: requestTimeout)
            if !quiet { printError("crosscheck run: the app under test is \(hosted.identifier) (\(hosted.capabilities.joined(separator: ", "))), hosted by \(executable.path)") }
            return ([AppSubject(hosted)], hosted)
        } catch let error as AppBuildError {
            switch error {
            case .noDirectory: throw UsageError("--app \(app): \(error)")
            case .noSwiftFiles, .noAdapter, .ownEntryPoint: throw CommandExit(.noInput, "crosscheck run: --app \(app): \(error)")
            case .compileErrors, .buildFailed, .timedOut, .noToolchain: throw CommandExit(.unavailable, "crosscheck run: --app \(app): \(error)")
            }
        } catch let error as HostStartError {
            throw CommandExit(.unavailable, "crosscheck run: --app \(app): the app was built but its host did not start: \(error)")
        }
    }

    /// The crosscheck checkout the app's package depends on: the one whose Vectors/ this run
    /// uses, else the one this binary was compiled from.
    static func checkout(_ files: ProjectFiles) -> URL {
        let candidate = files.vectors.deletingLastPathComponent()
        let manifest = candidate.appendingPathComponent("Package.swift")
        if let text = try? String(contentsOf: manifest, encoding: .utf8), text.contains("name: \"AppHost\"") { return candidate }
        return ProjectFiles.compiledCheckout
    }
}
