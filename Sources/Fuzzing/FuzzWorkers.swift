import Foundation
import Conformance
#if canImport(Glibc)
import Glibc
#endif

/// `crosscheck fuzz --jobs N`: N worker processes (the crosscheck binary again, with a hidden
/// `--worker` option) share the run's frames in chunks, contiguous ranges the parent hands out one
/// at a time to whichever worker is free, so a slow stretch of frames or a busy core does not leave
/// one worker running alone at the end. The workers' reports merge into the one report a single
/// process would have written (`FuzzReport.merged`): the same frames, the same first frame of every
/// distinct failure, the same reproducers, whichever worker ran which chunk. Processes, not threads:
/// the embedded interpreter runs one thread at a time, and a frame that crashes takes down only its
/// worker (whose crash note names the frame).
///
/// Parent → worker, on the worker's standard input: `START:END` lines, one chunk each; end of input
/// means no more. Worker → parent, lines on its standard output: `progress <JSON>` now and then,
/// `chunk <JSON>` after each chunk (asking for the next), `result <JSON>` at the end (its whole
/// `FuzzReport`). The worker's standard error is the parent's.
public enum FuzzWorkers {
    static let progressTag = "crosscheck-fuzz-worker progress "
    static let chunkTag = "crosscheck-fuzz-worker chunk "
    static let resultTag = "crosscheck-fuzz-worker result "

    /// Chunk size for `frames` over `jobs` workers: about twenty chunks per worker, 100 to 10,000 frames each.
    public static func chunkSize(frames: Int, jobs: Int) -> Int {
        max(100, min(10_000, frames / max(1, jobs * 20)))
    }

    // MARK: in a worker

    /// Runs the chunks the parent sends on standard input until it sends no more (or `shouldStop`),
    /// reporting on standard output; returns when the parent has its result.
    public static func serve(_ campaign: FuzzCampaign, options: FuzzOptions, shouldStop: @escaping () -> Bool) {
        var done: [FuzzReport] = []
        func total(_ extra: FuzzReport? = nil) -> FuzzReport {
            FuzzReport.merged(done + (extra.map { [$0] } ?? []), seed: options.seed, target: options.target, plant: options.plant,
                              keep: FuzzCampaign.maxDistinctInWorker)
        }
        let parent = getppid()
        let stop = { shouldStop() || getppid() != parent }
        while !stop(), let line = readLine(), let range = parseRange(line) {
            let part = campaign.run(frames: range, shouldStop: stop, progress: { emit(progressTag, brief(total($0))) })
            done.append(part)
            if part.stopped { break }
            emit(chunkTag, brief(total()))
        }
        var result = total()
        result.stopped = result.stopped || stop()
        result.peakResidentKiB = FuzzCampaign.peakResidentKiB()
        emit(resultTag, result)
    }

    /// `START:END`.
    static func parseRange(_ line: String) -> Range<Int>? {
        let parts = line.split(separator: ":")
        guard parts.count == 2, let start = Int(parts[0]), let end = Int(parts[1]), 0 <= start, start < end else { return nil }
        return start..<end
    }

    /// Counts only (no failures with their frames): what progress lines carry.
    static func brief(_ report: FuzzReport) -> FuzzReport {
        var brief = FuzzReport(seed: report.seed, target: report.target, plant: report.plant)
        brief.frames = report.frames
        for (family, stats) in report.stats {
            brief.stats[family] = FamilyStats(frames: stats.frames, disagreements: stats.disagreements, crashes: stats.crashes, hangs: stats.hangs,
                                              specViolations: stats.specViolations)
        }
        return brief
    }

    private static func emit(_ tag: String, _ report: FuzzReport) {
        guard let json = try? JSONEncoder().encode(report) else { return }
        FileHandle.standardOutput.write(Data(tag.utf8) + json + Data("\n".utf8))
    }

    // MARK: in the parent

    /// Runs `jobs` workers (`arguments` is a worker's command line for `executable`) over the frames
    /// `0..<options.frames`. `progress` gets the merged counts every two seconds; `shouldStop` is
    /// polled as often, and once true no more chunks go out and the workers are interrupted
    /// (SIGINT), each reporting what it did. Writes the merged report's reproducers.
    public static func run(executable: URL, arguments: [String], jobs: Int, options: FuzzOptions,
                           shouldStop: () -> Bool = { false }, progress: (FuzzReport) -> Void = { _ in }) -> FuzzReport {
        let started = DispatchTime.now()
        let finished = DispatchSemaphore(value: 0)
        let chunks = Chunks(frames: options.frames, size: chunkSize(frames: options.frames, jobs: jobs))
        let workers = (1...max(1, jobs)).map { Worker(number: $0, executable: executable, arguments: arguments, chunks: chunks, finished: finished) }
        var running = workers.filter(\.started).count
        var interrupted = false
        func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9 }
        while running > 0 {
            if finished.wait(timeout: .now() + 2) == .success { running -= 1; continue }
            if !interrupted, shouldStop() {
                interrupted = true
                chunks.stop()
                workers.forEach { $0.interrupt() }
            }
            var partial = FuzzReport.merged(workers.map(\.latest), seed: options.seed, target: options.target, plant: options.plant)
            partial.elapsed = elapsed()
            progress(partial)
        }
        interrupted = interrupted || shouldStop()
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
        report.processes = workers.count
        report.elapsed = elapsed()
        for position in report.failures.indices {
            report.failures[position].reproducer = FuzzCampaign.save(report.failures[position], options: options)
        }
        return report
    }

    /// The frames not handed out yet, as chunks.
    final class Chunks: @unchecked Sendable {
        private let lock = NSLock()
        private var next = 0
        private let end: Int
        private let size: Int
        private var stopped = false

        init(frames: Int, size: Int) { end = frames; self.size = max(1, size) }

        func take() -> Range<Int>? {
            lock.lock(); defer { lock.unlock() }
            guard !stopped, next < end else { return nil }
            let chunk = next..<min(end, next + size)
            next = chunk.upperBound
            return chunk
        }

        func stop() { lock.lock(); stopped = true; lock.unlock() }
    }

    /// One worker process and what it has said so far.
    final class Worker: @unchecked Sendable {
        let number: Int
        private let process = Process()
        private let input = Pipe()
        private let chunks: Chunks
        private let lock = NSLock()
        private var progress: FuzzReport?
        private var final: FuzzReport?
        private var problem: String?
        private var ranges: [Range<Int>] = []
        private var inputClosed = false
        private(set) var started = false

        init(number: Int, executable: URL, arguments: [String], chunks: Chunks, finished: DispatchSemaphore) {
            self.number = number
            self.chunks = chunks
            process.executableURL = executable
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardInput = input
            do {
                try process.run()
                started = true
            } catch {
                problem = "could not be started (\(error))"
                return
            }
            sendNextChunk()
            let thread = Thread { [self] in
                read(output.fileHandleForReading)
                closeInput()
                process.waitUntilExit()
                finished.signal()
            }
            thread.start()
        }

        /// The next chunk to the worker, or the end of its input when there is none.
        private func sendNextChunk() {
            guard let range = chunks.take() else { return closeInput() }
            lock.lock(); ranges.append(range); lock.unlock()
            do { try input.fileHandleForWriting.write(contentsOf: Data("\(range.lowerBound):\(range.upperBound)\n".utf8)) } catch {
                closeInput()  // the worker is gone; its loss is reported when its output ends
            }
        }

        private func closeInput() {
            lock.lock()
            let wasClosed = inputClosed
            inputClosed = true
            lock.unlock()
            if !wasClosed { try? input.fileHandleForWriting.close() }
        }

        /// Lines until the worker closes its output.
        private func read(_ handle: FileHandle) {
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 0x0a) {
                    let line = Data(buffer[buffer.startIndex..<newline])
                    buffer = Data(buffer[(newline + 1)...])
                    take(line)
                }
            }
        }

        private func take(_ line: Data) {
            for tag in [FuzzWorkers.progressTag, FuzzWorkers.chunkTag, FuzzWorkers.resultTag] where line.starts(with: Data(tag.utf8)) {
                guard let report = try? JSONDecoder().decode(FuzzReport.self, from: line.dropFirst(tag.utf8.count)) else {
                    lock.lock(); problem = "sent a report that does not decode"; lock.unlock()
                    return
                }
                lock.lock()
                if tag == FuzzWorkers.resultTag { final = report } else { progress = report }
                lock.unlock()
                if tag == FuzzWorkers.chunkTag { sendNextChunk() }
                return
            }
            // Anything else a worker prints is passed on (it should print nothing else).
            FileHandle.standardError.write(line + Data("\n".utf8))
        }

        func interrupt() {
            closeInput()
            if started, process.isRunning { process.interrupt() }
        }

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
            let what = "worker \(number) (frames " + ranges.map { "\($0.lowerBound)..<\($0.upperBound)" }.joined(separator: ", ") + ")"
            if let problem { return "\(what) \(problem)" }
            let status = started ? process.terminationStatus : -1
            let how = started && process.terminationReason == .uncaughtSignal ? "died on signal \(status)" : "exited with status \(status)"
            return "\(what) \(how) without its report; its frames are not counted (the messages above say why; a crash or hang note is in the reproducer folder)"
        }
    }
}
