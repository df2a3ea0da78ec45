import Foundation
import XCTest
import Security
import TestSupport

/// SecCertificate's names deprecated on iOS and still declared (SecCertificateCopyPublicKey,
/// SecCertificateCopySerialNumber), called as iOS 10.3–11 app code calls them; the bytes they give
/// are checked against what the openssl command reads from the same certificate.
final class SecCertificateDeprecatedTests: XCTestCase {
    private func external(_ key: SecKey) throws -> Data {
        var error: Unmanaged<CFError>?
        guard let data = SecKeyCopyExternalRepresentation(key, &error) else { throw error!.takeRetainedValue() }
        return data as Data
    }

    /// An RSA and a P-256 certificate made by openssl: the key SecCertificateCopyPublicKey gives is
    /// the certificate's (RSA: the PKCS#1 RSAPublicKey openssl writes; EC: the X9.63 point openssl
    /// prints), the same as SecCertificateCopyKey's, and it verifies a signature openssl made.
    func testCopyPublicKey_isTheCertificatesKey() throws {
        let scratch = try Scratch()
        for (name, keyArguments) in [("rsa", ["-newkey", "rsa:2048"]), ("ec", ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"])] {
            try scratch.openssl(["req", "-x509"] + keyArguments + ["-nodes", "-keyout", "\(name).key", "-out", "\(name).pem", "-days", "30",
                                                                   "-subj", "/CN=\(name).example"])
            try scratch.openssl(["x509", "-in", "\(name).pem", "-outform", "DER", "-out", "\(name).der"])
            let certificate = try XCTUnwrap(SecCertificateCreateWithData(nil, try scratch.read("\(name).der") as CFData))
            let key = try XCTUnwrap(SecCertificateCopyPublicKey(certificate), name)
            let expected: Data
            if name == "rsa" {
                expected = try scratch.openssl(["rsa", "-in", "rsa.key", "-RSAPublicKey_out", "-outform", "DER"])
            } else {
                let spki = try scratch.openssl(["pkey", "-in", "ec.key", "-pubout", "-outform", "DER"])
                expected = spki.suffix(65)  // a P-256 SubjectPublicKeyInfo ends with the 65-byte uncompressed point
                XCTAssertEqual(expected.first, 0x04)
            }
            XCTAssertEqual(try external(key), expected, name)
            XCTAssertEqual(try external(XCTUnwrap(SecCertificateCopyKey(certificate))), expected, name)

            let message = Data("signed by openssl's \(name) key".utf8)
            try scratch.write("message", message)
            let signature = try scratch.openssl(["dgst", "-sha256", "-sign", "\(name).key", "message"])
            let algorithm: SecKeyAlgorithm = name == "rsa" ? .rsaSignatureMessagePKCS1v15SHA256 : .ecdsaSignatureMessageX962SHA256
            var error: Unmanaged<CFError>?
            XCTAssertTrue(SecKeyVerifySignature(key, algorithm, message as CFData, signature as CFData, &error), name)
            var tampered = signature
            tampered[tampered.count / 2] ^= 1
            XCTAssertFalse(SecKeyVerifySignature(key, algorithm, message as CFData, tampered as CFData, &error), name)
        }
    }

    /// The serial number's bytes, as openssl prints them, and as SecCertificateCopySerialNumberData gives them (a serial
    /// whose top bit is clear, so its DER content has no leading zero byte).
    func testCopySerialNumber_isTheSerialsBytes() throws {
        let scratch = try Scratch()
        try scratch.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days", "30",
                             "-subj", "/CN=serial.example", "-set_serial", "0x0123456789ABCDEF"])
        try scratch.openssl(["x509", "-in", "cert.pem", "-outform", "DER", "-out", "cert.der"])
        let printed = String(decoding: try scratch.openssl(["x509", "-in", "cert.pem", "-noout", "-serial"]), as: UTF8.self)
        XCTAssertEqual(printed.trimmingCharacters(in: .whitespacesAndNewlines), "serial=0123456789ABCDEF")
        let certificate = try XCTUnwrap(SecCertificateCreateWithData(nil, try scratch.read("cert.der") as CFData))
        let serial = try XCTUnwrap(SecCertificateCopySerialNumber(certificate)) as Data
        XCTAssertEqual(serial.hex, "0123456789abcdef")
        XCTAssertEqual(serial, SecCertificateCopySerialNumberData(certificate, nil) as Data?)
    }
}
