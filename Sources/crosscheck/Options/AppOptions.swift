import Foundation
import AppChecks
import AppHost
import AppUnderTest
import CommandLineKit
import Conformance
import SeedApps

/// `--app DIR|SEED`: the app under test. By default the five seed apps; a seed's identifier picks
/// one; a folder is a team's app: its Swift files and adapter are built into a host (AppPackage).
/// Every app runs in a process of its own (a seed app in `crosscheck app-host SEED`) and in a
/// container of its own (reports/app-containers/NAME: its home, and console.log with what it
/// printed), seen through HostedApp, so the suites see the same capability protocols and the
/// key-storage audit can read what the app wrote.
struct AppOptions: ParsableArguments {
    @Option(name: "--app", value: "DIR|SEED", help: "the app under test: a folder of Swift files (the app's crypto code, unchanged, plus an adapter defining makeAppUnderTest(); built with swift build in reports/app-build/) or one seed app (\(SeedApps.identifiers.joined(separator: ", "))); default: the five seed apps. Each runs in its own process and container, reports/app-containers/NAME")
    var app: String?
    @Option(name: "--app-build-timeout", value: "S", help: "deadline for building --app DIR, in seconds (a first build compiles crosscheck's CryptoKit, Security and CommonCrypto too)")
    var buildTimeout: Double = 1800
    @Option(name: "--app-timeout", value: "S", help: "deadline for each request to an --app DIR host, in seconds; a host that misses it is stopped and the check is an error")
    var requestTimeout: Double = 60
    @Option(name: "--app-user", value: "present|absent|cancel", help: "the simulated user who answers the app's biometry and passcode prompts (items and keys with kSecAttrAccessControl): present authenticates, cancel taps Cancel (errSecUserCanceled), absent fails (errSecAuthFailed)")
    var appUser: String = "present"
    @Option(name: "--app-exclude", value: "GLOB[,GLOB…]", help: "files of --app DIR not to build, as fnmatch globs against each file's path in the folder and its name (e.g. 'Legacy/*,*Tests.swift'); files importing UIKit or SwiftUI, main.swift and @main files are left out anyway, each with a note")
    var exclude: String = ""
    @Option(name: "--app-target", value: "NAME", help: "with --app an Xcode project (DIR/NAME.xcodeproj, or a folder holding one): the target whose Swift files (its Sources phase) and resources are the app, default its one app target; with --app a Swift package (a folder with Package.swift): the target under Sources/, default all of them")
    var target: String?
    @Flag(name: "--app-coverage", help: "build --app DIR with coverage instrumentation of its own files and print, after the run, the lines the checks ran in each of them (llvm-cov); a file at 0% is code no check exercised")
    var coverage: Bool
    @Option(name: "--ios", value: "VERSION", help: "the iOS version the app's Apple modules behave as where iOS versions differ (e.g. from 17.4 a PKCS#1 v1.5 decryption with the wrong key returns a random message instead of an error); default \(AppTargetIOS.defaultVersion), the current iOS")
    var ios: String = AppTargetIOS.defaultVersion
    init() {}

    func validate() throws {
        guard buildTimeout > 0, requestTimeout > 0 else { throw UsageError("--app-build-timeout and --app-timeout take a number of seconds above 0") }
        guard AppUser.choices.contains(appUser) else { throw UsageError("--app-user takes \(AppUser.choices.joined(separator: ", ")), not \(appUser)") }
        guard AppTargetIOS.isValid(ios) else { throw UsageError("--ios takes an iOS version such as 17.3, 17.4 or 26, not \(ios)") }
        if let app, app.isEmpty { throw UsageError("--app takes a folder or a seed app (\(SeedApps.identifiers.joined(separator: ", ")))") }
        let folder = app.map { !SeedApps.identifiers.contains($0) } ?? false
        for (given, option) in [(target != nil, "--app-target"), (!exclude.isEmpty, "--app-exclude"), (coverage, "--app-coverage")] where given && !folder {
            throw UsageError("\(option) goes with --app DIR (a folder, an Xcode project or a Swift package), not with the seed apps")
        }
    }

    /// Where each app's container goes.
    static let containerRoot = URL(fileURLWithPath: "reports/app-containers")

    /// The apps for this run, all hosted (stop them at its end). A folder that cannot become
    /// an app ends the command: 66 when the folder is not usable as given (no Swift files, no
    /// adapter, an entry point of its own), 69 when it does not build; 73 when a container
    /// cannot be made.
    /// The folder of `--app`'s code (nil for the seed apps), where the adapter's relative paths are looked for.
    var folder: URL? {
        guard let app, !SeedApps.identifiers.contains(app) else { return nil }
        let url = URL(fileURLWithPath: app)
        return url.pathExtension == "xcodeproj" ? url.deletingLastPathComponent() : url
    }

    func apps(files: ProjectFiles, quiet: Bool) throws -> [HostedApp] {
        guard let app else { return try SeedApps.identifiers.map(hostedSeed) }
        if SeedApps.identifiers.contains(app) { return [try hostedSeed(app)] }
        let project: XcodeProject?
        do { project = try XcodeProject.find(at: URL(fileURLWithPath: app)).map(XcodeProject.init(bundle:)) } catch {
            throw CommandExit(.noInput, "crosscheck run: --app \(app): \(error)")
        }
        var package = AppPackage(sources: project?.root ?? URL(fileURLWithPath: app), checkout: Self.checkout(files),
                                 buildRoot: URL(fileURLWithPath: "reports/app-build"))
        package.coverage = coverage
        do {
            let selection = try Self.select(package, project: project, target: target, excludes: exclude.split(separator: ",").map(String.init))
            for note in selection.leftOut where !quiet { printError("crosscheck run: left out \(note)") }
            let swiftFiles = selection.swiftFiles
            guard !swiftFiles.isEmpty else { throw AppBuildError.noSwiftFiles(package.sources.path) }
            try package.check(swiftFiles)
            for (file, names) in package.unreachedFiles(swiftFiles) {
                printError("crosscheck run: no check exercises \(file): nothing the adapter calls uses what it declares (\(names.prefix(6).joined(separator: ", "))\(names.count > 6 ? ", …" : "")); "
                           + "adopt the capability for what it does in the adapter (PeerKeyEncryption for encrypting to the Pi's key, RequestSigning for a request signer, …) or leave it out with --app-exclude")
            }
            try package.prepare(swiftFiles)
            if !quiet { printError("crosscheck run: building the app in \(package.sources.path) (\(swiftFiles.count) Swift files) in \(package.directory.path) …") }
            let executable = try package.build(timeout: buildTimeout, waiting: { if !quiet { printError("crosscheck run: \($0)") } })
            for note in try package.installResources(selection.resources) where !quiet { printError("crosscheck run: resource not bundled: \(note)") }
            if !quiet, !selection.resources.isEmpty {
                printError("crosscheck run: \(selection.resources.count) resource file(s) beside the host, in Bundle.main: \(selection.resources.map { ($0 as NSString).lastPathComponent }.joined(separator: ", "))")
            }
            var container = try Self.container("\(package.sources.lastPathComponent)-\(package.directory.lastPathComponent.prefix(8))")
            // What the app ships, for hard-coded keys: its executable and its folder (sources and resources).
            container.bundle = [executable, package.sources]
            var environment = AppTargetIOS.environment(AppUser.environment(container.environment(), user: appUser), version: ios)
            if coverage {
                let measured = AppCoverage(package: package, files: swiftFiles, profiles: container.folder.appendingPathComponent("coverage"))
                try? FileManager.default.createDirectory(at: measured.profiles, withIntermediateDirectories: true)
                environment = measured.environment(environment)
                Self.coverageGuard.withLock { Self.coverageRuns.append(measured) }
            }
            let hosted = try HostedApp(launch: { try HostChannel.launch(executable: executable, log: container.console, environment: environment) },
                                       container: container, requestTimeout: requestTimeout)
            if !quiet { printError("crosscheck run: the app under test is \(hosted.identifier) (\(hosted.capabilities.joined(separator: ", "))), hosted by \(executable.path) in \(container.folder.path)") }
            return [hosted]
        } catch let error as AppBuildError {
            switch error {
            case .noDirectory: throw UsageError("--app \(app): \(error)")
            case .noSwiftFiles, .noAdapter, .ownEntryPoint: throw CommandExit(.noInput, "crosscheck run: --app \(app): \(error)")
            case .compileErrors, .buildFailed, .timedOut, .busy, .noToolchain: throw CommandExit(.unavailable, "crosscheck run: --app \(app): \(error)")
            }
        } catch let error as HostStartError {
            throw CommandExit(.unavailable, "crosscheck run: --app \(app): the app was built but its host did not start: \(error)")
        }
    }

    /// The files to build: a folder's Swift files, or an Xcode target's (its Sources phase) plus the
    /// adapter files beside the project that no target holds; `--app-exclude`, UI files and entry
    /// points left out (AppPackage.select).
    static func select(_ package: AppPackage, project: XcodeProject?, target: String?, excludes: [String]) throws -> AppPackage.Selection {
        guard let project else {
            if package.isSwiftPackage { return try package.selectSwiftPackage(target: target, excludes: excludes) }
            if target != nil { throw UsageError("--app-target names a target of an Xcode project or a Swift package; \(package.sources.path) holds neither") }
            return package.select(try package.swiftFiles(), excludes: excludes)
        }
        let chosen: XcodeProject.Target
        do { chosen = try project.target(target) } catch { throw CommandExit(.noInput, "crosscheck run: --app \(project.bundle.path): \(error)") }
        let inTargets = Set(project.targets().flatMap(\.swiftFiles))
        let adapters = ((try? package.swiftFiles()) ?? []).filter { file in
            !inTargets.contains(file) && AppPackage.definesAdapter((try? String(contentsOf: package.sources.appendingPathComponent(file), encoding: .utf8)) ?? "")
        }
        var selection = package.select(chosen.swiftFiles + adapters, excludes: excludes, resourceCandidates: chosen.resources)
        selection.leftOut += chosen.otherSources.map { AppPackage.LeftOut(file: $0, reason: "not Swift (the target's Objective-C or C sources are not built)") }
        return selection
    }

    /// The apps built with --app-coverage in this run, reported once their hosts have stopped.
    nonisolated(unsafe) private static var coverageRuns: [AppCoverage] = []
    private static let coverageGuard = NSLock()

    /// After the hosts stopped (they write their profiles as they exit): the lines the checks ran in
    /// each app file, on stderr. Nothing without --app-coverage.
    static func printCoverage() {
        let runs = coverageGuard.withLock { () -> [AppCoverage] in defer { coverageRuns.removeAll() }; return coverageRuns }
        for run in runs {
            do {
                let files = try run.report()
                printError("crosscheck run: coverage of the app's files by the checks run (llvm-cov, lines; profiles in \(run.profiles.path)):")
                for file in files {
                    printError(String(format: "  %6.1f%%  %5d of %5d lines  ", file.percent, file.lines - file.missed, file.lines) + file.file
                               + (file.lines > 0 && file.missed == file.lines ? "   <- no check ran any of it" : ""))
                }
            } catch { printError("crosscheck run: --app-coverage: \(error)") }
        }
    }

    /// A seed app in `crosscheck app-host SEED`, this very binary, in a container of its own.
    func hostedSeed(_ seed: String) throws -> HostedApp {
        let container = try Self.container(seed)
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        let environment = AppTargetIOS.environment(AppUser.environment(container.environment(), user: appUser), version: ios)
        do {
            return try HostedApp(launch: { try HostChannel.launch(executable: executable, arguments: ["app-host", seed], log: container.console,
                                                                  environment: environment) },
                                 container: container, requestTimeout: requestTimeout)
        } catch {
            throw CommandExit(.software, "crosscheck run: the seed app \(seed) did not start in its own process (\(executable.path) app-host \(seed)): \(error)")
        }
    }

    /// A fresh container for the app called `name` (what a previous run left there is removed).
    /// A fresh container for `name`, claimed for this process: reports/app-containers/NAME, or
    /// NAME-2, NAME-3, … while another crosscheck run (a second CI job, a parallel test) holds the
    /// one before, so two runs never empty each other's container mid-run.
    static func container(_ name: String) throws -> AppContainer {
        let claimed = try claimContainerName(name)
        do { return try AppContainer.fresh(in: containerRoot.appendingPathComponent(claimed)) } catch {
            throw CommandExit(.cannotCreate, "crosscheck run: cannot make the app's container in \(containerRoot.appendingPathComponent(claimed).path): \(error)")
        }
    }

    /// Lock files of the containers this process holds, open until it exits (the kernel drops the
    /// locks then, however it exits).
    nonisolated(unsafe) private static var heldLocks: [Int32] = []
    private static let lockGuard = NSLock()

    /// The first of NAME, NAME-2, … whose lock file (reports/app-containers/.NAME.lock, beside the
    /// container, which a fresh container removes) this process can lock.
    static func claimContainerName(_ name: String) throws -> String {
        let root = containerRoot.path
        do { try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true) } catch {
            throw CommandExit(.cannotCreate, "crosscheck run: cannot make \(root) for the app's container: \(error)")
        }
        for index in 1...64 {
            let candidate = index == 1 ? name : "\(name)-\(index)"
            let lockPath = "\(root)/.\(candidate).lock"
            let descriptor = open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw CommandExit(.cannotCreate, "crosscheck run: cannot open \(lockPath) to claim the app's container: \(String(cString: strerror(errno)))")
            }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                lockGuard.withLock { heldLocks.append(descriptor) }
                return candidate
            }
            close(descriptor)
        }
        throw CommandExit(.cannotCreate, "crosscheck run: 64 crosscheck runs hold the containers of \(name) in \(root); wait for one to end")
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
