import Foundation
import WireCrypto

/// Deliberately broken Swift sides, for proving the fuzzer finds what it should. TEST ONLY: a
/// reproducer records the flaw it was found under, so `crosscheck replay` re-plants it (and
/// `--without-plant` replays against the real Swift side, which must agree).
public enum PlantedFlaw: String, CaseIterable, Sendable, Codable {
    /// AES-CBC (raw and in envelopes) zero-pads a 15-byte IV to 16 bytes instead of refusing it.
    case _ACCEPTS_15_BYTE_IV = "accepts-15-byte-iv"
    /// AES-CBC (raw and in envelopes) traps on a 15-byte IV: the process dies on a signal.
    case _CRASHES_ON_15_BYTE_IV = "crashes-on-15-byte-iv"

    /// The real Swift peer with this flaw planted in it.
    public func peer(wrapping real: CryptoPeer = SwiftPeer()) -> CryptoPeer { PlantedFlawPeer(flaw: self, real: real) }

    /// The flaw planted in `peer`, if it is a planted peer.
    public static func planted(in peer: CryptoPeer) -> PlantedFlaw? { (peer as? PlantedFlawPeer)?.flaw }
}

/// `real` with one planted flaw; every other call delegated unchanged.
struct PlantedFlawPeer: CryptoPeer {
    let flaw: PlantedFlaw
    let real: CryptoPeer
    var name: String { real.name }

    private func planted(_ iv: Data) -> Data {
        guard iv.count == 15 else { return iv }
        switch flaw {
        case ._ACCEPTS_15_BYTE_IV: return iv + Data([0])
        case ._CRASHES_ON_15_BYTE_IV: fatalError("planted crash: a 15-byte IV (crosscheck fuzz --plant crashes-on-15-byte-iv)")
        }
    }

    func cbcDecrypt(key: Data, iv: Data, ciphertext: Data) throws -> Data {
        try real.cbcDecrypt(key: key, iv: planted(iv), ciphertext: ciphertext)
    }
    func openEnvelope(key: Data, envelope: Data) throws -> Data {
        let parsed: CBCEnvelope
        do { parsed = try CBCEnvelope(json: envelope) } catch { return try real.openEnvelope(key: key, envelope: envelope) }
        return try real.cbcDecrypt(key: key, iv: planted(parsed.iv), ciphertext: parsed.ciphertext)
    }

    func generateRSAKey(bits: Int) throws -> GeneratedRSAKey { try real.generateRSAKey(bits: bits) }
    func publicKeyInfo(_ key: Data) throws -> RSAKeyInfo { try real.publicKeyInfo(key) }
    func privateKeyInfo(_ key: Data, passphrase: Data?) throws -> RSAKeyInfo { try real.privateKeyInfo(key, passphrase: passphrase) }
    func exportPublicKey(_ key: Data, format: RSAPublicKeyFormat) throws -> Data { try real.exportPublicKey(key, format: format) }
    func exportPrivateKey(_ key: Data, format: RSAPrivateKeyFormat, exportPassphrase: Data?) throws -> Data {
        try real.exportPrivateKey(key, format: format, exportPassphrase: exportPassphrase)
    }
    func rsaEncrypt(publicKey: Data, padding: RSAEncryptionPadding, plaintext: Data) throws -> Data {
        try real.rsaEncrypt(publicKey: publicKey, padding: padding, plaintext: plaintext)
    }
    func rsaDecrypt(privateKey: Data, passphrase: Data?, padding: RSAEncryptionPadding, ciphertext: Data) throws -> Data {
        try real.rsaDecrypt(privateKey: privateKey, passphrase: passphrase, padding: padding, ciphertext: ciphertext)
    }
    func cbcEncrypt(key: Data, iv: Data, plaintext: Data) throws -> Data { try real.cbcEncrypt(key: key, iv: iv, plaintext: plaintext) }
    func sealEnvelope(key: Data, plaintext: Data, iv: Data?) throws -> Data { try real.sealEnvelope(key: key, plaintext: plaintext, iv: iv) }
    func deriveKey(mode: KeyDerivationMode, encryptionKey: String) throws -> Data { try real.deriveKey(mode: mode, encryptionKey: encryptionKey) }
    func aeadSeal(_ algorithm: AEADAlgorithm, key: Data, plaintext: Data, nonce: Data?, aad: Data?) throws -> Data {
        try real.aeadSeal(algorithm, key: key, plaintext: plaintext, nonce: nonce, aad: aad)
    }
    func aeadOpen(_ algorithm: AEADAlgorithm, key: Data, combined: Data, aad: Data?) throws -> Data {
        try real.aeadOpen(algorithm, key: key, combined: combined, aad: aad)
    }
    func aeadSealParts(_ algorithm: AEADAlgorithm, key: Data, nonce: Data, plaintext: Data, aad: Data?) throws -> AEADParts {
        try real.aeadSealParts(algorithm, key: key, nonce: nonce, plaintext: plaintext, aad: aad)
    }
    func aeadOpenParts(_ algorithm: AEADAlgorithm, key: Data, nonce: Data, parts: AEADParts, aad: Data?) throws -> Data {
        try real.aeadOpenParts(algorithm, key: key, nonce: nonce, parts: parts, aad: aad)
    }
}
