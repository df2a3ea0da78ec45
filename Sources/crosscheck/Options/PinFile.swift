import Foundation
import CommandLineKit
import WireCrypto

/// Issue 33: `--pin CERT` as the app bundles it — PEM, or DER (`server.crt.der`, what `pythonref
/// server-cert` writes for the app bundle). A DER certificate is handed on as PEM (a file in the
/// temporary folder), as the TLS layer reads PEM; anything else ends the command with exit 66.
enum PinFile {
    static func pemPath(_ path: String, command: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandExit(.noInput, "crosscheck \(command): --pin \(path): no readable certificate file there")
        }
        if String(decoding: data, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") {
            do { _ = try X509Certificate(pem: data) } catch {
                throw CommandExit(.noInput, "crosscheck \(command): --pin \(path): its PEM certificate does not parse: \(error)")
            }
            return path
        }
        do { _ = try X509Certificate(der: data) } catch {
            throw CommandExit(.noInput, "crosscheck \(command): --pin \(path): neither a PEM certificate ('BEGIN CERTIFICATE') nor a DER one: \(error)")
        }
        let lines = stride(from: 0, to: data.base64EncodedString().count, by: 64).map { offset -> String in
            let text = data.base64EncodedString()
            let start = text.index(text.startIndex, offsetBy: offset)
            return String(text[start..<(text.index(start, offsetBy: 64, limitedBy: text.endIndex) ?? text.endIndex)])
        }
        let pem = "-----BEGIN CERTIFICATE-----\n" + lines.joined(separator: "\n") + "\n-----END CERTIFICATE-----\n"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-pin-\(getpid())-\(URL(fileURLWithPath: path).lastPathComponent).pem")
        do { try Data(pem.utf8).write(to: url, options: .atomic) } catch {
            throw CommandExit(.cannotCreate, "crosscheck \(command): --pin \(path): cannot write its PEM form to \(url.path): \(error)")
        }
        return url.path
    }
}
