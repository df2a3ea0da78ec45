import Foundation
import Conformance
#if canImport(Glibc)
import Glibc
#endif

/// `crosscheck fuzz --jobs N`: the run's frames split into N contiguous ranges, one worker process
/// each (the crosscheck binary again, told its range), and the workers' reports merged into the one
/// report a single process would have written (`FuzzReport.merged`): the same frames, the same
/// first frame of every distinct failure, the same reproducers. Processes, not threads: the
/// embedded interpreter runs one thread at a time, and a frame that crashes takes down only its
/// worker (whose crash note names the frame).
///
/// A worker talks to its parent in lines on its standard output: `progress <JSON>` now and then
/// and `result <JSON>` at the end (its `FuzzReport`); its standard error is the parent's.
public enum FuzzWorkers {
    static let progressTag = "crosscheck-fuzz-worker progress "
    static let resultTag = "crosscheck-fuzz-worker result "

    /// `0..<frames` in `jobs` contiguous ranges whose sizes differ by at most one.
    public static func ranges(frames: Int, jobs: Int) -> [Range<Int>] {
        let jobs = max(1, min(jobs, frames))
        return (0..<jobs).map { job in
            let start = frames * job / jobs, end = frames * (job + 1) / jobs
            return start..<end
        }
    }

    // MARK: in a worker

    /// A worker's progress line (frames and failures so far).
    public static func reportProgress(_ report: FuzzReport) {
        var brief = FuzzReport(seed: report.seed, target: report.target, plant: report.plant)
        brief.frames = report.frames
        brief.elapsed = report.elapsed
        for (family, stats) in report.stats { brief.stats[family] = FamilyStats(frames: stats.frames, disagreements: stats.disagreements,
                                                                                 crashes: stats.crashes, hangs: stats.hangs) }
        emit(progressTag, brief)
    }

    /// A worker's last line: its whole report.
    public static func reportResult(_ report: FuzzReport) { emit(resultTag, report) }

    private static func emit(_ tag: String, _ report: FuzzReport) {
        guard let json = try? JSONEncoder().encode(report) else { return }
        FileHandle.standardOutput.write(Data(tag.utf8) + json + Data("\n".utf8))
    }

    /// True once the process that started this worker is gone (the worker then stops: nobody
    /// would read its report).
    public static func parentGone(_ parent: pid_t) -> Bool { getppid() != parent }

    // MARK: in the parent

    /// Runs one worker per range of `0..<options.frames`: `arguments(range)` is a worker's command
    /// line for `executable`. `progress` gets the merged counts every two seconds; `shouldStop`
    /// is polled as often, and once true the workers are interrupted (SIGINT) and report what they did.
    public static func run(executable: URL, arguments: (Range<Int>) -> [String], jobs: Int, options: FuzzOptions,
                           shouldStop: () -> Bool = { false }, progress: (FuzzReport) -> Void = { _ in }) -> FuzzReport {
        let started = DispatchTime.now()
        let finished = DispatchSemaphore(value: 0)
        let workers = ranges(frames: options.frames, jobs: jobs).enumerated().map { number, range in
            Worker(number: number + 1, range: range, executable: executable, arguments: arguments(range), finished: finished)
        }
        var running = workers.filter(\.started).count
        var interrupted = false
        while running > 0 {
            if finished.wait(timeout: .now() + 2) == .success { running -= 1; continue }
            if !interrupted, shouldStop() {
                interrupted = true
                workers.forEach { $0.interrupt() }
            }
            var partial = FuzzReport.merged(workers.map(\.latest), seed: options.seed, target: options.target, plant: options.plant)
            partial.elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            progress(partial)
        }
        if !interrupted, shouldStop() { interrupted = true }
        var parts: [FuzzReport] = []
        for worker in workers {
            if let result = worker.result {
                parts.append(result)
            } else {
                var lost = FuzzReport(seed: options.seed, target: options.target, plant: options.plant)
                lost.lostWorkers = [worker.loss]
                parts.append(lost)
            }
        }
        var report = FuzzReport.merged(parts, seed: options.seed, target: options.target, plant: options.plant)
        report.stopped = report.stopped || interrupted
        report.elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        for position in report.failures.indices {
            report.failures[position].reproducer = FuzzCampaign.save(report.failures[position], options: options)
        }
        return report
    }

    /// One worker process and what it has said so far.
    final class Worker: @unchecked Sendable {
        let number: Int
        let range: Range<Int>
        private let process = Process()
        private let lock = NSLock()
        private var progress: FuzzReport?
        private var final: FuzzReport?
        private var problem: String?
        private(set) var started = false

        init(number: Int, range: Range<Int>, executable: URL, arguments: [String], finished: DispatchSemaphore) {
            self.number = number
            self.range = range
            process.executableURL = executable
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardInput = FileHandle.nullDevice
            do {
                try process.run()
                started = true
            } catch {
                problem = "could not be started (\(error))"
                return
            }
            let thread = Thread { [self] in
                read(output.fileHandleForReading)
                process.waitUntilExit()
                finished.signal()
            }
            thread.start()
        }

        /// Lines until the worker closes its output.
        private func read(_ handle: FileHandle) {
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 0x0a) {
                    let line = buffer[buffer.startIndex..<newline]
                    buffer = Data(buffer[(newline + 1)...])
                    take(Data(line))
                }
            }
        }

        private func take(_ line: Data) {
            for (tag, isResult) in [(FuzzWorkers.progressTag, false), (FuzzWorkers.resultTag, true)] where line.starts(with: Data(tag.utf8)) {
                guard let report = try? JSONDecoder().decode(FuzzReport.self, from: line.dropFirst(tag.utf8.count)) else {
                    lock.lock(); problem = "sent a report that does not decode"; lock.unlock()
                    return
                }
                lock.lock()
                if isResult { final = report } else { progress = report }
                lock.unlock()
                return
            }
            // Anything else a worker prints is passed on (it should print nothing else).
            FileHandle.standardError.write(line + Data("\n".utf8))
        }

        func interrupt() { if started, process.isRunning { process.interrupt() } }

        /// What the worker has reported so far (its last progress line, or its result).
        var latest: FuzzReport {
            lock.lock(); defer { lock.unlock() }
            return final ?? progress ?? FuzzReport(seed: 0, target: "")
        }

        var result: FuzzReport? {
            lock.lock(); defer { lock.unlock() }
            return final
        }

        /// Why there is no result, in words.
        var loss: String {
            lock.lock(); defer { lock.unlock() }
            let what = "worker \(number) (frames \(range.lowerBound)..<\(range.upperBound))"
            if let problem { return "\(what) \(problem)" }
            let status = started ? process.terminationStatus : -1
            let how = started && process.terminationReason == .uncaughtSignal ? "died on signal \(status)" : "exited with status \(status)"
            return "\(what) \(how) without its report; its frames are not counted (messages above say why, a crash or hang note is in the reproducer folder)"
        }
    }
}
