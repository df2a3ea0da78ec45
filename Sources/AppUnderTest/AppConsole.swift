import Foundation

/// What in-process app code prints. On a phone `print` goes to the device console; here it would
/// land in the middle of crosscheck's progress lines, so each seed app's glue sends it here instead
/// (a team's app in its own process prints to that process's stderr). A failing app check shows
/// the lines the app printed during the step (`AppConsole.lines(since:)`). Only the last
/// `capacity` lines are kept, so a chatty app cannot grow the process without bound.
public enum AppConsole {
    public static let capacity = 1000

    private static let lock = NSLock()
    nonisolated(unsafe) private static var kept: [String] = []
    nonisolated(unsafe) private static var written = 0

    /// Where an app's own process also sends what app code prints (the host sets it to its
    /// stderr, which crosscheck keeps as the app's console log); nil in crosscheck's process.
    nonisolated(unsafe) public static var echo: (@Sendable (String) -> Void)?

    /// Appends what one `print` call wrote (its lines, without the final newline).
    public static func write(_ text: String) {
        echo?(text)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if text.hasSuffix("\n") { lines.removeLast() }
        lock.lock(); defer { lock.unlock() }
        kept.append(contentsOf: lines)
        written += lines.count
        if kept.count > capacity { kept.removeFirst(kept.count - capacity) }
    }

    /// A position to read from later: how many lines have been written so far.
    public static var mark: Int { lock.lock(); defer { lock.unlock() }; return written }

    /// The lines written since `mark` that are still kept (app code on other threads may add theirs).
    public static func lines(since mark: Int) -> [String] {
        lock.lock(); defer { lock.unlock() }
        let count = min(max(written - mark, 0), kept.count)
        return Array(kept.suffix(count))
    }
}
