import Foundation
import CommandLineKit
import Conformance

/// The signal that interrupted the run (0: none). Written only by the handler below.
nonisolated(unsafe) private var receivedSignal: sig_atomic_t = 0
/// What the handler writes to stderr; built before the handler is installed (no allocation in it).
nonisolated(unsafe) private var interruptNotice: [UInt8] = []

/// A SIGINT/SIGTERM latch: the first signal asks the run to stop after the current check, so a
/// partial report can still be written; a second one exits at once. A plain sigaction handler
/// (async-signal-safe: it stores a flag and calls write/_exit) rather than a dispatch source, which
/// depends on how the parent left the signal mask.
final class InterruptLatch: @unchecked Sendable {
    init() {
        interruptNotice = Array("\ncrosscheck: interrupted; finishing the current check and writing a partial report (again to quit now)\n".utf8)
        // A parent may hand us SIGINT/SIGTERM blocked (the mask survives exec; test runners and some
        // CI agents spawn children from threads that block signals); a blocked signal never arrives.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        sigaddset(&unblock, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            if receivedSignal != 0 { _exit(ExitCode.interrupted.rawValue) }
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

/// Prints progress on long runs: a line per finished suite and for every failure, to stderr.
struct ProgressPrinter {
    let quiet: Bool
    private var lastSuite: String?
    private var suiteStart = Date()
    private var counts = (passed: 0, failed: 0, skipped: 0)

    init(quiet: Bool) { self.quiet = quiet }

    mutating func record(done: Int, total: Int, result: CheckResult) {
        if lastSuite != result.check.suite {
            finishSuite()
            lastSuite = result.check.suite
            suiteStart = Date()
        }
        switch result.outcome {
        case .passed: counts.passed += 1
        case .skipped: counts.skipped += 1
        case let .failed(message, _), let .error(message, _):
            counts.failed += 1
            if !quiet { printError("  FAIL \(result.check.fullName): \(message)") }
        }
        if done == total { finishSuite() }
    }

    private mutating func finishSuite() {
        guard let suite = lastSuite else { return }
        if !quiet {
            printError(String(format: "  %@: %d passed, %d failed, %d skipped (%.1fs)", suite, counts.passed, counts.failed,
                              counts.skipped, Date().timeIntervalSince(suiteStart)))
        }
        counts = (0, 0, 0)
        lastSuite = nil
    }
}
