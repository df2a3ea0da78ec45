import Foundation
import XCTest
import TestSupport

/// The base64 body of the first PEM block in a file of Vectors/tls.
func vectorCertificateDER(_ name: String) throws -> Data {
    let pem = try String(contentsOf: repositoryRoot.appendingPathComponent("Vectors/tls/\(name).crt.pem"), encoding: .utf8)
    return Data(base64Encoded: pem.components(separatedBy: "\n").filter { !$0.hasPrefix("-----") }.joined())!
}
