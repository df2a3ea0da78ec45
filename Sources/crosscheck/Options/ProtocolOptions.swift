import Foundation
import CommandLineKit
import Described
import WireCrypto
import WireProtocol

/// `--protocol FILE` and what a described protocol needs from the command line: the preshared
/// secrets and public keys a live server already has (`run` makes its own for both engines).
struct ProtocolOptions: ParsableArguments {
    @Option(name: "--protocol", value: "FILE", help: "a protocol description (docs/PROTOCOL-DESCRIPTIONS.md; the seeds' are protocols/rsa-socket.toml and protocols/aes-https.toml): every check speaks it")
    var file: String?
    @RepeatedOption(name: "--secret", value: "NAME=HEX", help: "with --protocol against a live server: a preshared secret's bytes, in hex (a utf8-zeropad16 secret or a passphrase: its text)")
    var secrets: [String]
    @RepeatedOption(name: "--public-key", value: "NAME=FILE", help: "with --protocol against a live server: the PEM or DER public key of a preshared key the server holds")
    var publicKeys: [String]
    init() {}

    var given: Bool { file != nil }

    func validate() throws {
        if file == nil, !secrets.isEmpty || !publicKeys.isEmpty {
            throw UsageError("--secret and --public-key go with --protocol FILE")
        }
        for pair in secrets + publicKeys where !pair.contains("=") {
            throw UsageError("--secret and --public-key take NAME=VALUE, not '\(pair)'")
        }
    }

    /// The description, read and checked by the Swift engine; a mistake in it ends the command
    /// (66) with the key, its line and what is allowed.
    func description(command: String) throws -> ProtocolDescription {
        guard let file else { throw UsageError("--protocol FILE is required") }
        do { return try ProtocolDescription(contentsOfFile: file) } catch let error as DescriptionError {
            throw CommandExit(.noInput, "crosscheck \(command): \(file): \(error)")
        }
    }

    /// The remote options' preshared values, checked against the description.
    func apply(to options: inout DescribedRemote.Options, description: ProtocolDescription) throws {
        for pair in secrets {
            let (name, value) = Self.split(pair)
            guard let secret = description.secrets[name] else {
                throw UsageError("--secret \(name): the description has no secret \(name) (it has \(description.secrets.keys.sorted().joined(separator: ", ")))")
            }
            if secret.derive.isText {  // a password or passphrase: its text
                guard secret.fits(value.utf8.count) else {
                    throw UsageError("--secret \(name)=TEXT: \(secret.allowedLength) bytes of text, as the description's secrets.\(name).derive (\(secret.derive.rawValue)) says")
                }
                options.secrets[name] = Data(value.utf8)
            } else {
                guard let bytes = Data(hexString: value), bytes.count == secret.bytes else {
                    throw UsageError("--secret \(name)=HEX: \(secret.bytes) bytes in hex (\(secret.bytes * 2) hex digits), as the description's secrets.\(name).bytes says")
                }
                options.secrets[name] = bytes
            }
        }
        for pair in publicKeys {
            let (name, path) = Self.split(pair)
            guard description.keys[name] != nil else {
                throw UsageError("--public-key \(name): the description has no key \(name) (it has \(description.keys.keys.sorted().joined(separator: ", ")))")
            }
            guard let data = FileManager.default.contents(atPath: path) else { throw CommandExit(.noInput, "--public-key \(name)=\(path): no such file") }
            do { options.publicKeys[name] = try RSAPublicKey(importing: data) } catch {
                throw CommandExit(.noInput, "--public-key \(name)=\(path): not an RSA public key crosscheck accepts: \(error)")
            }
        }
        let missingSecrets = description.secrets.values.filter { $0.madeBy == .preshared && options.secrets[$0.name] == nil }.map(\.name)
        let missingKeys = description.keys.values.filter { $0.preshared && $0.holder == .server && options.publicKeys[$0.name] == nil }.map(\.name)
        if !missingSecrets.isEmpty || !missingKeys.isEmpty {
            throw UsageError("the description's preshared values must be given: "
                             + (missingSecrets.sorted().map { "--secret \($0)=HEX" } + missingKeys.sorted().map { "--public-key \($0)=FILE" }).joined(separator: " "))
        }
    }

    static func split(_ pair: String) -> (String, String) {
        let index = pair.firstIndex(of: "=")!
        return (String(pair[..<index]), String(pair[pair.index(after: index)...]))
    }
}
