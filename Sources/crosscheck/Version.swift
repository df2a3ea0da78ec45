import Foundation
import CommandLineKit
import Conformance

/// `crosscheck --version`: the release, and where this binary finds what it reads (an installed
/// crosscheck: PREFIX/share/crosscheck; a checkout: its own folders), so a bug report says both.
enum Version {
    /// Raised with each release; the issue number of the newest change it holds is in the last part.
    static let number = "1.33.0"

    static func text(files: ProjectFiles = ProjectFiles.locate()) -> String {
        """
        crosscheck \(number)
        PythonRef: \(files.pythonRef.path)
        Vectors:   \(files.vectors.path)
        """
    }
}
