import Foundation
import XCTest

/// `crosscheck run --app DIR`, end to end: a folder of app code and an adapter is built into a
/// host and checked; a folder that does not compile, one without an adapter and a planted broken
/// app each end the way the README says. The folders live at fixed paths under the temporary
/// directory, so their packages (reports/app-build/<hash>/) build incrementally on later runs.
final class AppCLITests: XCTestCase {
    static let example = CrosscheckBinary.root.appendingPathComponent("examples/seed004-app")
    /// The planted apps take turns in one folder, so they share one package: after the first, a
    /// build recompiles only the app's own files, not crosscheck's modules.
    static let plantedFolder = "planted-app"

    /// A fresh copy of `files` in a folder of this name under the temporary directory.
    func appFolder(_ name: String, _ files: [String: String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-cli-apps/\(name)")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (file, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(file)) }
        return folder
    }

    func exampleFiles() throws -> [String: String] {
        var files: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.example.path) where name.hasSuffix(".swift") {
            files[name] = try String(contentsOf: Self.example.appendingPathComponent(name), encoding: .utf8)
        }
        return files
    }

    func testExampleApp_isBuiltHostedAndPassesItsChecks() throws {
        let report = try makeTemporaryDirectory().appendingPathComponent("app.xml")
        let outcome = try CrosscheckBinary.run(["run", "--app", "examples/seed004-app", "--suite", "roundtrip,vectors,sessions",
                                                "--filter", "example-seed004", "--seed", "4", "--junit", report.path])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("the app under test is example-seed004 (FileSealing)"), outcome.stderr)
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "roundtrip.app_to_python"), [4, 4, 0, 0, 0], outcome.stdout)
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "roundtrip.python_to_app"), [4, 4, 0, 0, 0], outcome.stdout)
        let xml = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(xml.contains(#"<testcase name="example-seed004.file.100KiB" classname="crosscheck.sealed.app_to_python""#), xml)
        XCTAssertTrue(xml.contains(#"<property name="crosscheck.apps" value="example-seed004 (FileSealing)">"#), xml)
        XCTAssertEqual(try CrosscheckBinary.validate(report), 0)
    }

    func testAppThatDoesNotCompile_exits69NamingFileAndLine() throws {
        var files = try exampleFiles()
        let source = try XCTUnwrap(files["CryptManager.swift"])
        let lines = source.components(separatedBy: "\n")
        let line = try XCTUnwrap(lines.firstIndex { $0.contains("AES.GCM.seal(data, using: symmetricKey)") })
        files["CryptManager.swift"] = source.replacingOccurrences(of: "AES.GCM.seal(data, using: symmetricKey)", with: "AES.GCM.seal(data, usingKey: symmetricKey)")
        let folder = try appFolder("does-not-compile", files)
        let outcome = try CrosscheckBinary.run(["run", "--app", folder.path, "--suite", "roundtrip", "--quiet"])
        XCTAssertEqual(outcome.status, 69, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("the app does not compile:"), outcome.stderr)
        // file:line:column of the folder's own file (not the package's copy), with the compiler's words.
        XCTAssertTrue(outcome.stderr.range(of: "\n\(folder.path)/CryptManager.swift:\(line + 1):[0-9]+: error: incorrect argument label",
                                           options: .regularExpression) != nil, outcome.stderr)
        XCTAssertFalse(outcome.stderr.contains("reports/app-build/") && outcome.stderr.contains("Sources/App/CryptManager.swift"), outcome.stderr)
        XCTAssertTrue(outcome.stdout.isEmpty, "no checks ran: \(outcome.stdout)")
    }

    func testFolderWithoutAdapter_exits66SayingWhatToWrite() throws {
        var files = try exampleFiles()
        files["CrosscheckAdapter.swift"] = nil
        let folder = try appFolder("no-adapter", files)
        let outcome = try CrosscheckBinary.run(["run", "--app", folder.path, "--suite", "roundtrip", "--quiet"])
        XCTAssertEqual(outcome.status, 66, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("no adapter in \(folder.path): none of its Swift files (CryptManager.swift, SymmetricKey+Initializer.swift) defines makeAppUnderTest()"),
                      outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("func makeAppUnderTest() -> AppUnderTest { MyAppAdapter() }"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("examples/seed004-app is a worked example"), outcome.stderr)
    }

    /// An app a team could write, with one flaw planted: every file sealed under the same nonce.
    func testPlantedBrokenApp_failsTheNamedCheck() throws {
        let folder = try appFolder(Self.plantedFolder, [
            "Sealer.swift": """
                import Foundation
                import CryptoKit

                enum Sealer {
                    static let key = SymmetricKey(size: .bits256)
                    static func seal(_ data: Data) throws -> Data {
                        // PLANTED: the same nonce for every file.
                        guard let combined = try AES.GCM.seal(data, using: key, nonce: AES.GCM.Nonce(data: Data(count: 12))).combined else { return Data() }
                        return combined
                    }
                    static func open(_ data: Data) throws -> Data { try AES.GCM.open(AES.GCM.SealedBox(combined: data), using: key) }
                }
                """,
            "Adapter.swift": """
                import Foundation
                import AppUnderTest

                final class PlantedAdapter: AppUnderTest, FileSealing {
                    let identifier = "planted-fixed-nonce-files"
                    let summary = "a file sealer with one nonce for every file (planted)"
                    let aeadAlgorithm = "aes-gcm"
                    func currentKey() throws -> Data { Sealer.key.withUnsafeBytes { Data($0) } }
                    func sealFile(at source: URL, to destination: URL) throws { try Sealer.seal(try Data(contentsOf: source)).write(to: destination) }
                    func openFile(at source: URL, to destination: URL) throws { try Sealer.open(try Data(contentsOf: source)).write(to: destination) }
                }

                func makeAppUnderTest() -> AppUnderTest { PlantedAdapter() }
                """,
        ])
        let outcome = try CrosscheckBinary.run(["run", "--app", folder.path, "--suite", "roundtrip", "--filter", "planted-fixed-nonce-files", "--quiet"])
        XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr)
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "roundtrip.app_to_python"), [4, 3, 1, 0, 0], outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("FAIL  crosscheck.sealed.app_to_python.planted-fixed-nonce-files.file.fresh-nonce-per-seal: "
                                              + "planted-fixed-nonce-files sealed the same file twice with the same nonce 000000000000000000000000"), outcome.stdout)
    }

    /// The real-world shape issue 19 met in public code: a helper whose static encrypt/decrypt make
    /// `SymmetricKey(size: .bits256)` afresh on every call, so nothing it seals can be opened. The
    /// adapter only maps its strings onto SelfContainedSealing; the checks catch it end to end.
    func testKeyMadePerCall_isCaughtEndToEnd() throws {
        let folder = try appFolder(Self.plantedFolder, [
            "EncryptionHelper.swift": """
                import Foundation
                import CryptoKit

                class EncryptionHelper {
                    static func encrypt(_ string: String) -> String? {
                        let key = SymmetricKey(size: .bits256)
                        guard let data = string.data(using: .utf8) else { return nil }
                        do {
                            let sealedBox = try AES.GCM.seal(data, using: key)
                            return sealedBox.combined?.base64EncodedString()
                        } catch {
                            print("Encryption failed: \\(error)")
                            return nil
                        }
                    }

                    static func decrypt(_ string: String) -> String? {
                        let key = SymmetricKey(size: .bits256)
                        guard let data = Data(base64Encoded: string) else { return nil }
                        do {
                            let sealedBox = try AES.GCM.SealedBox(combined: data)
                            let decrypted = try AES.GCM.open(sealedBox, using: key)
                            return String(data: decrypted, encoding: .utf8)
                        } catch {
                            print("Decryption failed: \\(error)")
                            return nil
                        }
                    }
                }
                """,
            "Adapter.swift": """
                import Foundation
                import AppUnderTest

                final class HelperAdapter: AppUnderTest, SelfContainedSealing {
                    let identifier = "key-per-call-helper"
                    let summary = "EncryptionHelper: static encrypt/decrypt of strings with AES.GCM"
                    let boxAlgorithm = "aes-gcm"
                    func seal(_ plaintext: Data) throws -> Data {
                        guard let text = String(data: plaintext, encoding: .utf8), let box = EncryptionHelper.encrypt(text) else {
                            throw AppFailure("encrypt", "EncryptionHelper.encrypt returned nil")
                        }
                        return Data(box.utf8)
                    }
                    func open(_ box: Data) throws -> Data {
                        guard let text = EncryptionHelper.decrypt(String(decoding: box, as: UTF8.self)) else {
                            throw AppFailure("decrypt", "EncryptionHelper.decrypt returned nil")
                        }
                        return Data(text.utf8)
                    }
                }

                func makeAppUnderTest() -> AppUnderTest { HelperAdapter() }
                """,
        ])
        let report = try makeTemporaryDirectory().appendingPathComponent("helper.xml")
        let outcome = try CrosscheckBinary.run(["run", "--app", folder.path, "--suite", "roundtrip", "--filter", "key-per-call-helper", "--junit", report.path])
        XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("the app under test is key-per-call-helper (SelfContainedSealing)"), outcome.stderr)
        // Every open fails, the fresh-nonce and format checks pass: 5 + 1 + 4 of 12.
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "roundtrip.app_to_app"), [12, 2, 10, 0, 0], outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("FAIL  crosscheck.sealed.app_to_app.key-per-call-helper.self-sealed.earlier-box-opens-after-later-calls: "
                                              + "key-per-call-helper could not open a box it sealed three seals earlier (decrypt: EncryptionHelper.decrypt returned nil): "
                                              + "its key does not outlive the call that sealed"), outcome.stdout)
        let xml = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(xml.contains("its key does not outlive the call that sealed; an app that makes its key inside each call "
                                   + "(SymmetricKey(size: .bits256) in its seal or open function) can never open what it sealed"), xml)
        XCTAssertTrue(xml.contains(#"<testcase name="key-per-call-helper.self-sealed.len31.seal-then-open" classname="crosscheck.sealed.app_to_app""#), xml)
        // What the helper printed (CryptoKit's authenticationFailure) is in the failure's body.
        XCTAssertTrue(xml.contains("Decryption failed: authenticationFailure"), xml)
        XCTAssertEqual(try CrosscheckBinary.validate(report), 0)
    }

    /// Issue 34's APIs as app code reaches them in an app package, as on iOS: CC_MD2/CC_MD4 through
    /// `import CommonCrypto`, SecCertificateCopyPublicKey through `import Foundation` alone and
    /// SecCertificateCopySerialNumber through `import Security`, applyingTransform on a String and a
    /// Substring. The app's own process computes each known answer (RFC 1319/1320 "abc", the P-256
    /// point and serial openssl printed for the embedded certificate, ICU's transliterations) and
    /// its adapter names itself `issue34-apis-WRONG` (the wrong ones on its console) when any differs.
    func testIssue34APIs_areVisibleToAppCodeAndGiveApplesAnswers() throws {
        let folder = try appFolder("issue34-apis-app", [
            "LegacyHash.swift": """
                // App code as an old iOS file writes it: CommonDigest's deprecated MD2 and MD4.
                import Foundation
                import CommonCrypto

                enum LegacyHash {
                    static func md2(_ string: String) -> String {
                        let data = Data(string.utf8)
                        var digest = [UInt8](repeating: 0, count: Int(CC_MD2_DIGEST_LENGTH))
                        data.withUnsafeBytes { _ = CC_MD2($0.baseAddress, CC_LONG(data.count), &digest) }
                        return digest.map { String(format: "%02x", $0) }.joined()
                    }

                    static func md4(_ string: String) -> String {
                        var context = CC_MD4_CTX()
                        CC_MD4_Init(&context)
                        let data = Data(string.utf8)
                        data.withUnsafeBytes { _ = CC_MD4_Update(&context, $0.baseAddress, CC_LONG(data.count)) }
                        var digest = [UInt8](repeating: 0, count: Int(CC_MD4_DIGEST_LENGTH))
                        CC_MD4_Final(&digest, &context)
                        return digest.map { String(format: "%02x", $0) }.joined()
                    }
                }
                """,
            "PinnedKey.swift": """
                // Imports only Foundation, as an iOS pinning helper does: Security's names come with it.
                import Foundation

                enum PinnedKey {
                    static let certificateBase64 = "MIIBeDCCAR2gAwIBAgICNBIwCgYIKoZIzj0EAwIwGjEYMBYGA1UEAwwPaXNzdWUzNC5leGFtcGxlMB4XDTI2MTIwNjA1MzQzOVoXDTM2MTIwMzA1MzQzOVowGjEYMBYGA1UEAwwPaXNzdWUzNC5leGFtcGxlMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAECsg9cvnCSaZqhHfIAprm6K942sTHW3wIrS/bJjPyRd5OUycvfjCpfmitzWsTJrCybm64g9LmkUkXCIZSTgTlzqNTMFEwHQYDVR0OBBYEFDWvrCB5CjFaxunQQNQebWv2RbBCMB8GA1UdIwQYMBaAFDWvrCB5CjFaxunQQNQebWv2RbBCMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSQAwRgIhAPCkXcNfthSnvSk8XPemTGgCM3oKNOieUbEiIHRSzjNHAiEAgc4ByKWwAXNnYdaWPfhW7la1p6Js71RDIym2UEKmJZI="

                    /// The pinned certificate's public key bytes, the iOS 10.3-11 way.
                    static func publicKeyBytes() -> Data? {
                        guard let der = Data(base64Encoded: certificateBase64),
                              let certificate = SecCertificateCreateWithData(nil, der as CFData),
                              let key = SecCertificateCopyPublicKey(certificate) else { return nil }
                        var error: Unmanaged<CFError>?
                        return SecKeyCopyExternalRepresentation(key, &error) as Data?
                    }
                }
                """,
            "CertificateSerial.swift": """
                import Foundation
                import Security

                func pinnedSerialHex() -> String? {
                    guard let der = Data(base64Encoded: PinnedKey.certificateBase64),
                          let certificate = SecCertificateCreateWithData(nil, der as CFData),
                          let serial = SecCertificateCopySerialNumber(certificate) as Data? else { return nil }
                    return serial.map { String(format: "%02x", $0) }.joined()
                }
                """,
            "Slug.swift": """
                import Foundation

                extension String {
                    /// A file-name-safe Latin form of a user's name, the way iOS code builds one.
                    var latinSlug: String? {
                        applyingTransform(.toLatin, reverse: false)?.applyingTransform(.stripDiacritics, reverse: false)
                    }
                }

                /// The first word only, transformed as a Substring (iOS declares applyingTransform on StringProtocol).
                func firstWordInGreek(_ text: String) -> String? {
                    text.split(separator: " ").first?.applyingTransform(.latinToGreek, reverse: false)
                }
                """,
            "Adapter.swift": """
                // The adapter: seals with a key kept inside (SelfContainedSealing), and names itself after the
                // known answers the app's own calls gave in its process (RFC 1319 and RFC 1320's "abc"; the
                // certificate's P-256 point and serial as openssl printed them; ICU's transliterations).
                import Foundation
                import CryptoKit
                import AppUnderTest

                final class Issue34Adapter: AppUnderTest, SelfContainedSealing {
                    static let key = SymmetricKey(size: .bits256)
                    let identifier: String
                    let summary: String
                    let boxAlgorithm = "aes-gcm"

                    init() {
                        let answers: [(String, String?, String)] = [
                            ("CC_MD2", LegacyHash.md2("abc"), "da853b0d3f88d99b30283a69e6ded6bb"),
                            ("CC_MD4", LegacyHash.md4("abc"), "a448017aaf21d8525fc10ae87aa6729d"),
                            ("SecCertificateCopyPublicKey", PinnedKey.publicKeyBytes().map { $0.map { String(format: "%02x", $0) }.joined() },
                             "040ac83d72f9c249a66a8477c8029ae6e8af78dac4c75b7c08ad2fdb2633f245de4e53272f7e30a97e68adcd6b1326b0b26e6eb883d2e69149170886524e04e5ce"),
                            ("SecCertificateCopySerialNumber", pinnedSerialHex(), "3412"),
                            ("applyingTransform", "Crème Brûlée ありがとう".latinSlug, "Creme Brulee arigatou"),
                            ("Substring.applyingTransform", firstWordInGreek("beta test"), "βετα"),
                        ]
                        let wrong = answers.filter { $0.1 != $0.2 }.map { $0.0 + " gave " + ($0.1 ?? "nil") + ", not " + $0.2 }
                        identifier = wrong.isEmpty ? "issue34-apis" : "issue34-apis-WRONG"
                        summary = wrong.isEmpty ? "CC_MD2, CC_MD4, SecCertificateCopyPublicKey/SerialNumber, applyingTransform: Apple's answers"
                                                : wrong.joined(separator: "; ")
                        if !wrong.isEmpty { FileHandle.standardError.write(Data((summary + "\\n").utf8)) }
                    }

                    func seal(_ plaintext: Data) throws -> Data {
                        guard let combined = try AES.GCM.seal(plaintext, using: Self.key).combined else { throw AppFailure("seal", "no combined box") }
                        return combined
                    }

                    func open(_ box: Data) throws -> Data { try AES.GCM.open(AES.GCM.SealedBox(combined: box), using: Self.key) }
                }

                func makeAppUnderTest() -> AppUnderTest { Issue34Adapter() }
                """,
        ])
        let outcome = try CrosscheckBinary.run(["run", "--app", folder.path, "--suite", "roundtrip", "--filter", "issue34-apis"])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("the app under test is issue34-apis (SelfContainedSealing)"), outcome.stderr)
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "roundtrip.app_to_app"), [12, 12, 0, 0, 0], outcome.stdout)
    }

    /// Every app package builds in one shared scratch folder: an app built again, unchanged, after
    /// another app was built must get its own host back, not the other's (SwiftPM's plan there
    /// named the other package's sources; `AppPackage.forgetAnotherPackagesPlan`).
    func testAppBuiltAgainAfterAnotherApp_isItselfNotTheOther() throws {
        var files = try exampleFiles()
        files["CrosscheckAdapter.swift"] = try XCTUnwrap(files["CrosscheckAdapter.swift"])
            .replacingOccurrences(of: "let identifier = \"example-seed004\"", with: "let identifier = \"example-seed004-renamed\"")
        let other = try appFolder("renamed-example", files)
        for (folder, identifier) in [(Self.example.path, "example-seed004"), (other.path, "example-seed004-renamed"), (Self.example.path, "example-seed004")] {
            // No check matches the filter (exit 64): the host was built and started, and said who it is.
            let outcome = try CrosscheckBinary.run(["run", "--app", folder, "--suite", "roundtrip", "--filter", "no-such-check"])
            XCTAssertEqual(outcome.status, 64, outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains("the app under test is \(identifier) (FileSealing)"), "\(folder): \(outcome.stderr)")
        }
    }

    /// Two runs at once, each with its own app, in one checkout (a CI matrix, two terminals): each
    /// gets its own host. Without the shared scratch folder's lock, one run's build came between
    /// the other's planning and its copying of the host, and both ran the same app (seen: 2 of 3
    /// rounds).
    func testTwoRunsAtOnceWithDifferentApps_eachHostsItsOwn() throws {
        var files = try exampleFiles()
        files["CrosscheckAdapter.swift"] = try XCTUnwrap(files["CrosscheckAdapter.swift"])
            .replacingOccurrences(of: "let identifier = \"example-seed004\"", with: "let identifier = \"example-seed004-beside\"")
        let beside = try appFolder("beside-example", files)
        let runs = [(Self.example.path, "example-seed004"), (beside.path, "example-seed004-beside")]
        final class Outcomes: @unchecked Sendable {
            let lock = NSLock()
            var byApp: [String: CrosscheckBinary.Outcome] = [:]
        }
        let outcomes = Outcomes()
        DispatchQueue.concurrentPerform(iterations: runs.count) { index in
            let outcome = try? CrosscheckBinary.run(["run", "--app", runs[index].0, "--suite", "roundtrip", "--filter", "no-such-check"])
            outcomes.lock.withLock { outcomes.byApp[runs[index].1] = outcome }
        }
        for (_, identifier) in runs {
            let outcome = try XCTUnwrap(outcomes.lock.withLock { outcomes.byApp[identifier] }, identifier)
            XCTAssertEqual(outcome.status, 64, outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains("the app under test is \(identifier) (FileSealing)"), "\(identifier): \(outcome.stderr)")
        }
    }

    /// A build waits for another process's build in the shared scratch folder, up to its own
    /// deadline, then says who holds it (exit 69).
    func testABuildThatCannotTakeTheSharedScratchFolder_saysWhyAndExits69() throws {
        let lock = CrosscheckBinary.root.appendingPathComponent(".build/app-packages.lock").path
        let descriptor = open(lock, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { close(descriptor) }
        XCTAssertEqual(flock(descriptor, LOCK_EX), 0)
        let outcome = try CrosscheckBinary.run(["run", "--app", Self.example.path, "--app-build-timeout", "1", "--suite", "roundtrip"])
        XCTAssertEqual(outcome.status, 69, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("another crosscheck run is building its app in the shared scratch folder (\(lock)); waiting up to 1 s"),
                      outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("another crosscheck run held \(lock) for 1 s"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("--app-build-timeout"), outcome.stderr)
    }

    func testSeedAppByName_andUsageErrors() throws {
        let outcome = try CrosscheckBinary.run(["run", "--app", "seed-003", "--suite", "roundtrip", "--filter", "seed-", "--quiet"])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "roundtrip.app_to_python"), [9, 9, 0, 0, 0], outcome.stdout)
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "roundtrip.python_to_app"), [36, 36, 0, 0, 0], outcome.stdout)
        XCTAssertFalse(outcome.stdout.contains("seed-001"), "only the chosen app runs")
        for arguments in [["run", "--app", "/nonexistent/app"], ["run", "--app", ""], ["run", "--app", "seed-003", "--app-timeout", "0"],
                          ["run", "--app", "seed-003", "--app-user", "nobody"], ["run", "--app", "seed-003", "--ios", "seventeen"]] {
            let refused = try CrosscheckBinary.run(arguments)
            XCTAssertEqual(refused.status, 64, "\(arguments): \(refused.stderr)")
        }
    }
}
