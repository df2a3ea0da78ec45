import Foundation

/// Runs checks one after another, timing each, turning thrown errors into verdicts, and telling a
/// progress callback how far it got. Stops early (leaving the rest out) when `shouldStop` says so,
/// so an interrupted run can still write what it has.
public struct Runner: Sendable {
    public var filter: String?
    public init(filter: String? = nil) { self.filter = filter }

    public func selected(_ checks: [Check]) -> [Check] {
        guard let filter, !filter.isEmpty else { return checks }
        return checks.filter { $0.fullName.localizedCaseInsensitiveContains(filter) || $0.suite.localizedCaseInsensitiveContains(filter) }
    }

    public func run(_ checks: [Check], shouldStop: () -> Bool = { false },
                    progress: (_ done: Int, _ total: Int, _ result: CheckResult) -> Void = { _, _, _ in }) -> [CheckResult] {
        var results: [CheckResult] = []
        results.reserveCapacity(checks.count)
        for check in checks {
            if shouldStop() { break }
            let result = Self.run(check)
            results.append(result)
            progress(results.count, checks.count, result)
        }
        return results
    }

    public static func run(_ check: Check) -> CheckResult {
        let start = DispatchTime.now()
        let outcome: CheckOutcome
        do { outcome = try check.body() } catch let failure as CheckFailure {
            outcome = .failed(message: failure.message, details: failure.details)
        } catch let failure as PeerFailure {
            outcome = .error(message: "unexpected refusal: \(failure.kind.rawValue)", details: failure.detail)
        } catch {
            outcome = .error(message: "harness error: \(error)", details: "")
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        return CheckResult(check: check, outcome: outcome, duration: elapsed)
    }
}
