import Foundation

/// Everything that can go wrong writing or reading a report. Each description names the file and
/// says what to do about it.
public enum ReportError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// The report could not be written to `path` (directory not creatable, not writable, disk full...).
    case cannotWrite(path: String, reason: String)
    /// The file at `path` could not be opened or read.
    case cannotRead(path: String, reason: String)
    /// The file at `path` was read but is not a JUnit report this module understands.
    case malformed(path: String, reason: String)
    /// Two inputs of a merge hold a suite of the same name with different contents.
    case duplicateSuite(name: String, firstPath: String, secondPath: String)

    public var path: String {
        switch self {
        case .cannotWrite(let path, _), .cannotRead(let path, _), .malformed(let path, _):
            return path
        case .duplicateSuite(_, _, let secondPath):
            return secondPath
        }
    }

    public var description: String {
        switch self {
        case .cannotWrite(let path, let reason):
            return "Cannot write the JUnit report to \(path): \(reason). "
                + "Check that the directory can be created and is writable and that the disk is not full, "
                + "or choose another output path."
        case .cannotRead(let path, let reason):
            return "Cannot read the JUnit report at \(path): \(reason). "
                + "Check that the path is right and that the file exists and is readable."
        case .malformed(let path, let reason):
            return "The file at \(path) is not a usable JUnit report: \(reason). "
                + "Check that it is the report you meant (a JUnit XML file); to see what is wrong with it, run "
                + "`xmllint --noout --schema Vectors/junit/JUnit.xsd \(path)`, or regenerate it with crosscheck."
        case .duplicateSuite(let name, let firstPath, let secondPath):
            return "Suite \(name) is in both \(firstPath) and \(secondPath) with different results; merging would count "
                + "its testcases twice. Merge reports of different suites (shards of one run), or pick the run you mean; "
                + "to see what changed between the two, run `crosscheck report --diff \(firstPath) \(secondPath)`."
        }
    }

    public var errorDescription: String? { description }
}
