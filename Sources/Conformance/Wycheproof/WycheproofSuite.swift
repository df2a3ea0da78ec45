import Foundation

extension SuiteCatalog {
    /// `crosscheck run --suite wycheproof`: the vendored Wycheproof files on both implementations.
    static func wycheproof(_ context: SuiteContext) -> [Check] {
        let directory = VectorLocations.wycheproof
        do {
            return WycheproofChecks.checks(files: try VectorLocations.wycheproofTestFiles(in: directory), peers: [context.swift, context.python])
        } catch {
            return [WycheproofChecks.loadFailure(directory.lastPathComponent, error)]
        }
    }
}
