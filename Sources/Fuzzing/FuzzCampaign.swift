import Foundation
import Conformance
import Frames
#if canImport(Glibc)
import Glibc
#endif

/// What a fuzz run is asked to do.
public struct FuzzOptions: Sendable {
    public var seed: UInt64
    public var frames: Int
    public var families: [FrameFamily]
    /// A frame that takes longer than this is a failure (`hang`); one still running after three
    /// times this ends the run (a reproducer is written first).
    public var deadline: TimeInterval
    /// Where reproducers go (one per distinct failure); nil: nowhere.
    public var saveDirectory: URL?
    /// False in a worker process of `crosscheck fuzz --jobs N`: its parent merges the workers'
    /// findings and writes the reproducers (the first frame of each failure over all workers, as one
    /// process would). Crash notes from a signal handler are still written by the worker.
    public var writesReproducers = true
    public var plant: PlantedFlaw?
    /// `inprocess` or `HOST:PORT`.
    public var target: String

    public init(seed: UInt64, frames: Int, families: [FrameFamily] = FrameFamily.allCases, deadline: TimeInterval = 5,
                saveDirectory: URL? = URL(fileURLWithPath: "reports/fuzz-failures"), plant: PlantedFlaw? = nil, target: String = "inprocess") {
        self.seed = seed; self.frames = frames; self.families = families.isEmpty ? FrameFamily.allCases : families
        self.deadline = deadline; self.saveDirectory = saveDirectory; self.plant = plant; self.target = target
    }
}

/// Counts for one family.
public struct FamilyStats: Sendable, Equatable, Codable {
    public var frames = 0
    public var acceptedByBoth = 0
    public var refusedByBoth = 0
    public var disagreements = 0
    public var crashes = 0
    public var hangs = 0
    /// Frames a side answered against the specification's answer (`FuzzFrame.spec`).
    public var specViolations = 0
    public var slowestSeconds = 0.0
    public var seconds = 0.0
    /// Counts per structured mutator (its name without `+random-bytes`).
    public var mutators: [String: MutatorTally] = [:]

    public var failures: Int { disagreements + crashes + hangs + specViolations }

    /// Both parts' counts together (slowest: the slower; times: summed).
    public mutating func add(_ other: FamilyStats) {
        frames += other.frames; acceptedByBoth += other.acceptedByBoth; refusedByBoth += other.refusedByBoth
        disagreements += other.disagreements; crashes += other.crashes; hangs += other.hangs; specViolations += other.specViolations
        slowestSeconds = max(slowestSeconds, other.slowestSeconds); seconds += other.seconds
        mutators.merge(other.mutators) { $0.adding($1) }
    }
}

/// What one mutator's frames got: accepted or refused by both, split between the sides, against
/// the specification, and how many it left unchanged (a mutator that changes nothing tests nothing).
public struct MutatorTally: Sendable, Equatable, Codable {
    public var frames = 0
    public var acceptedByBoth = 0
    public var refusedByBoth = 0
    public var split = 0
    public var specViolations = 0
    public var unchanged = 0
    /// The specification's answer for its frames, where it has one (`valid` / `invalid`).
    public var spec: String?

    public init() {}

    func adding(_ other: MutatorTally) -> MutatorTally {
        var sum = self
        sum.frames += other.frames; sum.acceptedByBoth += other.acceptedByBoth; sum.refusedByBoth += other.refusedByBoth
        sum.split += other.split; sum.specViolations += other.specViolations; sum.unchanged += other.unchanged
        sum.spec = sum.spec ?? other.spec
        return sum
    }

    /// `frames 120, both accept 0, both refuse 120, split 0, spec violations 0, unchanged 0 (spec: invalid)`.
    public var line: String {
        "frames \(frames), both accept \(acceptedByBoth), both refuse \(refusedByBoth), split \(split), spec violations \(specViolations), unchanged \(unchanged)"
            + (spec.map { " (spec: \($0))" } ?? "")
    }
}

/// One distinct failure: frames of one family whose verdict pair (coarse summaries) was the same.
public struct DistinctFailure: Sendable, Codable {
    public let family: FrameFamily
    /// `disagreement`, `spec`, `crash` or `hang`.
    public let kind: String
    /// The structured mutator of its frames (without `+random-bytes`): findings of ten mutators are ten findings.
    public var mutator: String { example.baseMutator }
    public let swiftSummary: String
    public let pythonSummary: String
    public var count: Int
    /// The first frame found, with its verdicts and where its reproducer went.
    public let example: FuzzFrame
    public let ordinal: Int
    public let swift: FuzzVerdict
    public let python: FuzzVerdict
    public var reproducer: URL?
    /// The run-wide number of its first frame (frame i of a run is family i mod F, ordinal i ÷ F):
    /// merging workers' findings keeps the earliest, as one process would have.
    public var index = 0
    /// For a hang: how long the frame took, for the reproducer's note.
    public var seconds = 0.0

    var key: String { Self.key(family, kind, mutator, swiftSummary, pythonSummary) }
    static func key(_ family: FrameFamily, _ kind: String, _ mutator: String, _ swift: String, _ python: String) -> String {
        "\(family.rawValue)|\(kind)|\(mutator)|\(swift)|\(python)"
    }

    /// A short testcase name: `disagreement.<swift>-vs-<python>`.
    public var name: String {
        func short(_ text: String) -> String {
            String(text.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }.reduce(into: "") { out, c in
                if !(c == "-" && out.last == "-") { out.append(c) }
            }.prefix(60)).trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        }
        return "\(kind).\(short(mutator)).swift-\(short(swift.outcome.rawValue + " " + swiftSummary))-vs-python-\(short(python.outcome.rawValue + " " + pythonSummary))"
    }
}

/// The result of a run.
public struct FuzzReport: Sendable, Codable {
    public var seed: UInt64
    public var target: String
    public var plant: PlantedFlaw?
    public var stats: [FrameFamily: FamilyStats] = [:]
    /// Distinct failures in the order they were first found.
    public var failures: [DistinctFailure] = []
    public var frames = 0
    public var elapsed: TimeInterval = 0
    /// Peak resident set size of this process (VmHWM), in KiB.
    public var peakResidentKiB = 0
    /// The run stopped early (interrupted).
    public var stopped = false
    /// Worker processes (`--jobs N`) that ended without reporting, each in words.
    public var lostWorkers: [String] = []
    /// How many processes ran the frames (`--jobs N`); peak memory is the largest one's.
    public var processes = 1

    public var framesPerSecond: Double { elapsed > 0 ? Double(frames) / elapsed : 0 }
    public var disagreements: Int { stats.values.reduce(0) { $0 + $1.disagreements } }
    public var crashes: Int { stats.values.reduce(0) { $0 + $1.crashes } }
    public var hangs: Int { stats.values.reduce(0) { $0 + $1.hangs } }
    public var specViolations: Int { stats.values.reduce(0) { $0 + $1.specViolations } }
    public var clean: Bool { failures.isEmpty && lostWorkers.isEmpty }

    /// Parts of one run (disjoint frame ranges, e.g. worker processes) as the report one process
    /// would have written: counts summed, each distinct failure's first frame the earliest over
    /// all parts, in the order first found, at most `FuzzCampaign.maxDistinct` of them.
    public static func merged(_ parts: [FuzzReport], seed: UInt64, target: String, plant: PlantedFlaw?,
                              keep: Int = FuzzCampaign.maxDistinct) -> FuzzReport {
        var report = FuzzReport(seed: seed, target: target, plant: plant)
        var byKey: [String: DistinctFailure] = [:]
        for part in parts {
            report.frames += part.frames
            report.stopped = report.stopped || part.stopped
            report.peakResidentKiB = max(report.peakResidentKiB, part.peakResidentKiB)
            report.lostWorkers += part.lostWorkers
            for (family, stats) in part.stats { report.stats[family, default: FamilyStats()].add(stats) }
            for failure in part.failures {
                if var known = byKey[failure.key] {
                    let count = known.count + failure.count
                    if failure.index < known.index { known = failure }
                    known.count = count
                    byKey[failure.key] = known
                } else {
                    byKey[failure.key] = failure
                }
            }
        }
        report.failures = Array(byKey.values.sorted { $0.index < $1.index }.prefix(keep))
        return report
    }
}

/// Runs frames through an oracle, counts, deduplicates failures and saves one reproducer for each.
public final class FuzzCampaign: @unchecked Sendable {
    public typealias Oracle = (FuzzFrame) -> (swift: FuzzVerdict, python: FuzzVerdict)
    let generator: FrameGenerator
    let options: FuzzOptions
    let oracle: Oracle
    /// Distinct failures kept per report (the first found); a worker keeps more, so that merging
    /// still finds the run's first ones.
    public static let maxDistinct = 500
    static let maxDistinctInWorker = 5_000

    public init(generator: FrameGenerator, options: FuzzOptions, oracle: @escaping Oracle) {
        self.generator = generator; self.options = options; self.oracle = oracle
    }

    /// The in-process campaign: `options.frames` frames of the generator's families, interleaved.
    public func run(shouldStop: () -> Bool = { false }, progress: (FuzzReport) -> Void = { _ in }) -> FuzzReport {
        run(frames: 0..<options.frames, shouldStop: shouldStop, progress: progress)
    }

    /// Frames `range` of the in-process campaign (frame i: family i mod F, ordinal i ÷ F), so that
    /// processes given disjoint ranges together run exactly the frames one process would.
    public func run(frames range: Range<Int>, shouldStop: () -> Bool = { false }, progress: (FuzzReport) -> Void = { _ in }) -> FuzzReport {
        let families = generator.families
        return run(jobs: range.count, shouldStop: shouldStop, progress: progress, index: { range.lowerBound + $0 }) { number in
            let index = range.lowerBound + number
            return (families[index % families.count], index / families.count)
        }
    }

    /// Runs `jobs` frames; `job(i)` names frame i as (family, ordinal); `index(i)` is its run-wide number.
    public func run(jobs: Int, shouldStop: () -> Bool = { false }, progress: (FuzzReport) -> Void = { _ in },
                    index runIndex: (Int) -> Int = { $0 }, job: (Int) -> (FrameFamily, Int)) -> FuzzReport {
        var report = FuzzReport(seed: options.seed, target: options.target, plant: options.plant)
        var index: [String: Int] = [:]
        let watchdog = Watchdog(limit: options.deadline * 3, options: options)
        defer { watchdog.stop() }
        CrashNote.install(directory: options.saveDirectory, seed: options.seed)
        defer { CrashNote.disarm() }
        let start = DispatchTime.now()
        var lastProgress = start
        for number in 0..<jobs {
            if shouldStop() { report.stopped = true; break }
            let (family, ordinal) = job(number)
            let frame = generator.frame(family, ordinal: ordinal)
            CrashNote.arm(family: family, ordinal: ordinal, mutator: frame.mutator, plant: options.plant, target: options.target)
            watchdog.begin(frame, ordinal: ordinal)
            let began = DispatchTime.now()
            let verdicts = oracle(frame)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - began.uptimeNanoseconds) / 1e9
            watchdog.end()
            var finding = FuzzOracle.judge(frame, swift: verdicts.swift, python: verdicts.python)
            if seconds > options.deadline, finding != .crash, finding != .disagreement, finding != .specViolation { finding = .hang }

            var stats = report.stats[family] ?? FamilyStats()
            stats.frames += 1
            stats.seconds += seconds
            stats.slowestSeconds = max(stats.slowestSeconds, seconds)
            var tally = stats.mutators[frame.baseMutator] ?? MutatorTally()
            tally.frames += 1
            tally.spec = tally.spec ?? frame.spec?.answer.rawValue
            if frame.unchanged == true { tally.unchanged += 1 }
            if verdicts.swift.outcome == verdicts.python.outcome {
                if verdicts.swift.outcome == .accepted { tally.acceptedByBoth += 1 } else if verdicts.swift.outcome == .rejected { tally.refusedByBoth += 1 }
            } else {
                tally.split += 1
            }
            var failureKind: String?
            switch finding {
            case .agreed:
                if verdicts.swift.outcome == .accepted { stats.acceptedByBoth += 1 } else { stats.refusedByBoth += 1 }
            case .disagreement: stats.disagreements += 1; failureKind = "disagreement"
            case .specViolation: stats.specViolations += 1; tally.specViolations += 1; failureKind = "spec"
            case .crash: stats.crashes += 1; failureKind = "crash"
            case .hang: stats.hangs += 1; failureKind = "hang"
            }
            stats.mutators[frame.baseMutator] = tally
            report.stats[family] = stats
            report.frames += 1

            if let kind = failureKind {
                let key = DistinctFailure.key(family, kind, frame.baseMutator, verdicts.swift.summary, verdicts.python.summary)
                if let position = index[key] {
                    report.failures[position].count += 1
                } else if report.failures.count < (options.writesReproducers ? Self.maxDistinct : Self.maxDistinctInWorker) {
                    var failure = DistinctFailure(family: family, kind: kind, swiftSummary: verdicts.swift.summary, pythonSummary: verdicts.python.summary,
                                                  count: 1, example: frame, ordinal: ordinal, swift: verdicts.swift, python: verdicts.python)
                    failure.index = runIndex(number)
                    failure.seconds = seconds
                    if options.writesReproducers { failure.reproducer = Self.save(failure, options: options) }
                    index[key] = report.failures.count
                    report.failures.append(failure)
                }
            }
            if Double(DispatchTime.now().uptimeNanoseconds - lastProgress.uptimeNanoseconds) > 2e9 {
                lastProgress = DispatchTime.now()
                report.elapsed = Double(lastProgress.uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
                progress(report)
            }
        }
        report.elapsed = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        report.peakResidentKiB = Self.peakResidentKiB()
        return report
    }

    /// Writes `failure`'s reproducer into `options.saveDirectory`; its name depends only on the
    /// failure's verdict pair and the seed, so one failure found again overwrites its own file.
    public static func save(_ failure: DistinctFailure, options: FuzzOptions) -> URL? {
        guard let directory = options.saveDirectory else { return nil }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (failure.key + "\(options.seed)").utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let url = directory.appendingPathComponent("\(failure.family.rawValue).\(failure.kind).\(String(hash, radix: 16).suffix(8)).json")
        let reproducer = FuzzReproducer(kind: failure.kind, frame: failure.example, family: failure.family, seed: options.seed,
                                        ordinal: failure.ordinal, target: options.target, plant: options.plant, swift: failure.swift,
                                        python: failure.python, note: failure.kind == "hang" ? String(format: "took %.3f s (deadline %.3f s)", failure.seconds, options.deadline) : nil)
        do { try reproducer.write(to: url); return url } catch { return nil }
    }

    /// VmHWM of /proc/self/status, in KiB (0 where there is no /proc).
    public static func peakResidentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? 0
    }
}

/// Ends a run whose current frame has been running far past its deadline: writes the frame's
/// reproducer (kind `hang`) and exits with status 1. A frame that merely overruns is reported by
/// the campaign itself.
final class Watchdog: @unchecked Sendable {
    private let lock = NSLock()
    private let limit: TimeInterval
    private let options: FuzzOptions
    private var current: (frame: FuzzFrame, ordinal: Int, since: Date)?
    private var stopped = false

    init(limit: TimeInterval, options: FuzzOptions) {
        self.limit = limit
        self.options = options
        let thread = Thread { [weak self] in self?.watch() }
        thread.start()
    }

    func begin(_ frame: FuzzFrame, ordinal: Int) { lock.lock(); current = (frame, ordinal, Date()); lock.unlock() }
    func end() { lock.lock(); current = nil; lock.unlock() }
    func stop() { lock.lock(); stopped = true; lock.unlock() }

    private func watch() {
        while true {
            Thread.sleep(forTimeInterval: min(0.25, limit / 4))
            lock.lock()
            if stopped { lock.unlock(); return }
            let overdue = current.flatMap { Date().timeIntervalSince($0.since) > limit ? $0 : nil }
            lock.unlock()
            guard let overdue else { continue }
            var message = "crosscheck fuzz: frame \(overdue.frame.family.rawValue) #\(overdue.ordinal) (\(overdue.frame.mutator)) still running after \(limit) s"
            if let directory = options.saveDirectory {
                let url = directory.appendingPathComponent("\(overdue.frame.family.rawValue).hang.seed\(options.seed)-\(overdue.ordinal).json")
                let reproducer = FuzzReproducer(kind: "hang", frame: overdue.frame, family: overdue.frame.family, seed: options.seed,
                                                ordinal: overdue.ordinal, target: options.target, plant: options.plant,
                                                note: "still running after \(limit) s; the run was ended")
                if (try? reproducer.write(to: url)) != nil { message += "; reproducer: \(url.path)" }
            }
            FileHandle.standardError.write(Data((message + "\n").utf8))
            _exit(1)
        }
    }
}

/// Writes the current frame's identity to a file if the process dies on a signal (a Swift trap,
/// a segfault in C code), so a crash leaves a reproducer that regenerates the frame from the seed.
/// The text is rendered before each frame; the handler only calls open/write/close (async-signal-safe).
enum CrashNote {
    nonisolated(unsafe) static var path: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) static var buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    nonisolated(unsafe) static var length = 0
    nonisolated(unsafe) static var seed: UInt64 = 0
    static let initialized: Bool = { saved.initialize(repeating: false, count: 65); return true }()
    static let capacity = 4096
    static let signals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE]

    /// The actions in place before `install`, restored by `disarm` (and by the handler before it
    /// re-raises, so a crash still reaches Swift's backtracer or the default action).
    /// Indexed by signal number (plain memory, so the handler reads it without Swift collections).
    nonisolated(unsafe) static var previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
    nonisolated(unsafe) static var saved = UnsafeMutablePointer<Bool>.allocate(capacity: 65)

    static func install(directory: URL?, seed: UInt64) {
        guard let directory else { return }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("crash.seed\(seed).pid\(getpid()).json").path
        free(path)
        path = strdup(file)
        self.seed = seed
        _ = buffer
        _ = initialized
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                if let path = CrashNote.path, CrashNote.length > 0 {
                    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                    if fd >= 0 { _ = write(fd, CrashNote.buffer, CrashNote.length); close(fd) }
                    let text = "crosscheck fuzz: died on a signal; the frame's reproducer is "
                    _ = text.withCString { write(2, $0, strlen($0)) }
                    _ = write(2, path, strlen(path))
                    _ = write(2, "\n", 1)
                }
                if CrashNote.saved[Int(number)] { sigaction(number, CrashNote.previous + Int(number), nil) } else { signal(number, SIG_DFL) }
                raise(number)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            if saved[Int(number)] {
                sigaction(number, &action, nil)
            } else {
                sigaction(number, &action, previous + Int(number))
                saved[Int(number)] = true
            }
        }
    }

    static func arm(family: FrameFamily, ordinal: Int, mutator: String, plant: PlantedFlaw?, target: String) {
        guard path != nil else { return }
        let text = #"{"family":"\#(family.rawValue)","format":"\#(FuzzReproducer.formatName)","kind":"crash","mutator":"\#(mutator)","note":"the process died on a signal while running this frame; it is regenerated from seed, family and ordinal","ordinal":\#(ordinal),"#
            + (plant.map { #""plant":"\#($0.rawValue)","# } ?? "") + #""seed":\#(seed),"target":"\#(target)"}"#
        let bytes = Array(text.utf8.prefix(capacity))
        bytes.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: $0.count) }
        length = bytes.count
    }

    static func disarm() {
        length = 0
        _ = initialized
        for number in signals where saved[Int(number)] {
            sigaction(number, previous + Int(number), nil)
            saved[Int(number)] = false
        }
    }
}
