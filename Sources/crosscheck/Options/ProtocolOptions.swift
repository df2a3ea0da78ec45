import Foundation
import CommandLineKit
import Described
import TeamServer
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
    @RepeatedOption(name: "--private-key", value: "NAME=FILE", help: "with --protocol against a live server: the PEM or DER private key of a preshared key crosscheck's client holds (the server has its public half: a signing key)")
    var privateKeys: [String]
    init() {}

    var given: Bool { file != nil }

    func validate() throws {
        if file == nil, !secrets.isEmpty || !publicKeys.isEmpty || !privateKeys.isEmpty {
            throw UsageError("--secret, --public-key and --private-key go with --protocol FILE")
        }
        for pair in secrets + publicKeys + privateKeys where !pair.contains("=") {
            throw UsageError("--secret, --public-key and --private-key take NAME=VALUE, not '\(pair)'")
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

    /// The remote options' preshared values, checked against the description. `held`: the server
    /// runs in this process, and a preshared key it holds that `--public-key` does not give is the
    /// one of its type the server keeps (`TeamServer.heldPublicKey`); returns where each came from.
    @discardableResult
    func apply(to options: inout DescribedRemote.Options, description: ProtocolDescription,
               held: ((ProtocolDescription.KeyType) -> Result<(der: Data, names: [String]), HeldKeyAbsence>)? = nil) throws -> [String] {
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
        for (option, pairs, holder) in [("--public-key", publicKeys, ProtocolDescription.Role.server), ("--private-key", privateKeys, .client)] {
            for pair in pairs {
                let (name, path) = Self.split(pair)
                guard let key = description.keys[name] else {
                    throw UsageError("\(option) \(name): the description has no key \(name) (it has \(description.keys.keys.sorted().joined(separator: ", ")))")
                }
                guard key.holder == holder else {
                    throw UsageError("\(option) \(name): key \(name) is held by the \(key.holder.rawValue); \(holder == .server ? "--public-key gives a key the server holds" : "--private-key gives a key crosscheck's client holds")")
                }
                guard let data = FileManager.default.contents(atPath: path) else { throw CommandExit(.noInput, "\(option) \(name)=\(path): no such file") }
                do {
                    switch (key.type, holder) {
                    case (.rsa, .server) where key.isToy: options.publicKeys[name] = try Self.toyPublicKey(data)
                    case (.rsa, .server): try Self.setPublicKey(Self.keyDER(data, labels: ["PUBLIC KEY", "RSA PUBLIC KEY"]), of: key, in: &options)
                    case (_, .server): try Self.setPublicKey(Self.keyDER(data, labels: ["PUBLIC KEY"]), of: key, in: &options)
                    case (.rsa, .client): options.privateKeys[name] = try RSAPrivateKey(importing: Self.keyDER(data, labels: ["PRIVATE KEY", "RSA PRIVATE KEY"]))
                    case (.x25519, .client): options.curvePrivateKeys[name] = .x25519(try X25519PrivateKey(derRepresentation: Self.keyDER(data, labels: ["PRIVATE KEY"])))
                    case (_, .client): options.curvePrivateKeys[name] = .ec(try ECPrivateKey(derRepresentation: Self.keyDER(data, labels: ["PRIVATE KEY", "EC PRIVATE KEY"])))
                    }
                } catch {
                    throw CommandExit(.noInput, "\(option) \(name)=\(path): not an \(key.type == .rsa ? "RSA" : key.type.rawValue) \(holder == .server ? "public" : "private") key crosscheck accepts: \(error)")
                }
                if key.type.isNISTCurve {
                    let curve: ECCurve? = {
                        if case let .ec(ec)? = options.curvePublicKeys[name] { return ec.curve }
                        if case let .ec(ec)? = options.curvePrivateKeys[name] { return ec.curve }
                        return nil
                    }()
                    let wanted: ECCurve = key.type == .ecP384 ? .p384 : .p256
                    if curve != wanted {
                        throw CommandExit(.noInput, "\(option) \(name)=\(path): the key is not on \(wanted.rawValue), and the description's key \(name) is \(key.type.rawValue)")
                    }
                }
            }
        }
        var notes: [String] = []
        func givenPublicKey(_ name: String) -> Bool { options.publicKeys[name] != nil || options.curvePublicKeys[name] != nil }
        if let held {
            for key in description.keys.values.sorted(by: { $0.name < $1.name }) where key.preshared && key.holder == .server && !givenPublicKey(key.name) {
                switch held(key.type) {
                case let .success((der, names)):
                    do { try Self.setPublicKey(der, of: key, in: &options) } catch {
                        throw CommandExit(.noInput, "key \(key.name): the server keeps one in \(names.joined(separator: ", ")), but crosscheck cannot read it (\(error)): give it with --public-key \(key.name)=FILE")
                    }
                    notes.append("key \(key.name): the server's own, from its \(names.joined(separator: ", "))")
                case let .failure(absence):
                    throw UsageError("key \(key.name) is preshared and held by the server, and crosscheck cannot take it from the server: \(absence); give its public half with --public-key \(key.name)=FILE")
                }
            }
        }
        let missingSecrets = description.secrets.values.filter { $0.madeBy == .preshared && options.secrets[$0.name] == nil }.map(\.name)
        let missingKeys = description.keys.values.filter { $0.preshared && $0.holder == .server && !givenPublicKey($0.name) }.map(\.name)
        // A preshared key the client holds: the server has its public half, so only that private key will do.
        let missingPrivate = description.keys.values.filter { $0.preshared && $0.holder == .client && options.privateKeys[$0.name] == nil && options.curvePrivateKeys[$0.name] == nil }.map(\.name)
        if !missingSecrets.isEmpty || !missingKeys.isEmpty || !missingPrivate.isEmpty {
            throw UsageError("the description's preshared values must be given: "
                             + (missingSecrets.sorted().map { "--secret \($0)=HEX" } + missingKeys.sorted().map { "--public-key \($0)=FILE" }
                                + missingPrivate.sorted().map { "--private-key \($0)=FILE" }).joined(separator: " "))
        }
        return notes
    }

    /// The public half of `key`, a key the server holds, from its DER (SubjectPublicKeyInfo, or PKCS#1 for RSA).
    static func setPublicKey(_ der: Data, of key: ProtocolDescription.Key, in options: inout DescribedRemote.Options) throws {
        switch key.type {
        case .rsa: options.publicKeys[key.name] = try RSAPublicKey(importing: der)
        case .ecP256, .ecP384: options.curvePublicKeys[key.name] = .ec(try ECPublicKey(derRepresentation: der))
        case .x25519: options.curvePublicKeys[key.name] = .x25519(try X25519PublicKey(derRepresentation: der))
        }
    }

    /// A toy key's public half as a teaching server writes it (dianaxime's rsa.py `arch_key`:
    /// `str(e) + '\n'`, then `str(n) + '\n'`): two lines of decimal digits, e then n, read as its
    /// `get_key` reads them (`int(f.readline())`, which allows spaces around the digits).
    static func toyPublicKey(_ data: Data) throws -> RSAPublicKey {
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r"))) }
        let numbers = (lines.last == "" ? lines.dropLast() : lines[...]).map { line in
            line.allSatisfy(\.isASCII) && line.allSatisfy(\.isNumber) && (1...9).contains(line.count) ? Int(line) : nil
        }
        guard numbers.count == 2, let e = numbers[0], let n = numbers[1] else {
            throw UsageError("a toy key's file is two lines of decimal digits, e then n (\"431\\n589\\n\"), as its server writes them")
        }
        return try RSAPublicKey(_INSECURE_toyModulus: n, exponent: e)
    }

    /// A key file's DER: the body of its first PEM block with one of `labels`, read by WireCrypto's
    /// PEM reader wherever it stands (after a blank line, or after the EC PARAMETERS block
    /// `openssl ecparam -genkey` writes first); else the file as it is (DER, or what the key's
    /// reader refuses with its own reason).
    static func keyDER(_ data: Data, labels: [String]) -> Data {
        labels.lazy.compactMap { try? PEM.body(of: data, label: $0) }.first ?? data
    }

    /// The description's and key files' paths made absolute: loading a server in-process moves this
    /// process to the server's folder.
    mutating func makePathsAbsolute() {
        func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }
        func absolutePaths(_ pairs: [String]) -> [String] {
            pairs.map { pair in
                guard pair.contains("=") else { return pair }  // validate() names it
                let (name, path) = Self.split(pair)
                return name + "=" + absolute(path)
            }
        }
        file = file.map(absolute)
        publicKeys = absolutePaths(publicKeys)
        privateKeys = absolutePaths(privateKeys)
    }

    static func split(_ pair: String) -> (String, String) {
        let index = pair.firstIndex(of: "=")!
        return (String(pair[..<index]), String(pair[pair.index(after: index)...]))
    }
}
