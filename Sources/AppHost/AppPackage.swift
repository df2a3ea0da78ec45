import Foundation

/// A team's app as a SwiftPM package crosscheck builds: the Swift files of a folder (the team's
/// own crypto code, unchanged, importing CryptoKit/Security/CommonCrypto as on iOS, plus an
/// adapter that defines `makeAppUnderTest()`), copied into `<build root>/<hash of the folder's
/// path>/Sources/App/` next to a generated entry point that serves the adapter's app over the host
/// protocol and a generated re-export of AppleImplicitImports (so files that import only Foundation
/// see Security's names, as on iOS), and a Package.swift that depends on this checkout by path
/// (products CryptoKit, Security, CommonCrypto, AppleImplicitImports, AppUnderTest, AppHost). The folder for one source folder is kept
/// between runs, so a second build only recompiles what changed.
public struct AppPackage: Sendable {
    /// The function the adapter must define.
    public static let entryPoint = "makeAppUnderTest"
    /// The generated file that calls it (a name app code is unlikely to use).
    public static let generatedMain = "CrosscheckAppHostMain.generated.swift"
    /// The generated file that gives every app file what `import Foundation` gives it on iOS
    /// (Security's names, URLSession's delegate types): module AppleImplicitImports, re-exported.
    public static let generatedImplicitImports = "CrosscheckImplicitImports.generated.swift"
    public static let executableName = "App"

    public let sources: URL
    public let checkout: URL
    public let directory: URL
    /// Build the app's own files with coverage instrumentation (`-profile-generate
    /// -profile-coverage-mapping`; crosscheck's modules are not instrumented), for `AppCoverage`.
    public var coverage = false

    /// `sources`: the team's folder; `checkout`: crosscheck's package root; `buildRoot`: where
    /// packages go (crosscheck uses reports/app-build).
    public init(sources: URL, checkout: URL, buildRoot: URL) {
        self.sources = sources.standardizedFileURL
        self.checkout = checkout.standardizedFileURL
        directory = buildRoot.appendingPathComponent(Self.folderName(for: self.sources))
    }

    /// The package folder's name: a hash of the source folder's absolute path (FNV-1a, 64 bits).
    static func folderName(for sources: URL) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in sources.path.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return String(hash, radix: 16).leftPadded(to: 16)
    }

    var appSources: URL { directory.appendingPathComponent("Sources/App") }
    /// Where every app package of this checkout is built: one SwiftPM scratch folder, so crosscheck's
    /// own modules (CryptoKit, Security, …) are compiled once for all apps, not once per app folder.
    /// SwiftPM's lock on it makes two builds at once wait for each other.
    public var sharedScratch: URL { checkout.appendingPathComponent(".build/app-packages") }
    /// The built host: copied out of the shared scratch folder into this app's package folder, so the
    /// next app's build cannot replace a host that is running.
    public var executable: URL { directory.appendingPathComponent(Self.executableName) }
    public var buildLog: URL { directory.appendingPathComponent("build.log") }

    // MARK: checking the folder

    /// The Swift files under `sources`, as paths relative to it (hidden folders and `.build` skipped), sorted.
    public func swiftFiles() throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: sources.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw AppBuildError.noDirectory(sources.path)
        }
        guard let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: [.isDirectoryKey],
                                                              options: [.skipsHiddenFiles, .skipsPackageDescendants]) else {
            throw AppBuildError.noDirectory(sources.path)
        }
        var files: [String] = []
        for case let url as URL in enumerator {
            if url.lastPathComponent == ".build" { enumerator.skipDescendants(); continue }
            guard url.pathExtension == "swift" else { continue }
            let relative = String(url.standardizedFileURL.path.dropFirst(sources.path.count).drop { $0 == "/" })
            files.append(relative)
        }
        guard !files.isEmpty else { throw AppBuildError.noSwiftFiles(sources.path) }
        return files.sorted()
    }

    /// Refuses a folder crosscheck cannot host: no adapter, or a file named as a generated one.
    /// (Files with an entry point of their own are left out by `select`, with a note.)
    public func check(_ files: [String]) throws {
        var foundAdapter = false
        for file in files {
            let text = (try? String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)) ?? ""
            if file == Self.generatedMain || file == Self.generatedImplicitImports {
                throw AppBuildError.ownEntryPoint(file: sources.appendingPathComponent(file).path, line: 1, what: "a file named \(file)")
            }
            if Self.definesAdapter(text) { foundAdapter = true }
        }
        guard foundAdapter else { throw AppBuildError.noAdapter(directory: sources.path, files: files) }
    }

    public static func definesAdapter(_ text: String) -> Bool {
        text.split(separator: "\n").contains { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return !trimmed.hasPrefix("//") && trimmed.range(of: #"func\s+makeAppUnderTest\s*\("#, options: .regularExpression) != nil
        }
    }

    /// The app's files as crosscheck builds them: which Swift files go in, which are left out and
    /// why, and the resources that go beside the host (`Bundle.main`).
    public struct Selection: Equatable, Sendable {
        public var swiftFiles: [String]
        /// (file, why), for the run's notes.
        public var leftOut: [LeftOut]
        public var resources: [String]
    }

    public struct LeftOut: Equatable, Sendable, CustomStringConvertible {
        public let file: String
        public let reason: String
        public init(file: String, reason: String) { self.file = file; self.reason = reason }
        public var description: String { "\(file): \(reason)" }
    }

    /// Frameworks of the app's UI, which crosscheck does not provide: a file importing one is
    /// left out (its crypto belongs in files of their own, which is how the adapter reaches it).
    public static let uiFrameworks: Set<String> = ["UIKit", "SwiftUI", "AppKit", "Cocoa", "WatchKit", "MessageUI", "SafariServices"]

    /// Picks the files to build from `candidates` (paths relative to `sources`): leaves out the
    /// ones matching an `excludes` glob (fnmatch(3), against the path and the file name), the ones
    /// importing a UI framework, and entry points (`main.swift`, `@main`, `@UIApplicationMain`),
    /// each with its reason. `resourceCandidates`: nil for a plain folder (its files that are not
    /// code are resources, as a folder reference's are), or the Xcode target's Resources phase.
    public func select(_ candidates: [String], excludes: [String], resourceCandidates: [String]? = nil) -> Selection {
        var selection = Selection(swiftFiles: [], leftOut: [], resources: [])
        let excluded = { (file: String) -> String? in
            excludes.first { pattern in
                fnmatch(pattern, file, 0) == 0 || fnmatch(pattern, (file as NSString).lastPathComponent, 0) == 0
            }
        }
        for file in candidates {
            if let pattern = excluded(file) { selection.leftOut.append(LeftOut(file: file, reason: "excluded by --app-exclude \(pattern)")); continue }
            if (file as NSString).lastPathComponent == "main.swift" {
                selection.leftOut.append(LeftOut(file: file, reason: "main.swift is the app's entry point; crosscheck makes its own"))
                continue
            }
            let text = (try? String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)) ?? ""
            if let reason = Self.reasonToLeaveOut(text) { selection.leftOut.append(LeftOut(file: file, reason: reason)); continue }
            selection.swiftFiles.append(file)
        }
        let resources = resourceCandidates ?? Self.resourceFiles(in: sources)
        selection.resources = resources.filter { excluded($0) == nil }
        return selection
    }

    /// True when the folder is a Swift package of the team's own (a Package.swift at its root).
    public var isSwiftPackage: Bool { FileManager.default.fileExists(atPath: sources.appendingPathComponent("Package.swift").path) }

    /// A Swift package as the app: the Swift files of `Sources/<target>/` (every target under
    /// Sources/ when `target` is nil) and adapter files outside Sources/ and Tests/; its manifests,
    /// tests and plugins left out with a note; resources are the targets' non-code files (as
    /// `resources: [.copy(…)]` or `.process(…)` would bundle them).
    public func selectSwiftPackage(target: String?, excludes: [String]) throws -> Selection {
        let all = try swiftFiles()
        let prefix = target.map { "Sources/\($0)/" } ?? "Sources/"
        if let target, !all.contains(where: { $0.hasPrefix(prefix) }) {
            let targets = Set(all.filter { $0.hasPrefix("Sources/") }.compactMap { $0.split(separator: "/").dropFirst().first.map(String.init) }).sorted()
            throw AppBuildError.noSwiftFiles("\(sources.path)/Sources/\(target) (the package's targets with Swift files: \(targets.joined(separator: ", ")))")
        }
        var notes: [LeftOut] = []
        var candidates: [String] = []
        for file in all {
            let name = (file as NSString).lastPathComponent
            if !file.contains("/"), name == "Package.swift" || name.hasPrefix("Package@swift") {
                notes.append(LeftOut(file: file, reason: "the package's manifest; crosscheck writes its own around the app's files"))
            } else if file.hasPrefix("Tests/") || file.hasPrefix("Plugins/") {
                notes.append(LeftOut(file: file, reason: "the package's tests or plugins, not the app"))
            } else if file.hasPrefix(prefix) {
                candidates.append(file)
            } else if file.hasPrefix("Sources/") {
                notes.append(LeftOut(file: file, reason: "another target than --app-target \(target ?? "")"))
            } else {
                candidates.append(file)  // an adapter beside the package; check() insists on one
            }
        }
        let resources = Self.resourceFiles(in: sources).filter { $0.hasPrefix(prefix) }
        var selection = select(candidates, excludes: excludes, resourceCandidates: resources)
        selection.leftOut = notes + selection.leftOut
        return selection
    }

    /// Why a Swift file cannot be built here, or nil.
    static func reasonToLeaveOut(_ text: String) -> String? {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("@main") || trimmed.hasPrefix("@UIApplicationMain") || trimmed.hasPrefix("@NSApplicationMain") {
                return "line \(index + 1): \(trimmed.prefix { !$0.isWhitespace }) is the app's entry point; crosscheck makes its own"
            }
            if let match = trimmed.range(of: #"^(@testable\s+|@_exported\s+)?import\s+(class\s+|struct\s+|enum\s+|func\s+)?([A-Za-z_]+)"#, options: .regularExpression) {
                let module = trimmed[match].split(whereSeparator: { $0 == " " || $0 == "\t" }).last.map { String($0.split(separator: ".")[0]) } ?? ""
                if uiFrameworks.contains(module) {
                    return "line \(index + 1): imports \(module) (the app's UI), which crosscheck does not provide; keep crypto code in files without UI imports"
                }
            }
        }
        return nil
    }

    /// Files of the folder that are not code (a `.der`, `.pem`, `.json`, …): what an app bundles.
    static func resourceFiles(in folder: URL) -> [String] {
        let code: Set<String> = ["swift", "h", "m", "mm", "c", "cpp", "md", "pbxproj", "xcscheme", "xcworkspacedata", "resolved", "entitlements", "xcconfig"]
        return XcodeProject.files(under: folder).filter { file in
            let parts = file.split(separator: "/")
            guard !parts.contains(where: { $0 == ".build" || $0.hasSuffix(".xcodeproj") || $0.hasSuffix(".xcworkspace") || $0.hasSuffix(".xcassets") }) else { return false }
            return !code.contains((file as NSString).pathExtension.lowercased()) && (file as NSString).lastPathComponent != "Package.swift"
                && !file.hasPrefix("build-root/")
        }
    }

    /// App files that nothing the adapter calls can reach, by name: from the adapter's files, a
    /// file is reached when a name it declares (a type, function, property, or an init's first
    /// label) occurs as a word in a reached file. What is left was built but no check exercises it
    /// (a request signer with no capability adopted for it): the run says so, with the names looked
    /// for. By name only, so a name shared with another file counts as reached: it never reports
    /// reached code, it may miss some unreached code. Returns (file, its declared names).
    public func unreachedFiles(_ files: [String]) -> [(file: String, names: [String])] {
        var texts: [String: String] = [:]
        for file in files { texts[file] = (try? String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)) ?? "" }
        let declared = texts.mapValues(Self.declaredNames)
        var reached = Set(files.filter { Self.definesAdapter(texts[$0] ?? "") })
        var words = Set(reached.flatMap { Self.words(texts[$0] ?? "") })
        var changed = true
        while changed {
            changed = false
            for file in files where !reached.contains(file) && !(declared[file] ?? []).isDisjoint(with: words) {
                reached.insert(file)
                words.formUnion(Self.words(texts[file] ?? ""))
                changed = true
            }
        }
        return files.filter { !reached.contains($0) && !(declared[$0] ?? []).isEmpty }.map { ($0, (declared[$0] ?? []).sorted()) }
    }

    static func declaredNames(_ text: String) -> Set<String> {
        // Types, functions, static and top-level properties, inits' first labels; not the local
        // variables of function bodies (`let key`), which would match any file.
        let pattern = #"(?:\b(?:class|struct|enum|actor|protocol|typealias|func|static\s+let|static\s+var|^let|^var)\s+([A-Za-z_][A-Za-z0-9_]*))|(?:\binit[?!]?\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*[A-Za-z_ ]*:)"#
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        var names = Set<String>()
        for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
            let line = String(line)
            for match in regex.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                for group in 1...2 {
                    if let range = Range(match.range(at: group), in: line), line[range] != "_" { names.insert(String(line[range])) }
                }
            }
        }
        return names
    }

    /// The words of the code, without comments and string literals (a summary that names a type does not use it).
    static func words(_ text: String) -> Set<String> {
        let code = text.replacingOccurrences(of: #"//[^\n]*|"(?:[^"\\\n]|\\.)*""#, with: " ", options: .regularExpression)
        return Set(code.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
    }

    /// Names beside the host that are crosscheck's own.
    static let reservedNames: Set<String> = ["Package.swift", "Package.resolved", "build.log", executableName, "Sources"]

    /// Copies `resources` beside the built host, as an app bundle holds them: flat, by file name
    /// (Xcode copies a group's files to the bundle's root). On Linux, Foundation's `Bundle.main` is
    /// the executable's folder, so `Bundle.main.url(forResource:withExtension:)` and
    /// `Bundle(for:)` find them there. Returns notes for those not copied.
    @discardableResult
    public func installResources(_ resources: [String]) throws -> [LeftOut] {
        var notes: [LeftOut] = []
        var taken: [String: String] = [:]
        let installed = directory.appendingPathComponent(".resources-installed")
        for old in ((try? String(contentsOf: installed, encoding: .utf8)) ?? "").split(separator: "\n") {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(String(old)))
        }
        for file in resources {
            let name = (file as NSString).lastPathComponent
            if Self.reservedNames.contains(name) { notes.append(LeftOut(file: file, reason: "its name is one of crosscheck's files beside the host; rename it")); continue }
            if let first = taken[name] { notes.append(LeftOut(file: file, reason: "another resource, \(first), has its name; the bundle holds one")); continue }
            taken[name] = file
            let target = directory.appendingPathComponent(name)
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: sources.appendingPathComponent(file), to: target)
        }
        try Data(taken.keys.sorted().joined(separator: "\n").utf8).write(to: installed)
        return notes
    }

    // MARK: writing the package

    /// Writes Package.swift and the entry point, and copies `files` into Sources/App (only those
    /// that changed, so the build stays incremental; files no longer in the folder are removed).
    public func prepare(_ files: [String]) throws {
        let manager = FileManager.default
        try manager.createDirectory(at: appSources, withIntermediateDirectories: true)
        try writeIfChanged(Data(packageManifest().utf8), to: directory.appendingPathComponent("Package.swift"))
        try writeIfChanged(Data(entryPointSource().utf8), to: appSources.appendingPathComponent(Self.generatedMain))
        try writeIfChanged(Data(implicitImports().utf8), to: appSources.appendingPathComponent(Self.generatedImplicitImports))
        for file in files {
            let target = appSources.appendingPathComponent(file)
            try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try writeIfChanged(try Data(contentsOf: sources.appendingPathComponent(file)), to: target)
        }
        let keep = Set(files + [Self.generatedMain, Self.generatedImplicitImports])
        if let enumerator = manager.enumerator(at: appSources, includingPropertiesForKeys: nil) {
            for case let url as URL in enumerator where url.pathExtension == "swift" {
                let relative = String(url.standardizedFileURL.path.dropFirst(appSources.standardizedFileURL.path.count).drop { $0 == "/" })
                if !keep.contains(relative) { try? manager.removeItem(at: url) }
            }
        }
    }

    private func writeIfChanged(_ data: Data, to url: URL) throws {
        if FileManager.default.contents(atPath: url.path) == data { return }
        try data.write(to: url, options: .atomic)
    }

    /// SwiftPM calls a path dependency by its folder's name.
    var checkoutIdentity: String { checkout.lastPathComponent }

    func packageManifest() -> String {
        let path = checkout.path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        let identity = checkoutIdentity.replacingOccurrences(of: "\"", with: "\\\"")
        let products = ["CryptoKit", "Security", "CommonCrypto", "LocalAuthentication", "AppleImplicitImports", "AppUnderTest", "AppHost"]
            .map { ".product(name: \"\($0)\", package: \"\(identity)\")" }.joined(separator: ", ")
        return """
            // swift-tools-version:6.0
            // Generated by crosscheck for \(sources.path.replacingOccurrences(of: "\n", with: " ")); rewritten on every run.
            // The app's files (Sources/App) are copies: edit them where they came from.
            import PackageDescription

            let package = Package(
                name: "CrosscheckAppUnderTest",
                dependencies: [.package(path: "\(path)")],
                targets: [
                    .executableTarget(name: "\(Self.executableName)", dependencies: [\(products)], path: "Sources/App",
                                      swiftSettings: [.swiftLanguageMode(.v5)\(coverage ? #", .unsafeFlags(["-profile-generate", "-profile-coverage-mapping"])"# : "")]\(coverage ? #", linkerSettings: [.unsafeFlags(["-profile-generate"])]"# : "")),
                ]
            )

            """
    }

    /// The generated implicit-imports file: AppleImplicitImports, and the frameworks the folder's
    /// Objective-C bridging header imports that crosscheck provides (on iOS a target whose
    /// `…-Bridging-Header.h` says `#import <CommonCrypto/CommonCrypto.h>` sees `CCHmac` in every
    /// Swift file without importing it).
    func implicitImports() -> String {
        var source = Self.implicitImportsSource
        for line in bridgingHeaderImports() {
            source += "// \(line.header) line \(line.number): \(line.text)\n@_exported import \(line.module)\n"
        }
        return source
    }

    /// Frameworks a bridging header may import that are this package's modules, and not already
    /// re-exported by AppleImplicitImports (Foundation, CoreFoundation and Security are).
    static let bridgeableFrameworks: Set<String> = ["CommonCrypto"]

    /// The bridging headers' lines that import a bridgeable framework, each module once, in order.
    /// A header is a file named `*Bridging-Header.h` anywhere in the folder (Xcode's naming).
    func bridgingHeaderImports() -> [(header: String, number: Int, text: String, module: String)] {
        guard let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else { return [] }
        let headers = enumerator.compactMap { $0 as? URL }
            .filter { $0.lastPathComponent.lowercased().hasSuffix("bridging-header.h") && !$0.path.contains("/.build/") }
            .sorted { $0.path < $1.path }
        var found: [(header: String, number: Int, text: String, module: String)] = []
        for header in headers {
            guard let text = try? String(contentsOf: header, encoding: .utf8) else { continue }
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard let module = Self.importedFramework(trimmed), Self.bridgeableFrameworks.contains(module),
                      !found.contains(where: { $0.module == module }) else { continue }
                found.append((header.lastPathComponent, index + 1, trimmed, module))
            }
        }
        return found
    }

    /// `#import <X/…>`, `#include <X/…>` or `@import X;` → X.
    static func importedFramework(_ line: String) -> String? {
        let patterns = [#"^#\s*(?:import|include)\s*<([A-Za-z0-9_]+)/"#, #"^@import\s+([A-Za-z0-9_]+)"#]
        for pattern in patterns {
            guard let regex = try? NSRegularExpression(pattern: pattern),
                  let match = regex.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
                  let range = Range(match.range(at: 1), in: line) else { continue }
            return String(line[range])
        }
        return nil
    }

    /// One re-export gives every file of the target the module's names (Swift's imports are per
    /// file; an `@_exported import` is seen by the whole module).
    public static let implicitImportsSource = """
        // Generated by crosscheck: what `import Foundation` brings into an iOS app's files (Security's
        // names, URLSession's delegate types), for every file of the app (docs/APPLE-MODULES.md).
        @_exported import AppleImplicitImports

        """

    func entryPointSource() -> String {
        """
        // Generated by crosscheck: the app host's entry point. The adapter defines \(Self.entryPoint)();
        // the host serves that app to crosscheck over stdin/stdout (Sources/AppHost in crosscheck).
        import AppHost
        import AppUnderTest

        @main
        enum CrosscheckAppHostMain {
            static func main() {
                let app: AppUnderTest = \(Self.entryPoint)()
                AppHostServer.main(app)
            }
        }

        """
    }

    // MARK: building

    /// The shared scratch folder's build plan (`debug.yaml`) names the sources of the package that
    /// was planned last, and SwiftPM replans only when *those* change: building another package
    /// unchanged since its own last build would do nothing and hand back the last package's host
    /// (`--app A`, `--app B`, `--app A` ran B's code as A). A plan that is not this package's is
    /// removed, so SwiftPM plans again (a second or two; crosscheck's modules are not recompiled).
    func forgetAnotherPackagesPlan() {
        let plan = sharedScratch.appendingPathComponent("debug.yaml")
        guard let text = FileManager.default.contents(atPath: plan.path),
              String(decoding: text, as: UTF8.self).contains(appSources.path + "/") == false else { return }
        try? FileManager.default.removeItem(at: plan)
    }

    /// Held while a package is built in the shared scratch folder, by whichever crosscheck process
    /// builds: SwiftPM's own lock covers one `swift build`, but forgetting another package's plan,
    /// building and copying the host out must happen with no other package built in between, or two
    /// runs at once (`--app A` beside `--app B`) can each get the other's host.
    public var sharedScratchLock: URL { checkout.appendingPathComponent(".build/app-packages.lock") }

    /// `swift build` of the package under `timeout` (output to build.log); returns the executable.
    /// `swift`: the toolchain's `swift` (a path, or a name looked up in $PATH). `waiting` is told,
    /// once, when another process's build holds the shared scratch folder.
    public func build(swift: String = "swift", timeout: TimeInterval, waiting: (String) -> Void = { _ in }) throws -> URL {
        guard let swiftPath = Self.locate(swift) else { throw AppBuildError.noToolchain(swift) }
        let started = DispatchTime.now()
        let lock = try lockSharedScratch(timeout: timeout, waiting: waiting)
        defer { close(lock) }  // closing drops the lock
        let waited = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        return try buildHoldingTheLock(swiftPath, timeout: max(timeout - waited, 1))
    }

    /// An open descriptor of `sharedScratchLock`, locked (flock, so the kernel drops the lock however
    /// the process ends); waits up to `timeout` for another process's build to end.
    private func lockSharedScratch(timeout: TimeInterval, waiting: (String) -> Void) throws -> Int32 {
        let path = sharedScratchLock.path
        try? FileManager.default.createDirectory(at: sharedScratchLock.deletingLastPathComponent(), withIntermediateDirectories: true)
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw AppBuildError.buildFailed("cannot open \(path) to build in the shared scratch folder: \(String(cString: strerror(errno)))", log: buildLog.path)
        }
        let deadline = DispatchTime.now() + timeout
        var told = false
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                close(descriptor)
                throw AppBuildError.buildFailed("cannot lock \(path) to build in the shared scratch folder: \(String(cString: strerror(code)))", log: buildLog.path)
            }
            guard DispatchTime.now() < deadline else {
                close(descriptor)
                throw AppBuildError.busy(lock: path, seconds: timeout)
            }
            if !told {
                waiting("another crosscheck run is building its app in the shared scratch folder (\(path)); waiting up to \(Int(timeout)) s")
                told = true
            }
            usleep(50_000)  // another process's build takes seconds; a twentieth of one is no delay
        }
        return descriptor
    }

    private func buildHoldingTheLock(_ swiftPath: URL, timeout: TimeInterval) throws -> URL {
        guard FileManager.default.createFile(atPath: buildLog.path, contents: nil) else {
            throw AppBuildError.buildFailed("cannot write \(buildLog.path)", log: buildLog.path)
        }
        let log = try FileHandle(forWritingTo: buildLog)
        defer { try? log.close() }
        forgetAnotherPackagesPlan()
        let process = Process()
        process.executableURL = swiftPath
        process.arguments = ["build", "--package-path", directory.path, "--scratch-path", sharedScratch.path,
                             "--product", Self.executableName]
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            if finished.wait(timeout: .now() + 5) == .timedOut { kill(process.processIdentifier, SIGKILL) }
            throw AppBuildError.timedOut(timeout, log: buildLog.path)
        }
        let output = (try? String(contentsOf: buildLog, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            let errors = compileErrors(in: output)
            if !errors.isEmpty { throw AppBuildError.compileErrors(errors, log: buildLog.path) }
            throw AppBuildError.buildFailed(String(output.suffix(2000)), log: buildLog.path)
        }
        let built = sharedScratch.appendingPathComponent("debug/\(Self.executableName)")
        guard FileManager.default.isExecutableFile(atPath: built.path) else {
            throw AppBuildError.buildFailed("swift build succeeded but \(built.path) is not there", log: buildLog.path)
        }
        // Copy, then rename over the old host: a host still running keeps its own file.
        let copy = directory.appendingPathComponent(".\(Self.executableName).copy")
        do {
            try? FileManager.default.removeItem(at: copy)
            try FileManager.default.copyItem(at: built, to: copy)
            guard rename(copy.path, executable.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            throw AppBuildError.buildFailed("cannot copy the built host \(built.path) to \(executable.path): \(error)", log: buildLog.path)
        }
        return executable
    }

    /// The compiler's errors, `path:line:column: error: message`, with paths in Sources/App shown
    /// as the files in the source folder they were copied from; each once, in order.
    public func compileErrors(in output: String) -> [String] {
        let copied = appSources.standardizedFileURL.path + "/"
        var seen = Set<String>()
        var errors: [String] = []
        for line in output.split(separator: "\n") {
            guard line.range(of: #"^/.+\.swift:\d+:\d+: error: "#, options: .regularExpression) != nil else { continue }
            var text = String(line)
            if text.hasPrefix(copied + Self.generatedMain) {
                text = "the adapter's \(Self.entryPoint)() must return an AppUnderTest and take no arguments: " + text
            } else if text.hasPrefix(copied) {
                text = sources.path + "/" + text.dropFirst(copied.count)
            }
            if seen.insert(text).inserted { errors.append(text) }
        }
        return errors
    }

    static func locate(_ name: String) -> URL? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? URL(fileURLWithPath: name) : nil }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}

/// Why a folder could not become a running app, in words that say what to do.
public enum AppBuildError: Error, CustomStringConvertible, Equatable {
    case noDirectory(String)
    case noSwiftFiles(String)
    case noAdapter(directory: String, files: [String])
    case ownEntryPoint(file: String, line: Int, what: String)
    case compileErrors([String], log: String)
    case buildFailed(String, log: String)
    case timedOut(TimeInterval, log: String)
    /// Another crosscheck process held the shared scratch folder's lock for the whole build timeout.
    case busy(lock: String, seconds: TimeInterval)
    case noToolchain(String)

    public var description: String {
        switch self {
        case let .noDirectory(path):
            return "\(path) is not a folder; --app takes a folder of Swift files (the app's crypto code and an adapter) or a seed app (seed-000 … seed-004)"
        case let .noSwiftFiles(path):
            return "\(path) holds no .swift files; put the app's crypto code and an adapter file there"
        case let .noAdapter(directory, files):
            return """
                no adapter in \(directory): none of its Swift files (\(files.joined(separator: ", "))) defines \(AppPackage.entryPoint)().
                Add a file, e.g. \(directory)/CrosscheckAdapter.swift, that maps the app's functions onto AppUnderTest's capabilities:

                    import Foundation
                    import AppUnderTest

                    final class MyAppAdapter: AppUnderTest, AEADSealing {
                        let identifier = "my-app"                  // names the app's testcases
                        let summary = "what the app is, where its code comes from"
                        let aeadAlgorithm = "aes-gcm"              // or "chachapoly"
                        let fixedPlaintext: Data? = nil            // the one plaintext the app seals, if it takes no other
                        func seal(_ plaintext: Data, key: Data) throws -> Data { try MyCrypto.seal(plaintext, key: key) }  // your code
                        func open(_ combined: Data, key: Data) throws -> Data { try MyCrypto.open(combined, key: key) }
                    }

                    func \(AppPackage.entryPoint)() -> AppUnderTest { MyAppAdapter() }

                Adopt only the capabilities the app's code serves: RSASocketClient, RSASocketSession, DescribedProtocolClient, RSAOwnKeyEncryption,
                SymmetricKeyStorage, AEADSealing, FileSealing, AESEnvelopeClient, CertificatePinning (Sources/AppUnderTest/
                AppUnderTest.swift says what each maps). examples/seed004-app is a worked example.
                """
        case let .ownEntryPoint(file, line, what):
            return "\(file):\(line): \(what): the app runs inside crosscheck's host, which has its own entry point; leave the app's entry point (main.swift, @main, @UIApplicationMain) out of the folder"
        case let .compileErrors(errors, log):
            let shown = errors.prefix(20).joined(separator: "\n")
            return "the app does not compile:\n\(shown)" + (errors.count > 20 ? "\n… \(errors.count - 20) more" : "")
                + "\nThe full build output is in \(log). crosscheck provides CryptoKit, Security and CommonCrypto as docs/APPLE-MODULES.md lists; UIKit and networking frameworks are not there: keep the folder to the app's crypto code and its adapter."
        case let .buildFailed(tail, log):
            return "swift build failed (the full output is in \(log)):\n\(tail)"
        case let .timedOut(seconds, log):
            return "swift build did not finish within \(Int(seconds)) s and was stopped (output so far in \(log)); a first build compiles crosscheck's modules too, try --app-build-timeout with more"
        case let .busy(lock, seconds):
            return "another crosscheck run held \(lock) for \(Int(seconds)) s, building its app in the shared scratch folder beside it; wait for that run to end, or give --app-build-timeout more"
        case let .noToolchain(name):
            return "no Swift toolchain: '\(name)' was not found on PATH (Swift 6 is required to build the app; see swift.org/install)"
        }
    }
}

extension String {
    func leftPadded(to length: Int) -> String { count >= length ? self : String(repeating: "0", count: length - count) + self }
}
