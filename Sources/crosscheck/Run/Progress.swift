import Foundation
import TeamServer
import CommandLineKit
import Conformance
import Reports

/// The signal that interrupted the run (0: none). Written only by the handler below.
nonisolated(unsafe) private var receivedSignal: sig_atomic_t = 0
/// What the handler writes to stderr; built before the handler is installed (no allocation in it).
nonisolated(unsafe) private var interruptNotice: [UInt8] = []

/// A SIGINT/SIGTERM latch: the first signal asks the run to stop after the current check, so a
/// partial report can still be written; a second one exits at once. A plain sigaction handler
/// (async-signal-safe: it stores a flag and calls write/_exit) rather than a dispatch source, which
/// depends on how the parent left the signal mask.
final class InterruptLatch: @unchecked Sendable {
    init(notice: String = "crosscheck: interrupted; stopping at the next check and writing a partial report (again to quit now)") {
        interruptNotice = Array("\n\(notice)\n".utf8)
        // A parent may hand us SIGINT/SIGTERM blocked (the mask survives exec; test runners and some
        // CI agents spawn children from threads that block signals); a blocked signal never arrives.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        sigaddset(&unblock, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            if receivedSignal != 0 {
                OwnProcessServer.killRunningGroup()  // a team's server run as its own process goes too
                _exit(ExitCode.interrupted.rawValue)
            }
            receivedSignal = number
            interruptNotice.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
    }

    var interrupted: Bool { receivedSignal != 0 }
}

/// Prints progress on long runs: a line per finished suite and for every failure, to stderr. It
/// uses the summary's words (FAIL, ERROR; "3 passed, 1 failed, 1 errors, 1 skipped") and the
/// suite time every output uses: the sum of its testcase times (`JUnitFormat.suiteTime`). When a
/// suite's checks come in several runs (sessions suites are built by several builders), each run
/// ends with a line of that suite's totals so far, so its last line equals its summary row.
struct ProgressPrinter {
    struct Tally {
        var passed = 0, failed = 0, errors = 0, skipped = 0, known = 0
        var caseTimes: [TimeInterval] = []
    }

    let quiet: Bool
    private var lastSuite: String?
    private var tallies: [String: Tally] = [:]

    init(quiet: Bool) { self.quiet = quiet }

    mutating func record(done: Int, total: Int, result: CheckResult) {
        let suite = result.check.suite
        if lastSuite != suite {
            finishSuite()
            lastSuite = suite
        }
        var tally = tallies[suite] ?? Tally()
        tally.caseTimes.append(result.duration)
        switch result.outcome {
        case .passed: tally.passed += 1
        case let .skipped(reason):
            tally.skipped += 1
            if reason.hasPrefix(JUnitCase.knownPrefix) { tally.known += 1 }
        case let .failed(message, _):
            tally.failed += 1
            if !quiet { printError("  \(Verdict.fail.padded) \(result.check.fullName): \(message)") }
        case let .error(message, _):
            tally.errors += 1
            if !quiet { printError("  \(Verdict.error.padded) \(result.check.fullName): \(message)") }
        }
        tallies[suite] = tally
        if done == total { finishSuite() }
    }

    private mutating func finishSuite() {
        guard let suite = lastSuite, let tally = tallies[suite] else { return }
        if !quiet {
            let line = Summary.countsLine(passed: tally.passed, failed: tally.failed, errors: tally.errors,
                                          skipped: tally.skipped, known: tally.known)
            printError("  \(suite): \(line) (\(JUnitFormat.formatTime(JUnitFormat.suiteTime(tally.caseTimes)))s)")
        }
        lastSuite = nil
    }
}
