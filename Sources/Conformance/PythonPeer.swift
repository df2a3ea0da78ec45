import Foundation
import PythonBridge
import WireCrypto

/// The Python reference under test: `pythonref.handlers.handle(op, args)` in the embedded interpreter.
public struct PythonPeer: CryptoPeer {
    public let name = "python"
    let interpreter: PythonInterpreter

    public init(interpreter: PythonInterpreter) { self.interpreter = interpreter }

    /// Calls one PythonRef op; `{"ok": v}` returns v, `{"err": kind}` throws `PeerFailure`.
    public func handle(_ op: String, _ arguments: [String: PythonValue]) throws -> PythonValue {
        let reply: PythonValue
        do { reply = try interpreter.call("pythonref.handlers", "handle", [.string(op), .dict(arguments)]) } catch {
            throw ErrorEquivalence.failure(from: error)
        }
        if let value = reply["ok"] { return value }
        if let kind = reply["err"]?.stringValue {
            throw PeerFailure(FailureKind(rawValue: kind) ?? .internal, reply["detail"]?.stringValue ?? "")
        }
        throw PeerFailure(.internal, "pythonref answered neither ok nor err: \(reply)")
    }

    /// Versions of Python, pyca/cryptography and the OpenSSL pyca links.
    public func versions() throws -> [String: String] {
        guard case let .dict(fields) = try handle("version", [:]) else { return [:] }
        return fields.compactMapValues(\.stringValue)
    }

    public func generateRSAKey(bits: Int) throws -> GeneratedRSAKey {
        let reply = try handle("rsa.generate", ["bits": .int(bits)])
        return GeneratedRSAKey(privateKeyPEM: try bytes(reply["private_pkcs8_pem"]), publicKeyPEM: try bytes(reply["public_spki_pem"]))
    }

    public func publicKeyInfo(_ key: Data) throws -> RSAKeyInfo { try info(handle("rsa.public_info", ["key": .bytes(key)])) }

    public func privateKeyInfo(_ key: Data, passphrase: Data?) throws -> RSAKeyInfo {
        try info(handle("rsa.private_info", ["key": .bytes(key), "passphrase": passphrase.map(PythonValue.bytes) ?? PythonValue.none]))
    }

    public func exportPublicKey(_ key: Data, format: RSAPublicKeyFormat) throws -> Data {
        try bytes(handle("rsa.export_public", ["key": .bytes(key), "format": .string(format.rawValue)]))
    }

    public func exportPrivateKey(_ key: Data, format: RSAPrivateKeyFormat, exportPassphrase: Data?) throws -> Data {
        try bytes(handle("rsa.export_private", ["key": .bytes(key), "format": .string(format.rawValue),
                                                "export_passphrase": exportPassphrase.map(PythonValue.bytes) ?? PythonValue.none]))
    }

    public func rsaEncrypt(publicKey: Data, padding: RSAEncryptionPadding, plaintext: Data) throws -> Data {
        var arguments = try Self.paddingArguments(padding)
        arguments["key"] = .bytes(publicKey)
        arguments["plaintext"] = .bytes(plaintext)
        return try bytes(handle("rsa.encrypt", arguments))
    }

    public func rsaDecrypt(privateKey: Data, passphrase: Data?, padding: RSAEncryptionPadding, ciphertext: Data) throws -> Data {
        var arguments = try Self.paddingArguments(padding)
        arguments["key"] = .bytes(privateKey)
        arguments["passphrase"] = passphrase.map(PythonValue.bytes) ?? PythonValue.none
        arguments["ciphertext"] = .bytes(ciphertext)
        return try bytes(handle("rsa.decrypt", arguments))
    }

    public func cbcEncrypt(key: Data, iv: Data, plaintext: Data) throws -> Data {
        try bytes(handle("cbc.encrypt", ["key": .bytes(key), "iv": .bytes(iv), "plaintext": .bytes(plaintext)]))
    }

    public func cbcDecrypt(key: Data, iv: Data, ciphertext: Data) throws -> Data {
        try bytes(handle("cbc.decrypt", ["key": .bytes(key), "iv": .bytes(iv), "ciphertext": .bytes(ciphertext)]))
    }

    public func sealEnvelope(key: Data, plaintext: Data, iv: Data?) throws -> Data {
        try bytes(handle("envelope.seal", ["key": .bytes(key), "plaintext": .bytes(plaintext), "iv": iv.map(PythonValue.bytes) ?? PythonValue.none]))
    }

    public func openEnvelope(key: Data, envelope: Data) throws -> Data {
        try bytes(handle("envelope.open", ["key": .bytes(key), "envelope": .bytes(envelope)]))
    }

    public func deriveKey(mode: KeyDerivationMode, encryptionKey: String) throws -> Data {
        try bytes(handle("kdf.derive", ["mode": .string(mode.rawValue), "encryption_key": .string(encryptionKey)]))
    }

    public func aeadSeal(_ algorithm: AEADAlgorithm, key: Data, plaintext: Data, nonce: Data?, aad: Data?) throws -> Data {
        try bytes(handle("aead.seal", ["alg": .string(algorithm.rawValue), "key": .bytes(key), "plaintext": .bytes(plaintext),
                                       "nonce": nonce.map(PythonValue.bytes) ?? PythonValue.none, "aad": aad.map(PythonValue.bytes) ?? PythonValue.none]))
    }

    public func aeadOpen(_ algorithm: AEADAlgorithm, key: Data, combined: Data, aad: Data?) throws -> Data {
        try bytes(handle("aead.open", ["alg": .string(algorithm.rawValue), "key": .bytes(key), "combined": .bytes(combined),
                                       "aad": aad.map(PythonValue.bytes) ?? PythonValue.none]))
    }

    public func aeadSealParts(_ algorithm: AEADAlgorithm, key: Data, nonce: Data, plaintext: Data, aad: Data?) throws -> AEADParts {
        let reply = try handle("aead.seal_parts", ["alg": .string(algorithm.rawValue), "key": .bytes(key), "nonce": .bytes(nonce),
                                                   "plaintext": .bytes(plaintext), "aad": aad.map(PythonValue.bytes) ?? PythonValue.none])
        return AEADParts(ciphertext: try bytes(reply["ciphertext"]), tag: try bytes(reply["tag"]))
    }

    public func aeadOpenParts(_ algorithm: AEADAlgorithm, key: Data, nonce: Data, parts: AEADParts, aad: Data?) throws -> Data {
        try bytes(handle("aead.open_parts", ["alg": .string(algorithm.rawValue), "key": .bytes(key), "nonce": .bytes(nonce),
                                             "ciphertext": .bytes(parts.ciphertext), "tag": .bytes(parts.tag),
                                             "aad": aad.map(PythonValue.bytes) ?? PythonValue.none]))
    }

    // MARK: helpers

    /// PythonRef names paddings as the protocol does; other OAEP hashes go as explicit arguments.
    static func paddingArguments(_ padding: RSAEncryptionPadding) throws -> [String: PythonValue] {
        guard let oaep = padding.oaepParameters else { return ["padding": "pkcs1"] }
        var arguments: [String: PythonValue] = ["label": oaep.label.isEmpty ? PythonValue.none : .bytes(oaep.label)]
        switch (oaep.hash, oaep.mgf1) {
        case (.sha1, .sha1): arguments["padding"] = "oaep-sha1"
        case (.sha256, .sha256): arguments["padding"] = "oaep-sha256"
        default:
            arguments["padding"] = "oaep"
            arguments["hash"] = .string(oaep.hash.rawValue)
            arguments["mgf1_hash"] = .string(oaep.mgf1.rawValue)
        }
        return arguments
    }

    private func bytes(_ value: PythonValue?) throws -> Data {
        guard let data = value?.bytesValue else { throw PeerFailure(.internal, "pythonref returned \(value.map { "\($0)" } ?? "nothing") where bytes were expected") }
        return data
    }

    private func info(_ value: PythonValue) throws -> RSAKeyInfo {
        guard let n = value["n"]?.stringValue, let e = value["e_hex"]?.stringValue, let bits = value["bits"]?.intValue else {
            throw PeerFailure(.internal, "pythonref returned \(value) where key info was expected")
        }
        return RSAKeyInfo(modulusHex: n, publicExponentHex: e, bits: bits)
    }
}
