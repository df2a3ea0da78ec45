import Foundation
internal import WireCrypto

// CommonCrypto's CommonRandom.h: `CCRandomGenerateBytes`, from the kernel CSPRNG (WireCrypto.secureRandomBytes).

public typealias CCRNGStatus = CCCryptorStatus

/// Fills `count` bytes at `bytes` with cryptographically secure random bytes: `kCCSuccess`, or
/// `kCCParamError` for no buffer with a non-zero count.
@discardableResult
public func CCRandomGenerateBytes(_ bytes: UnsafeMutableRawPointer!, _ count: Int) -> CCRNGStatus {
    guard count >= 0 else { return CCRNGStatus(kCCParamError) }
    if count == 0 { return CCRNGStatus(kCCSuccess) }
    guard let bytes else { return CCRNGStatus(kCCParamError) }
    let random = secureRandomBytes(count)
    random.withUnsafeBytes { bytes.copyMemory(from: $0.baseAddress!, byteCount: count) }
    return CCRNGStatus(kCCSuccess)
}
