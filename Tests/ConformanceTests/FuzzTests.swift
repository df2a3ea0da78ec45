import Foundation
import XCTest
import Conformance
@testable import Frames
@testable import Fuzzing
import WireCrypto
import WireProtocol

/// The differential fuzzer: generation, the oracle, reproducers, the planted flaw, memory bounds.
final class FuzzTests: XCTestCase {
    static let corpusDirectory = URL(fileURLWithPath: repositoryRoot).appendingPathComponent("Vectors/frames")

    func corpus() throws -> FuzzCorpus { try FuzzCorpus(directory: Self.corpusDirectory) }
    func oracle(_ swift: CryptoPeer = SwiftPeer()) throws -> FuzzOracle {
        FuzzOracle(swift: swift, python: try pythonPeer(), corpus: try corpus())
    }

    // MARK: implicit rejection

    /// `--rsa-rejection implicit`: PythonRef's server acknowledges bad PKCS#1 v1.5 paddings where
    /// the Swift side refuses; each such difference is explained (PythonRef told explicit answers as
    /// Swift does), and the frames where it happens are really answered otherwise.
    func testImplicitRejection_everyDifferenceIsExplainedAndSomeFramesDiffer() throws {
        let corpus = try corpus()
        let oracle = try oracle()
        let generator = FrameGenerator(corpus: corpus, seed: 5, families: [.encrypted], overrides: ["rejection": "implicit", "padding": "pkcs1"])
        var explained = 0
        for index in 0..<300 {
            let frame = generator.frame(at: index)
            let (swift, python) = oracle.run(frame)
            XCTAssertEqual(FuzzOracle.judge(swift: swift, python: python), .agreed, "frame \(index): \(swift.line) / \(python.line)")
            if python.note.hasPrefix("implicit rejection") {
                explained += 1
                let implicit = oracle.machineVerdict(frame, python: true)
                XCTAssertNotEqual(implicit.detail, python.detail, "frame \(index): implicit PythonRef answered otherwise")
                XCTAssertTrue(implicit.detail.contains("events [decrypted("), "frame \(index): acknowledged: \(implicit.detail)")
            }
        }
        XCTAssertGreaterThan(explained, 10, "bad paddings among 300 encrypted frames")
    }

    /// The explanation covers only that difference: a Swift side that accepts what PythonRef
    /// refuses, or a difference PythonRef's explicit answer does not share, stays a disagreement.
    func testImplicitRejection_explainsNothingElse() throws {
        let oracle = try oracle()
        let frame = FrameGenerator(corpus: try corpus(), seed: 5, families: [.encrypted], overrides: ["rejection": "implicit"]).frame(at: 0)
        let accepted = FuzzVerdict.accepted("x", detail: "a"), rejected = FuzzVerdict.rejected(.decryptFailed, note: "")
        XCTAssertNil(oracle.implicitRejectionExplained(frame, swift: accepted, python: rejected))
        var crashed = accepted
        crashed.outcome = .crashed
        XCTAssertNil(oracle.implicitRejectionExplained(frame, swift: rejected, python: crashed))
        var explicitFrame = frame
        explicitFrame.setting["rejection"] = "explicit"
        XCTAssertNil(oracle.implicitRejectionExplained(explicitFrame, swift: rejected, python: accepted))
    }

    // MARK: generation

    func testFrames_areTheSameForTheSameSeedAndDifferForAnother() throws {
        let corpus = try corpus()
        let first = FrameGenerator(corpus: corpus, seed: 41), again = FrameGenerator(corpus: corpus, seed: 41)
        let other = FrameGenerator(corpus: corpus, seed: 42)
        var differing = 0
        for index in 0..<700 {
            XCTAssertEqual(first.frame(at: index), again.frame(at: index), "frame \(index)")
            if first.frame(at: index) != other.frame(at: index) { differing += 1 }
        }
        XCTAssertGreaterThan(differing, 600, "another seed gives other frames")
    }

    func testFrames_dependOnlyOnSeedFamilyAndOrdinal() throws {
        let corpus = try corpus()
        let all = FrameGenerator(corpus: corpus, seed: 9)
        let envelopesOnly = FrameGenerator(corpus: corpus, seed: 9, families: [.envelope])
        let position = FrameFamily.allCases.firstIndex(of: .envelope)!
        for ordinal in 0..<30 {
            XCTAssertEqual(all.frame(at: ordinal * FrameFamily.allCases.count + position), envelopesOnly.frame(at: ordinal))
        }
    }

    func testEveryStructuredMutator_isDeterministicAndUsedWithinAFewThousandFrames() throws {
        let generator = FrameGenerator(corpus: try corpus(), seed: 5)
        var seen: [FrameFamily: Set<String>] = [:]
        for index in 0..<(FrameFamily.allCases.count * 1_200) {
            let frame = generator.frame(at: index)
            seen[frame.family, default: []].insert(frame.mutator.components(separatedBy: "+").first ?? "")
        }
        for family in FrameFamily.allCases {
            let names = Set(FrameGenerator.mutatorNames(family))
            XCTAssertFalse(names.isEmpty, family.rawValue)
            let unused = names.subtracting(seen[family] ?? [])
            XCTAssertLessThanOrEqual(unused.count, names.count / 10, "\(family.rawValue): mutators never chosen: \(unused.sorted())")
        }
    }

    // MARK: the oracle

    func testOracle_agreesOnValidFramesOfEveryFamily() throws {
        let corpus = try corpus()
        let oracle = try oracle()
        let generator = FrameGenerator(corpus: corpus, seed: 12)
        for family in FrameFamily.allCases {
            for frame in generator.validFrames(family, count: 3) {
                let verdicts = oracle.run(frame)
                XCTAssertEqual(FuzzOracle.judge(swift: verdicts.swift, python: verdicts.python), .agreed,
                               "\(family.rawValue): swift \(verdicts.swift.line) / python \(verdicts.python.line)")
                XCTAssertEqual(verdicts.swift.outcome, .accepted, "\(family.rawValue): a valid frame is accepted: \(verdicts.swift.line) \(verdicts.swift.note)")
            }
        }
    }

    func testOracle_reportsADisagreementForThePlantedFifteenByteIV() throws {
        let key = Data(repeating: 7, count: 16), iv = Data(repeating: 9, count: 16)
        let ciphertext = try AESCBC.encrypt(Data(repeating: 0x41, count: 40), key: key, iv: iv)
        let envelope = CBCEnvelope(ciphertext: ciphertext, iv: iv.prefix(15)).jsonData
        var setting = FuzzSetting()
        setting.setData("symKey", key)
        let frame = FuzzFrame(family: .envelope, mutator: "iv-not-16-bytes", bytes: envelope, setting: setting)
        let planted = try oracle(PlantedFlaw._ACCEPTS_15_BYTE_IV.peer()).run(frame)
        XCTAssertEqual(planted.swift.outcome, .accepted, planted.swift.line)
        XCTAssertEqual(planted.python.line, "reject BadLength")
        XCTAssertEqual(FuzzOracle.judge(swift: planted.swift, python: planted.python), .disagreement)
        let real = try oracle().run(frame)
        XCTAssertEqual(FuzzOracle.judge(swift: real.swift, python: real.python), .agreed, real.swift.line)
    }

    func testJudge_sameKindAgreesAndEverythingElseIsADisagreementOrACrash() {
        XCTAssertEqual(FuzzOracle.judge(swift: .rejected(.badPadding), python: .rejected(.badPadding)), .agreed)
        XCTAssertEqual(FuzzOracle.judge(swift: .rejected(.badPadding), python: .rejected(.badEnvelope)), .disagreement)
        XCTAssertEqual(FuzzOracle.judge(swift: .accepted("plaintext", detail: "1 bytes 00"), python: .rejected(.badLength)), .disagreement)
        XCTAssertEqual(FuzzOracle.judge(swift: .rejected(.internal), python: .rejected(.internal)), .crash)
        XCTAssertEqual(FuzzOracle.judge(swift: .crashed("Internal"), python: .rejected(.badLength)), .crash)
    }

    /// Every fixed finding kept in Vectors/frames/regressions/ (each a real disagreement, crash or
    /// memory-safety bug once) must now agree.
    func testRegressionInputs_allAgreeNow() throws {
        let corpus = try corpus()
        let oracle = try oracle()
        let regressions = corpus.frames.values.flatMap { $0 }.filter { $0.entry.file.hasPrefix("regressions/") }
        XCTAssertGreaterThanOrEqual(regressions.count, 20)
        for (entry, bytes) in regressions {
            let frame = FuzzFrame(family: entry.family, mutator: "regression", bytes: bytes, setting: entry.setting)
            let verdicts = oracle.run(frame)
            let finding = FuzzOracle.judge(swift: verdicts.swift, python: verdicts.python)
            XCTAssertEqual(finding, .agreed, "\(entry.file): swift \(verdicts.swift.line) \(verdicts.swift.note) / python \(verdicts.python.line) \(verdicts.python.note)")
        }
    }

    // MARK: reproducers and the planted flaw

    func testReproducer_roundTripsAndRegeneratesFromTheSeed() throws {
        let corpus = try corpus()
        let generator = FrameGenerator(corpus: corpus, seed: 77)
        let frame = generator.frame(.framed, ordinal: 3)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-reproducer-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        let reproducer = FuzzReproducer(kind: "disagreement", frame: frame, family: .framed, seed: 77, ordinal: 3, plant: ._ACCEPTS_15_BYTE_IV,
                                        swift: .rejected(.badKey), python: .accepted("key", detail: "RSA-1024"))
        try reproducer.write(to: url)
        let loaded = try FuzzReproducer.load(url)
        XCTAssertEqual(loaded, reproducer)
        XCTAssertEqual(loaded.plantedFlaw, ._ACCEPTS_15_BYTE_IV)
        XCTAssertEqual(try loaded.fuzzFrame(corpus: corpus), frame)
        // A crash file carries no bytes: the frame comes back from seed, family and ordinal.
        var crash = loaded
        crash.frame = nil
        crash.setting = nil
        crash.tail = nil
        XCTAssertEqual(try crash.fuzzFrame(corpus: corpus).bytes, frame.bytes)
        XCTAssertEqual(try crash.fuzzFrame(corpus: corpus).setting, frame.setting)
    }

    /// The issue's acceptance test: a Swift side that accepts a 15-byte IV is found by the fuzz
    /// suite's default budget (what `make interop` runs), saved, and its reproducer still disagrees
    /// with the flaw planted and agrees without it.
    func testPlantedFlaw_isFoundByTheDefaultBudget_savedAndReplayed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-planted-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let python = try pythonPeer()
        let context = SuiteContext(swift: PlantedFlaw._ACCEPTS_15_BYTE_IV.peer(), python: python, seed: 1, files: checkoutFiles)
        let checks = FuzzSuite.checks(context, saveDirectory: directory)
        XCTAssertEqual(checks.count, FrameFamily.allCases.count)
        // The families the flaw can show in; the others are the same as with the real Swift side.
        let results = Runner().run(checks.filter { [FrameFamily.envelope.rawValue, FrameFamily.cbc.rawValue].contains($0.name) })
        XCTAssertEqual(results.count, 2)
        for result in results { XCTAssertTrue(result.failed, "\(result.check.name) must find the planted flaw") }
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil).filter { $0.pathExtension == "json" }
        XCTAssertFalse(files.isEmpty)
        for file in files {
            let reproducer = try FuzzReproducer.load(file)
            XCTAssertEqual(reproducer.plantedFlaw, ._ACCEPTS_15_BYTE_IV)
            let frame = try reproducer.fuzzFrame(corpus: try corpus())
            let planted = try oracle(PlantedFlaw._ACCEPTS_15_BYTE_IV.peer()).run(frame)
            XCTAssertEqual(FuzzOracle.judge(swift: planted.swift, python: planted.python), .disagreement, file.lastPathComponent)
            let real = try oracle().run(frame)
            XCTAssertEqual(FuzzOracle.judge(swift: real.swift, python: real.python), .agreed, file.lastPathComponent)
        }
    }

    // MARK: memory

    /// A machine that counts what it was fed.
    final class Counting: SessionMachine {
        let inner: SessionMachine
        private(set) var fed = 0
        init(_ inner: SessionMachine) { self.inner = inner }
        func start() -> [SessionAction] { inner.start() }
        func receive(_ data: Data) -> [SessionAction] { fed += data.count; return inner.receive(data) }
        func idle() -> [SessionAction] { inner.idle() }
        var closed: Bool { inner.closed }
    }

    /// A 10 MB message is refused by its size: both servers answer `Server: ERROR` and close after
    /// reading at most the limit plus one 64 KiB piece, so the rest is never read.
    func testTenMegabyteFrame_isRefusedBySizeWithoutBeingReadWhole() throws {
        let corpus = try corpus()
        let oracle = try oracle()
        let key = corpus.key("fuzz-rsa1024")
        var bigEndian = UInt32(10_000_000).bigEndian
        let frames: [(Framing, Data)] = [
            (.framed, Data(bytes: &bigEndian, count: 4)),
            (.legacy, Data("public_key=-----BEGIN PUBLIC KEY-----\n".utf8)),
        ]
        for (framing, head) in frames {
            let frame = FuzzFrame(family: .conversation, mutator: "ten-megabytes", bytes: head, setting: FuzzSetting(["framing": framing.rawValue]),
                                  tail: FrameTail(byte: 0x41, count: 10_000_000))
            for python in [false, true] {
                let machine = Counting(try oracle.makeMachine(.conversation, usePython: python, key: key, padding: .oaepSHA256, framing: framing,
                                                               maxMessage: Framing.defaultMaxMessage, digest: false, plaintext: Data()))
                let actions = FuzzOracle.feed(machine, frame: frame, chunk: 0)
                XCTAssertTrue(machine.closed, "\(framing) \(python ? "python" : "swift")")
                XCTAssertEqual(actions.compactMap { if case let .send(bytes) = $0 { return bytes } else { return nil } },
                               [framing.encode(Data(RSASocket.error.utf8))], "\(framing) \(python ? "python" : "swift")")
                XCTAssertLessThanOrEqual(machine.fed, Framing.defaultMaxMessage + 2 * 65_536, "\(framing) \(python ? "python" : "swift") read \(machine.fed) bytes")
            }
            let verdicts = oracle.run(frame)
            XCTAssertEqual(FuzzOracle.judge(swift: verdicts.swift, python: verdicts.python), .agreed)
        }
    }

    /// The fuzz suite's checks are one per family, named after it, in the `fuzz.swift_vs_python` suite.
    func testFuzzSuite_hasOneCheckPerFamily() throws {
        let context = SuiteContext(swift: SwiftPeer(), python: try pythonPeer(), seed: 3, files: checkoutFiles)
        let checks = FuzzSuite.checks(context)
        XCTAssertEqual(checks.map(\.name), FrameFamily.allCases.map(\.rawValue))
        XCTAssertEqual(Set(checks.map(\.suite)), ["fuzz.swift_vs_python"])
    }
}

/// The libFuzzer differential target's logic, without libFuzzer: inputs stand for frames (family,
/// corpus setting, variation, bytes), every seed input is a corpus frame the two sides agree on,
/// and a disagreement is saved once as a reproducer that replays to the same disagreement.
final class DifferentialTargetTests: XCTestCase {
    func files() -> ProjectFiles { ProjectFiles(checkout: URL(fileURLWithPath: repositoryRoot)) }

    func findingsDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("differential-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func testSeedInputs_areTheCorpusFramesAndAllAgree() throws {
        let findings = try findingsDirectory()
        let target = try DifferentialTarget(files: files(), findings: findings)
        let corpus = try FuzzCorpus(directory: files().frames)
        let seeds = target.seedInputs()
        XCTAssertEqual(seeds.count, corpus.frames.values.map(\.count).reduce(0, +))
        for seed in seeds {
            let frame = target.frame(from: seed)
            XCTAssertTrue(corpus.frames[frame.family]?.contains { $0.bytes == frame.bytes && $0.entry.setting == frame.setting } ?? false, "\(frame.family)")
            target.run(seed)
        }
        XCTAssertEqual(target.disagreements, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: findings.path), "nothing to save")
        // The variation byte changes an rsa-socket setting; other families ignore it.
        let clientKey = UInt8(FrameFamily.allCases.firstIndex(of: .clientKey)!)
        let varied = target.frame(from: Data([clientKey, 0, 0b1000_0110]) + Data("public_key=".utf8))
        let cbc = UInt8(FrameFamily.allCases.firstIndex(of: .cbc)!)
        XCTAssertEqual(target.frame(from: Data([cbc, 0, 1])).setting.data("iv")?.count, 15, "the variation byte shortens the IV")
        XCTAssertEqual(varied.setting["padding"], "oaep-sha1")
        XCTAssertEqual(varied.setting["framing"], "legacy")
        XCTAssertEqual(varied.setting["chunk"], "7")
        XCTAssertEqual(target.frame(from: Data()).bytes, Data(), "an empty input is a frame too")
    }

    func testPlantedFlaw_isSavedOnceAsAReproducerThatReplays() throws {
        let findings = try findingsDirectory()
        let target = try DifferentialTarget(files: files(), findings: findings, plant: ._ACCEPTS_15_BYTE_IV)
        let envelope = UInt8(FrameFamily.allCases.firstIndex(of: .envelope)!)
        // An envelope whose IV is 15 bytes: the planted Swift side opens it, PythonRef refuses it.
        let corpus = try FuzzCorpus(directory: files().frames)
        let settings = corpus.frames[.envelope] ?? []
        let settingIndex = try XCTUnwrap(settings.firstIndex { $0.entry.setting.data("symKey")?.count == 16 }, "a corpus envelope with a 16-byte key")
        // The frame is opened with the corpus setting's key.
        let symKey = try XCTUnwrap(settings[settingIndex].entry.setting.data("symKey"))
        let resealed = try AESCBC.encrypt(Data("{\"a\":1}".utf8), key: symKey, iv: Data(repeating: 0, count: 16))
        let input = Data([envelope, UInt8(settingIndex), 0])
            + Data(#"{"data":"\#(resealed.base64EncodedString())","iv":"\#(Data(repeating: 0, count: 15).base64EncodedString())"}"#.utf8)
        target.run(input)
        target.run(input)
        XCTAssertEqual(target.disagreements, 2)
        let files = try FileManager.default.contentsOfDirectory(at: findings, includingPropertiesForKeys: nil)
        XCTAssertEqual(files.count, 1, "one reproducer per distinct verdict pair")
        let reproducer = try FuzzReproducer.load(try XCTUnwrap(files.first))
        XCTAssertEqual(reproducer.plantedFlaw, ._ACCEPTS_15_BYTE_IV)
        let frame = try reproducer.fuzzFrame(corpus: corpus)
        let planted = FuzzOracle(swift: PlantedFlaw._ACCEPTS_15_BYTE_IV.peer(), python: try pythonPeer(), corpus: corpus).run(frame)
        XCTAssertEqual(FuzzOracle.judge(swift: planted.swift, python: planted.python), .disagreement)
        let real = FuzzOracle(swift: SwiftPeer(), python: try pythonPeer(), corpus: corpus).run(frame)
        XCTAssertEqual(FuzzOracle.judge(swift: real.swift, python: real.python), .agreed)
    }
}
