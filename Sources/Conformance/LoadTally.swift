import Foundation

/// The tally of a `--load` run's concurrent conversations (the profiles' and a description's): how
/// many completed, and the first failure's words.
public final class LoadTally: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var first: String?

    public init() {}
    public var completed: Int { lock.withLock { count } }
    public var firstFailure: String? { lock.withLock { first } }
    public func success() { lock.withLock { count += 1 } }
    public func failure(_ text: String) { lock.withLock { if first == nil { first = text } } }
}
