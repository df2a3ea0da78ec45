import Foundation
internal import WireCrypto

// CommonCrypto's CommonKeyDerivation.h: PBKDF2 (`CCKeyDerivationPBKDF`) with the HMAC PRFs, and
// `CCCalibratePBKDF`, which picks a round count for a time budget.

public typealias CCPBKDFAlgorithm = UInt32
public typealias CCPseudoRandomAlgorithm = UInt32

public let kCCPBKDF2 = 2
public let kCCPRFHmacAlgSHA1 = 1
public let kCCPRFHmacAlgSHA224 = 2
public let kCCPRFHmacAlgSHA256 = 3
public let kCCPRFHmacAlgSHA384 = 4
public let kCCPRFHmacAlgSHA512 = 5

func pbkdf2Digest(_ prf: CCPseudoRandomAlgorithm) -> WireCrypto.Digest? {
    switch Int(prf) {
    case kCCPRFHmacAlgSHA1: return .sha1
    case kCCPRFHmacAlgSHA224: return .sha224
    case kCCPRFHmacAlgSHA256: return .sha256
    case kCCPRFHmacAlgSHA384: return .sha384
    case kCCPRFHmacAlgSHA512: return .sha512
    default: return nil
    }
}

/// PBKDF2 (RFC 8018) of `password` and `salt` into `derivedKeyLen` bytes at `derivedKey`.
/// `kCCSuccess`, or `kCCParamError` (Apple's CommonKeyDerivation.c refuses the same): an algorithm
/// other than `kCCPBKDF2`, an unknown PRF, 0 rounds, no output buffer or an output length of 0,
/// a nil password or salt with a non-zero length.
@discardableResult
public func CCKeyDerivationPBKDF(_ algorithm: CCPBKDFAlgorithm, _ password: UnsafePointer<CChar>!, _ passwordLen: Int,
                                 _ salt: UnsafePointer<UInt8>!, _ saltLen: Int, _ prf: CCPseudoRandomAlgorithm, _ rounds: UInt32,
                                 _ derivedKey: UnsafeMutablePointer<UInt8>!, _ derivedKeyLen: Int) -> Int32 {
    // Apple's lib/CommonKeyDerivation.c, CCKeyDerivationPBKDF: `if(!password || !derivedKey || …) return
    // kCCParamError;` — a NULL password is refused whatever its length (an empty password is "" with
    // length 0); a NULL salt only with a non-zero length.
    guard Int(algorithm) == kCCPBKDF2, let digest = pbkdf2Digest(prf), rounds > 0, let derivedKey, derivedKeyLen > 0,
          passwordLen >= 0, saltLen >= 0, password != nil, salt != nil || saltLen == 0 else {
        return Int32(kCCParamError)
    }
    do {
        let key = try PBKDF2.derive(password: UnsafeRawBufferPointer(start: password, count: passwordLen),
                                    salt: UnsafeRawBufferPointer(start: salt, count: saltLen),
                                    prf: digest, rounds: Int(rounds), length: derivedKeyLen)
        derivedKey.update(from: key, count: key.count)
        return Int32(kCCSuccess)
    } catch {
        return Int32(kCCParamError)
    }
}

/// The number of rounds that takes about `msec` milliseconds here for these lengths (at least 1),
/// measured as Apple's does: time a trial derivation and scale.
public func CCCalibratePBKDF(_ algorithm: CCPBKDFAlgorithm, _ passwordLen: Int, _ saltLen: Int, _ prf: CCPseudoRandomAlgorithm,
                             _ derivedKeyLen: Int, _ msec: UInt32) -> UInt32 {
    guard Int(algorithm) == kCCPBKDF2, let digest = pbkdf2Digest(prf), derivedKeyLen > 0 else { return UInt32.max }
    let password = [UInt8](repeating: 0x61, count: max(passwordLen, 0))
    let salt = [UInt8](repeating: 0x73, count: max(saltLen, 0))
    let trialRounds = 10_000
    let start = DispatchTime.now().uptimeNanoseconds
    _ = password.withUnsafeBytes { p in salt.withUnsafeBytes { s in
        try? PBKDF2.derive(password: p, salt: s, prf: digest, rounds: trialRounds, length: derivedKeyLen)
    } }
    let elapsed = max(DispatchTime.now().uptimeNanoseconds - start, 1)
    let rounds = Double(trialRounds) * Double(msec) * 1_000_000 / Double(elapsed)
    return UInt32(min(max(rounds, 1), Double(UInt32.max)))
}
