import Foundation
import XCTest
import TestSupport

/// Test certificates made with the openssl command line: a CA, a server it signed (SAN localhost
/// and 127.0.0.1, serverAuth EKU, 365 days), an intermediate chain, an impostor CA and its server
/// for the same names, a server without EKU, a server without SAN (CN only), a 30-year server, and
/// the cases of Apple's SSL server policy: RSA-1024 leaf and CA, SHA-1 leaf and self-signed CA, a
/// keyCertSign-only key usage, anyExtendedKeyUsage and clientAuth-only EKUs, an EC P-256 leaf.
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
        // Apple's SSL server policy (issue 29): key sizes on every certificate, SHA-1, key and extended key usages.
        try makeLeaf("rsa1024-leaf", ca: "ca", extensions: Self.serverExtensions, key: "rsa:1024")
        try makeCA("rsa1024-ca", key: "rsa:1024")
        try makeLeaf("under-rsa1024-ca", ca: "rsa1024-ca", extensions: Self.serverExtensions)
        try makeLeaf("sha1-leaf", ca: "ca", extensions: Self.serverExtensions, digest: "-sha1")
        try makeCA("sha1-ca", digest: "-sha1")
        try makeLeaf("under-sha1-ca", ca: "sha1-ca", extensions: Self.serverExtensions)
        try makeLeaf("key-cert-sign-usage", ca: "ca", extensions: "subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\nkeyUsage=critical,keyCertSign\n")
        try makeLeaf("any-eku", ca: "ca", extensions: "subjectAltName=DNS:localhost\nextendedKeyUsage=anyExtendedKeyUsage\nbasicConstraints=CA:FALSE\n")
        try makeLeaf("client-eku", ca: "ca", extensions: "subjectAltName=DNS:localhost\nextendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n")
        try makeLeaf("ec256-leaf", ca: "ca", extensions: Self.serverExtensions, key: "ec", keyOptions: ["-pkeyopt", "ec_paramgen_curve:P-256"])
    }

    static let serverExtensions = "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n"

    private func makeCA(_ name: String, key: String = "rsa:2048", digest: String = "-sha256") throws {
        try scratch.openssl(["req", "-x509", "-newkey", key, digest, "-nodes", "-keyout", "\(name).key", "-out", "\(name).pem",
                             "-days", "365", "-subj", "/O=crosscheck test/CN=\(name)",
                             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        try scratch.openssl(["x509", "-in", "\(name).pem", "-outform", "DER", "-out", "\(name).der"])
    }

    private func makeLeaf(_ name: String, ca: String, extensions: String, days: Int = 365, commonName: String = "localhost",
                          key: String = "rsa:2048", keyOptions: [String] = [], digest: String = "-sha256") throws {
        try scratch.openssl(["req", "-newkey", key] + keyOptions + ["-nodes", "-keyout", "\(name).key", "-out", "\(name).csr",
                             "-subj", "/O=crosscheck test/CN=\(commonName)"])
        try scratch.write("\(name).ext", Data(extensions.utf8))
        try scratch.openssl(["x509", "-req", "-in", "\(name).csr", "-CA", "\(ca).pem", "-CAkey", "\(ca).key", "-CAcreateserial",
                             "-out", "\(name).pem", "-days", "\(days)", digest, "-extfile", "\(name).ext"])
        try scratch.openssl(["x509", "-in", "\(name).pem", "-outform", "DER", "-out", "\(name).der"])
    }

    func der(_ name: String) throws -> Data { try scratch.read("\(name).der") }
}
