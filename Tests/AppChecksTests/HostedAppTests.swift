import Foundation
import XCTest
import AppChecks
import AppHost
import AppUnderTest
import Conformance
import SeedApps

/// The host protocol: an app served out of process gets the same verdicts as in process, and a
/// host that hangs, dies or is not a host becomes an error, never a verdict and never a hang.
final class HostedAppTests: XCTestCase {
    func testSeedAppsThroughTheHostProtocol_sameVerdictsAsInProcess() throws {
        let direct = try runAppChecks(SeedApps.identifiers.compactMap(SeedApps.make), loopback: true)
        let hosted = try SeedApps.identifiers.map { identifier in
            try HostedApp(launch: {
                guard let app = SeedApps.make(identifier) else { throw HostProtocolError("no seed app \(identifier)") }
                return HostChannel.inProcess(app)
            })
        }
        defer { hosted.forEach { $0.stop() } }
        XCTAssertEqual(hosted.map(\.capabilities), SeedApps.identifiers.compactMap(SeedApps.make).map(\.capabilityNames))
        let through = try runAppChecks(hosted, loopback: true)
        XCTAssertEqual(through.count, direct.count)
        let verdicts = { (results: [CheckResult]) in Dictionary(uniqueKeysWithValues: results.map { ($0.check.fullName, $0.verdict) }) }
        XCTAssertEqual(verdicts(through), verdicts(direct))
        // The app's own refusal crosses as its AppFailure text.
        let refused = try XCTUnwrap(through.first { $0.check.name == "seed-001.envelope.base64-raw.aes128" && $0.check.suite == "roundtrip.python_to_app" })
        XCTAssertTrue(refused.message.contains("responseObject: "), refused.message)
    }

    func testCapabilities_onlyThoseTheHelloLists() throws {
        let app = try HostedApp(launch: { HostChannel.inProcess(Seed004Probe.make()) })
        defer { app.stop() }
        XCTAssertNotNil(app.capability(FileSealing.self))
        XCTAssertNil(app.capability(AEADSealing.self))
        XCTAssertNil(app.capability(RSASocketClient.self))
        XCTAssertEqual(app.capabilityNames, ["FileSealing"])
        XCTAssertEqual(app.identifier, "seed-004")
    }

    // MARK: hosts that misbehave (shell scripts standing in for a built app)

    static let hello = #"{"hello":{"protocol":1,"identifier":"fake","summary":"a shell script","capabilities":["AEADSealing"],"aeadAlgorithm":"aes-gcm"}}"#

    func host(_ script: String, requestTimeout: TimeInterval = 1, restarts: Int = 0) throws -> (HostedApp, URL) {
        let log = try makeDirectory().appendingPathComponent("host.log")
        let app = try HostedApp(launch: { try HostChannel.launch(executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script], log: log) },
                                requestTimeout: requestTimeout, helloTimeout: 10, maximumRestarts: restarts)
        addTeardownBlock { app.stop() }
        return (app, log)
    }

    func makeDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-host-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func testHostThatHangs_isStoppedAtTheDeadline_andItsCheckIsAnError() throws {
        let (app, _) = try host("printf '%s\\n' '\(Self.hello)'; read request; exec sleep 600")
        XCTAssertThrowsError(try app.seal(Data("x".utf8), key: Data(count: 32))) { error in
            XCTAssertTrue((error as? AppUnreachable)?.detail.contains("no answer to aead.seal within 1 s") == true, "\(error)")
        }
        // With no restart left, every check of the app ends as an error that says why.
        let context = try suiteContext()
        let checks = AppSuites.roundTrip(context, apps: [AppSubject(app)])
        XCTAssertFalse(checks.isEmpty)
        for check in checks.prefix(3) {
            guard case let .error(message, _) = Runner.run(check).outcome else { return XCTFail("\(check.fullName) must be an error") }
            XCTAssertTrue(message.contains("the app could not be asked"), message)
        }
    }

    func testHostThatDies_isAnErrorWithItsExitStatusAndStderr_andIsRestartedAtMostAsOftenAsAllowed() throws {
        let (app, _) = try host("printf '%s\\n' '\(Self.hello)'; read request; echo 'boom: the app crashed' >&2; exit 3", restarts: 1)
        for _ in 0..<2 {
            XCTAssertThrowsError(try app.open(Data(count: 28), key: Data(count: 32))) { error in
                let detail = (error as? AppUnreachable)?.detail ?? "\(error)"
                XCTAssertTrue(detail.contains("the host exited with status 3 while answering aead.open"), detail)
                XCTAssertTrue(detail.contains("boom: the app crashed"), detail)
            }
        }
        XCTAssertThrowsError(try app.open(Data(count: 28), key: Data(count: 32))) { error in
            XCTAssertTrue((error as? AppUnreachable)?.detail.contains("started 2 times and is gone again") == true, "\(error)")
        }
    }

    func testHostThatAnswersNonsense_isAnError() throws {
        let (app, _) = try host("printf '%s\\n' '\(Self.hello)'; read request; echo 'not json'; exec sleep 600")
        XCTAssertThrowsError(try app.seal(Data(), key: Data(count: 32))) { error in
            XCTAssertTrue((error as? AppUnreachable)?.detail.contains("a line that is not JSON: not json") == true, "\(error)")
        }
    }

    func testTheAppsOwnRefusal_isItsFailureNotAnError() throws {
        let answer = #"{"id":1,"failure":{"operation":"open","detail":"authenticationFailure"}}"#
        let (app, _) = try host("printf '%s\\n' '\(Self.hello)'; read request; printf '%s\\n' '\(answer)'; exec sleep 600")
        XCTAssertThrowsError(try app.open(Data(count: 28), key: Data(count: 32))) { error in
            XCTAssertEqual(error as? AppFailure, AppFailure("open", "authenticationFailure"))
        }
    }

    func testNotAHost_isRefusedAtStart() throws {
        for (script, expected) in [("echo hello world", "began with something that is not a hello: hello world"),
                                   ("echo 'no hello' >&2; exit 0", "exited with status 0 before saying hello"),
                                   (#"printf '%s\n' '{"hello":{"protocol":2}}'"#, "speaks protocol 2")] {
            let log = try makeDirectory().appendingPathComponent("host.log")
            XCTAssertThrowsError(try HostedApp(launch: { try HostChannel.launch(executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script], log: log) },
                                               helloTimeout: 10)) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
            }
        }
    }
}

/// Builds a package's folder without building it: what crosscheck checks before `swift build`.
final class AppPackageTests: XCTestCase {
    func folder(_ files: [String: String]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-app-\(UUID().uuidString)")
        for (name, text) in files {
            let file = url.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func package(_ folder: URL, buildRoot: URL? = nil) -> AppPackage {
        AppPackage(sources: folder, checkout: repositoryRoot, buildRoot: buildRoot ?? folder.appendingPathComponent("build-root"))
    }

    func testCheck_findsTheAdapter_andRefusesWhatCannotBeHosted() throws {
        let good = try folder(["Crypto.swift": "import CryptoKit\n", "Sub/Adapter.swift": "func makeAppUnderTest() -> AppUnderTest { A() }\n"])
        let files = try package(good).swiftFiles()
        XCTAssertEqual(files, ["Crypto.swift", "Sub/Adapter.swift"])
        XCTAssertNoThrow(try package(good).check(files))

        let noAdapter = try folder(["Crypto.swift": "// func makeAppUnderTest() is only mentioned here\nimport CryptoKit\n"])
        XCTAssertThrowsError(try package(noAdapter).check(try package(noAdapter).swiftFiles())) { error in
            guard case .noAdapter = error as? AppBuildError else { return XCTFail("\(error)") }
            XCTAssertTrue("\(error)".contains("func makeAppUnderTest() -> AppUnderTest { MyAppAdapter() }"), "\(error)")
        }
        // The app's UI and entry points are left out with their reasons, as are --app-exclude's globs; the rest builds.
        let withMain = try folder(["App.swift": "import Foundation\n\n@main\nstruct MyApp {}\n", "View.swift": "import Foundation\n@testable import SwiftUI\n",
                                   "Delegate.swift": "import UIKit.UIView\n", "main.swift": "print(1)\n", "Legacy/Old.swift": "let old = 1\n",
                                   "Crypto.swift": "import CryptoKit // not UIKit\n", "Adapter.swift": "func makeAppUnderTest() -> AppUnderTest { A() }\n",
                                   "pi.der": "der", "config/pi.pem": "pem", "Notes.md": "notes"])
        let selection = package(withMain).select(try package(withMain).swiftFiles(), excludes: ["Legacy/*"])
        XCTAssertEqual(selection.swiftFiles, ["Adapter.swift", "Crypto.swift"])
        XCTAssertEqual(selection.leftOut.map(\.description), [
            "App.swift: line 3: @main is the app's entry point; crosscheck makes its own",
            "Delegate.swift: line 1: imports UIKit (the app's UI), which crosscheck does not provide; keep crypto code in files without UI imports",
            "Legacy/Old.swift: excluded by --app-exclude Legacy/*",
            "View.swift: line 2: imports SwiftUI (the app's UI), which crosscheck does not provide; keep crypto code in files without UI imports",
            "main.swift: main.swift is the app's entry point; crosscheck makes its own",
        ])
        XCTAssertEqual(selection.resources, ["config/pi.pem", "pi.der"])
        XCTAssertEqual(package(withMain).select(["Crypto.swift", "Adapter.swift"], excludes: ["Crypto.swift"]).swiftFiles, ["Adapter.swift"], "a glob matches the file name too")
        XCTAssertThrowsError(try package(withMain).check(["Adapter.swift", AppPackage.generatedMain])) { error in
            guard case .ownEntryPoint = error as? AppBuildError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try package(try folder(["README.md": "no code"])).swiftFiles()) { error in
            guard case .noSwiftFiles = error as? AppBuildError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try package(good.appendingPathComponent("missing")).swiftFiles()) { error in
            guard case .noDirectory = error as? AppBuildError else { return XCTFail("\(error)") }
        }
    }

    func testSwiftPackage_itsTargetsFilesAndResources_manifestAndTestsLeftOut() throws {
        let source = try folder(["Package.swift": "// swift-tools-version:5.9\n", "Sources/PiKit/Crypto.swift": "import CryptoKit\n",
                                 "Sources/PiKit/Resources/pi.der": "der", "Sources/PiUI/View.swift": "import Foundation\n",
                                 "Tests/PiKitTests/T.swift": "import XCTest\n", "CrosscheckAdapter.swift": "func makeAppUnderTest() -> AppUnderTest { A() }\n"])
        let whole = try package(source).selectSwiftPackage(target: nil, excludes: [])
        XCTAssertEqual(whole.swiftFiles, ["CrosscheckAdapter.swift", "Sources/PiKit/Crypto.swift", "Sources/PiUI/View.swift"])
        XCTAssertEqual(whole.leftOut.map(\.file), ["Package.swift", "Tests/PiKitTests/T.swift"])
        XCTAssertEqual(whole.resources, ["Sources/PiKit/Resources/pi.der"])
        let one = try package(source).selectSwiftPackage(target: "PiKit", excludes: [])
        XCTAssertEqual(one.swiftFiles, ["CrosscheckAdapter.swift", "Sources/PiKit/Crypto.swift"])
        XCTAssertThrowsError(try package(source).selectSwiftPackage(target: "Nope", excludes: [])) { error in
            XCTAssertTrue("\(error)".contains("the package's targets with Swift files: PiKit, PiUI"), "\(error)")
        }
    }

    func testUnreachedFiles_theSignerNoCapabilityCalls_isNamed() throws {
        let source = try folder([
            "Crypto.swift": "enum Sealer {\n    static func seal(_ d: Data) -> Data { d.sealedWith(KeyStore.key) }\n}\n",
            "KeyStore.swift": "struct KeyStore { static let key = Data() }\nextension Data {\n    func sealedWith(_ key: Data) -> Data { self }\n}\n",
            "Key+Init.swift": "extension SymmetricKey {\n    init?(base64EncodedString string: String) { nil }\n}\n",
            "RequestSigner.swift": "// signs requests\nenum RequestSigner {\n    static func sign(method: String) -> String { method }\n}\n",
            "Adapter.swift": "final class A { func seal(_ d: Data) -> Data { Sealer.seal(d) } ; let k = SymmetricKey(base64EncodedString: \"\") }\nfunc makeAppUnderTest() -> AppUnderTest { A() }\n",
        ])
        let unreached = package(source).unreachedFiles(try package(source).swiftFiles())
        XCTAssertEqual(unreached.map(\.file), ["RequestSigner.swift"])
        XCTAssertEqual(unreached.first?.names, ["RequestSigner", "sign"])
    }

    func testPrepare_writesThePackage_copiesOnlyTheFolder_andNamesErrorsByTheirOriginalFiles() throws {
        let source = try folder(["Crypto.swift": "let x = 1\n", "Adapter.swift": "func makeAppUnderTest() -> AppUnderTest { A() }\n"])
        let root = try folder([:])
        let first = package(source, buildRoot: root)
        try first.prepare(try first.swiftFiles())
        XCTAssertEqual(first.directory.deletingLastPathComponent().standardizedFileURL.path, root.standardizedFileURL.path)
        XCTAssertEqual(package(source, buildRoot: root).directory.path, first.directory.path, "one folder per source folder, kept between runs")
        let manifest = try String(contentsOf: first.directory.appendingPathComponent("Package.swift"), encoding: .utf8)
        XCTAssertTrue(manifest.contains(".package(path: \"\(repositoryRoot.standardizedFileURL.path)\")"), manifest)
        XCTAssertTrue(manifest.contains(".product(name: \"CryptoKit\", package: \"\(repositoryRoot.lastPathComponent)\")"), manifest)
        XCTAssertTrue(manifest.contains("swiftSettings: [.swiftLanguageMode(.v5)]"), manifest)
        let copied = first.directory.appendingPathComponent("Sources/App")
        XCTAssertEqual(try String(contentsOf: copied.appendingPathComponent("Crypto.swift"), encoding: .utf8), "let x = 1\n")
        // A file removed from the folder leaves the package too.
        try FileManager.default.removeItem(at: source.appendingPathComponent("Crypto.swift"))
        try first.prepare(try first.swiftFiles())
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: copied.path).sorted(),
                       ["Adapter.swift", AppPackage.generatedMain, AppPackage.generatedImplicitImports].sorted())
        XCTAssertTrue(manifest.contains(".product(name: \"AppleImplicitImports\", package: \"\(repositoryRoot.lastPathComponent)\")"), manifest)
        XCTAssertEqual(try String(contentsOf: copied.appendingPathComponent(AppPackage.generatedImplicitImports), encoding: .utf8),
                       AppPackage.implicitImportsSource)

        // A bridging header's import of a framework crosscheck provides becomes an implicit import,
        // as on iOS; frameworks it does not provide, and ones already implied, add nothing.
        try Data("""
            #import <Foundation/Foundation.h>
            #import <CommonCrypto/CommonCrypto.h>
            #include <CommonCrypto/CommonHMAC.h>
            #import <UIKit/UIKit.h>
            #import "Legacy.h"

            """.utf8).write(to: source.appendingPathComponent("MyApp-Bridging-Header.h"))
        try first.prepare(try first.swiftFiles())
        XCTAssertEqual(try String(contentsOf: copied.appendingPathComponent(AppPackage.generatedImplicitImports), encoding: .utf8),
                       AppPackage.implicitImportsSource
                        + "// MyApp-Bridging-Header.h line 2: #import <CommonCrypto/CommonCrypto.h>\n@_exported import CommonCrypto\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: copied.path).filter { $0.hasSuffix(".h") }, [],
                       "headers are read, not copied")

        let output = """
            [3/9] Compiling App Adapter.swift
            \(copied.path)/Adapter.swift:1:47: error: cannot find 'A' in scope
            \(copied.path)/Adapter.swift:1:47: error: cannot find 'A' in scope
                |  `- error: cannot find 'A' in scope
            \(copied.path)/\(AppPackage.generatedMain):9:35: error: cannot convert value of type 'Int' to specified type 'any AppUnderTest'
            """
        XCTAssertEqual(first.compileErrors(in: output), [
            "\(source.standardizedFileURL.path)/Adapter.swift:1:47: error: cannot find 'A' in scope",
            "the adapter's makeAppUnderTest() must return an AppUnderTest and take no arguments: \(copied.path)/\(AppPackage.generatedMain):9:35: error: cannot convert value of type 'Int' to specified type 'any AppUnderTest'",
        ])
    }
}

/// The Xcode project reader on examples/xcode-app: the chain PBXNativeTarget → build phases →
/// PBXBuildFile → PBXFileReference, with group paths and SOURCE_ROOT.
final class XcodeProjectTests: XCTestCase {
    func testExampleProject_targetsTheirSwiftFilesAndResources() throws {
        let project = try XcodeProject(bundle: repositoryRoot.appendingPathComponent("examples/xcode-app/PiRemote.xcodeproj"))
        let targets = project.targets()
        XCTAssertEqual(targets.map(\.name), ["PiRemote", "PiRemoteTests"])
        XCTAssertEqual(targets[0].swiftFiles, ["PiRemote/AppDelegate.swift", "PiRemote/UnlockViewController.swift", "PiRemote/Crypto/ServerKeyEncryptor.swift",
                                               "PiRemote/Crypto/RequestSigner.swift"])
        XCTAssertEqual(targets[0].resources, ["PiRemote/Resources/pi_public.pem"])
        XCTAssertEqual(targets[1].swiftFiles, ["PiRemoteTests/RequestSignerTests.swift"], "SOURCE_ROOT paths")
        XCTAssertEqual(try project.target(nil).name, "PiRemote", "the one app target by default")
        for file in targets.flatMap({ $0.swiftFiles + $0.resources }) {
            XCTAssertTrue(FileManager.default.fileExists(atPath: project.root.appendingPathComponent(file).path), file)
        }
        XCTAssertThrowsError(try project.target("Widget")) { error in
            XCTAssertEqual("\(error)", "PiRemote.xcodeproj has no target 'Widget'; its targets: PiRemote, PiRemoteTests")
        }
        XCTAssertEqual(try XcodeProject.find(at: project.root)?.lastPathComponent, "PiRemote.xcodeproj")
    }
}

enum Seed004Probe {
    static func make() -> AppUnderTest { SeedApps.make("seed-004") ?? Seed004Fallback() }
}

/// Never used when SeedApps has seed-004 (it always has): keeps `make()` total without a force-unwrap.
final class Seed004Fallback: AppUnderTest {
    let identifier = "missing"
    let summary = "missing"
}
