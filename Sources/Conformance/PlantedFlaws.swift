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
    /// Public-key import takes a key with e = 1 (no RSA key, RFC 8017 §3.1) — planted on *both*
    /// sides, so the two agree: only the specification's answer can catch it.
    case _ACCEPTS_EXPONENT_1_ON_BOTH_SIDES = "accepts-exponent-1-on-both-sides"

    /// The real Swift peer with this flaw planted in it.
    public func peer(wrapping real: CryptoPeer = SwiftPeer()) -> CryptoPeer { PlantedFlawPeer(flaw: self, real: real) }

    /// The flaw is planted in the Python side too (the two sides then agree on it).
    public var onBothSides: Bool { self == ._ACCEPTS_EXPONENT_1_ON_BOTH_SIDES }

    /// The flaw planted in `peer`, if it is a planted peer.
    public static func planted(in peer: CryptoPeer) -> PlantedFlaw? { (peer as? PlantedFlawPeer)?.flaw }
}

/// `real` with one planted flaw; every other call delegated unchanged.
struct PlantedFlawPeer: DelegatingPeer {
    let flaw: PlantedFlaw
    let real: CryptoPeer

    private func planted(_ iv: Data) -> Data {
        guard iv.count == 15 else { return iv }
        switch flaw {
        case ._ACCEPTS_15_BYTE_IV: return iv + Data([0])
        case ._CRASHES_ON_15_BYTE_IV: fatalError("planted crash: a 15-byte IV (crosscheck fuzz --plant crashes-on-15-byte-iv)")
        case ._ACCEPTS_EXPONENT_1_ON_BOTH_SIDES: return iv
        }
    }

    func publicKeyInfo(_ key: Data) throws -> RSAKeyInfo {
        do { return try real.publicKeyInfo(key) } catch {
            // The planted leniency: what the importer refused, read back as numbers, taken when e = 1.
            guard flaw == ._ACCEPTS_EXPONENT_1_ON_BOTH_SIDES, let numbers = RSAInvalidKeys.numbers(in: key), numbers.exponent == Data([1]) else { throw error }
            let modulus = numbers.modulus.drop { $0 == 0 }
            let hex = modulus.map { String(format: "%02x", $0) }.joined().drop { $0 == "0" }
            let bits = modulus.first.map { (modulus.count - 1) * 8 + (8 - $0.leadingZeroBitCount) } ?? 0
            return RSAKeyInfo(modulusHex: String(hex), publicExponentHex: "1", bits: bits)
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
}
