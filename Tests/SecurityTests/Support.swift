import Foundation
import XCTest
import TestSupport

/// Test certificates made with the openssl command line: a CA, a server it signed (SAN localhost
/// and 127.0.0.1, serverAuth EKU, 365 days), an intermediate chain, an impostor CA and its server
/// for the same names, a server without EKU, a server without SAN (CN only), and a 30-year server.
final class CertificateFactory {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try makeCA("ca")
        try makeCA("impostor-ca")
        try makeCA("root2")
        try makeLeaf("server", ca: "ca", extensions: Self.serverExtensions)
        try makeLeaf("impostor", ca: "impostor-ca", extensions: Self.serverExtensions)
        try makeLeaf("no-eku", ca: "ca", extensions: "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n")
        try makeLeaf("cn-only", ca: "ca", extensions: "extendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
        try makeLeaf("long-lived", ca: "ca", extensions: Self.serverExtensions, days: 10950)
        try makeLeaf("intermediate", ca: "root2", extensions: "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n",
                     commonName: "intermediate")
        try makeLeaf("chained", ca: "intermediate", extensions: Self.serverExtensions)
    }

    static let serverExtensions = "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n"

    private func makeCA(_ name: String) throws {
        try scratch.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(name).key", "-out", "\(name).pem",
                             "-days", "365", "-subj", "/O=crosscheck test/CN=\(name)",
                             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        try scratch.openssl(["x509", "-in", "\(name).pem", "-outform", "DER", "-out", "\(name).der"])
    }

    private func makeLeaf(_ name: String, ca: String, extensions: String, days: Int = 365, commonName: String = "localhost") throws {
        try scratch.openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(name).key", "-out", "\(name).csr",
                             "-subj", "/O=crosscheck test/CN=\(commonName)"])
        try scratch.write("\(name).ext", Data(extensions.utf8))
        try scratch.openssl(["x509", "-req", "-in", "\(name).csr", "-CA", "\(ca).pem", "-CAkey", "\(ca).key", "-CAcreateserial",
                             "-out", "\(name).pem", "-days", "\(days)", "-sha256", "-extfile", "\(name).ext"])
        try scratch.openssl(["x509", "-in", "\(name).pem", "-outform", "DER", "-out", "\(name).der"])
    }

    func der(_ name: String) throws -> Data { try scratch.read("\(name).der") }
}
