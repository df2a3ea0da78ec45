import Foundation
internal import WireCrypto

// CommonCrypto's symmetric ciphers, `CCCryptor*` (a context fed in pieces) and the one-shot `CCCrypt`
// built from it as Apple builds it, with Apple's types, constants and status results. Constants are `Int` because Swift imports CommonCrypto's anonymous C enums as `Int`, which
// is why iOS code writes `CCOperation(kCCEncrypt)` and can compare `CCCryptorStatus` (Int32) with
// `kCCSuccess` directly. Only AES is provided; the other algorithms return `kCCUnimplemented`.
//
// Where each status comes from follows Apple's open-source CommonCrypto (CommonCryptor.c, the
// corecryptoSymmetricBridge.c padding descriptors) and corecrypto's ccpad_pkcs7_decode; see
// docs/APPLE-MODULES.md for the details and the one place Apple's behaviour is undefined.

public typealias CCOperation = UInt32
public typealias CCAlgorithm = UInt32
public typealias CCOptions = UInt32
public typealias CCStatus = Int32
public typealias CCCryptorStatus = Int32

public let kCCEncrypt = 0
public let kCCDecrypt = 1

public let kCCAlgorithmAES128 = 0
public let kCCAlgorithmAES = 0
public let kCCAlgorithmDES = 1
public let kCCAlgorithm3DES = 2
public let kCCAlgorithmCAST = 3
public let kCCAlgorithmRC4 = 4
public let kCCAlgorithmRC2 = 5
public let kCCAlgorithmBlowfish = 6

public let kCCOptionPKCS7Padding = 0x0001
public let kCCOptionECBMode = 0x0002

/// The modes of CommonCryptor.h (`CCCryptorCreateWithMode`). AES has ECB, CBC, CFB, CTR, OFB and
/// CFB8 here; `kCCModeRC4` belongs to the RC4 algorithm, which is not provided.
public typealias CCMode = UInt32
public let kCCModeECB = 1
public let kCCModeCBC = 2
public let kCCModeCFB = 3
public let kCCModeCTR = 4
public let kCCModeOFB = 7
public let kCCModeRC4 = 9
public let kCCModeCFB8 = 10

public typealias CCPadding = UInt32
public let ccNoPadding = 0
public let ccPKCS7Padding = 1

/// "Not currently in use" (CommonCryptor.h): CTR is always big-endian.
public typealias CCModeOptions = UInt32
public let kCCModeOptionCTR_BE = 2

public let kCCKeySizeAES128 = 16
public let kCCKeySizeAES192 = 24
public let kCCKeySizeAES256 = 32
public let kCCKeySizeDES = 8
public let kCCKeySize3DES = 24
public let kCCKeySizeMinCAST = 5
public let kCCKeySizeMaxCAST = 16
public let kCCKeySizeMinRC4 = 1
public let kCCKeySizeMaxRC4 = 512
public let kCCKeySizeMinRC2 = 1
public let kCCKeySizeMaxRC2 = 128
public let kCCKeySizeMinBlowfish = 8
public let kCCKeySizeMaxBlowfish = 56

public let kCCBlockSizeAES128 = 16
public let kCCBlockSizeDES = 8
public let kCCBlockSize3DES = 8
public let kCCBlockSizeCAST = 8
public let kCCBlockSizeRC2 = 8
public let kCCBlockSizeBlowfish = 8

public let kCCSuccess = 0
public let kCCParamError = -4300
public let kCCBufferTooSmall = -4301
public let kCCMemoryFailure = -4302
public let kCCAlignmentError = -4303
public let kCCDecodeError = -4304
public let kCCUnimplemented = -4305
public let kCCOverflow = -4306
public let kCCRNGFailure = -4307
public let kCCUnspecifiedError = -4308
public let kCCCallSequenceError = -4309
public let kCCKeySizeError = -4310
public let kCCInvalidKey = -4311

/// A cryptor made by `CCCryptorCreate`/`CCCryptorCreateWithMode`; release it with `CCCryptorRelease`.
/// (`struct _CCCryptor *` in C, which Swift imports as an opaque pointer.)
public typealias CCCryptorRef = OpaquePointer

/// The state behind a `CCCryptorRef`: an AES context from WireCrypto, and for ECB/CBC the input
/// held back until it makes whole blocks (and, decrypting with padding, the last block, which Final
/// unpads). The holding and the lengths follow CommonCryptor.c's `ccBlockUpdate` and the padding
/// descriptors' `padlen`/`padreserve` in corecryptoSymmetricBridge.c.
final class Cryptor {
    let encrypting: Bool
    let mode: Int
    let pkcs7: Bool
    let cipher: AESCipherContext
    private var held: [UInt8] = []

    static let block = kCCBlockSizeAES128

    init(encrypting: Bool, mode: Int, pkcs7: Bool, cipher: AESCipherContext) {
        self.encrypting = encrypting; self.mode = mode; self.pkcs7 = pkcs7; self.cipher = cipher
    }

    private var isStreaming: Bool { !cipher.mode.isBlockMode }
    /// Bytes kept back before encrypting or decrypting: the last block, when decrypting with padding.
    private var reserve: Int { pkcs7 && !encrypting ? Self.block : 0 }

    private static func roundDown(_ length: Int) -> Int { length / block * block }

    /// `CCCryptorGetOutputLength`: the output of an update (or update and final) of `length` more bytes.
    func outputLength(_ length: Int, final: Bool) -> Int {
        if isStreaming { return length }
        let total = held.count + length
        guard pkcs7 else { return Self.roundDown(total) }
        if final { return encrypting ? Self.roundDown(total + Self.block) : total }
        if encrypting { return Self.roundDown(total) }
        return Self.roundDown(total > 0 && total % Self.block == 0 ? total - 1 : total)
    }

    func update(_ input: UnsafeRawBufferPointer, _ dataOut: UnsafeMutableRawPointer?, _ dataOutAvailable: Int,
                _ dataOutMoved: UnsafeMutablePointer<Int>?) -> CCCryptorStatus {
        let needed = outputLength(input.count, final: false)
        guard needed <= dataOutAvailable else {
            dataOutMoved?.pointee = needed
            return CCCryptorStatus(kCCBufferTooSmall)
        }
        if needed > 0 && dataOut == nil { return CCCryptorStatus(kCCParamError) }
        do {
            if isStreaming {
                dataOutMoved?.pointee = try cipher.update(input, into: dataOut!)
                return CCCryptorStatus(kCCSuccess)
            }
            let pending = held + input
            let remainder = pending.count % Self.block
            let hold = pending.count <= reserve ? pending.count : (remainder != 0 ? remainder : reserve)
            let processing = pending.count - hold
            if processing > 0 {
                try pending.withUnsafeBytes { _ = try cipher.update(UnsafeRawBufferPointer(rebasing: $0[..<processing]), into: dataOut!) }
            }
            held = Array(pending.suffix(hold))
            dataOutMoved?.pointee = processing
            return CCCryptorStatus(kCCSuccess)
        } catch {
            // Lengths are whole blocks by construction; what remains is OpenSSL failing outright.
            return CCCryptorStatus(kCCUnspecifiedError)
        }
    }

    func final(_ dataOut: UnsafeMutableRawPointer?, _ dataOutAvailable: Int, _ dataOutMoved: UnsafeMutablePointer<Int>?) -> CCCryptorStatus {
        if isStreaming { return CCCryptorStatus(kCCSuccess) }
        // Without padding whatever is held is a partial block; it stays held, as in Apple's code.
        guard pkcs7 else { return CCCryptorStatus(held.isEmpty ? kCCSuccess : kCCAlignmentError) }
        var output = [UInt8](repeating: 0, count: Self.block)
        do {
            if encrypting {
                let pad = Self.block - held.count
                let padded = held + [UInt8](repeating: UInt8(pad), count: pad)
                try padded.withUnsafeBytes { input in _ = try output.withUnsafeMutableBytes { try cipher.update(input, into: $0.baseAddress!) } }
            } else {
                // Apple's ccpad_pkcs7_decrypt reads outside its buffer when fewer than 16 bytes
                // (none at all, or a partial block) are held: undefined there, an error here.
                guard held.count == Self.block else { return CCCryptorStatus(kCCAlignmentError) }
                try held.withUnsafeBytes { input in _ = try output.withUnsafeMutableBytes { try cipher.update(input, into: $0.baseAddress!) } }
                // corecrypto's ccpad_pkcs7_decode: the last byte alone decides; out of range strips nothing.
                let last = Int(output[Self.block - 1])
                output.removeLast((1...Self.block).contains(last) ? last : 0)
            }
        } catch {
            return CCCryptorStatus(kCCUnspecifiedError)
        }
        guard output.count <= dataOutAvailable else { return CCCryptorStatus(kCCBufferTooSmall) }
        if !output.isEmpty {
            // Apple's Final skips the copy for a nil dataOut and reports success; losing the last
            // block silently is not something to imitate.
            guard let dataOut else { return CCCryptorStatus(kCCParamError) }
            output.withUnsafeBytes { dataOut.copyMemory(from: $0.baseAddress!, byteCount: output.count) }
        }
        dataOutMoved?.pointee = output.count
        held = []
        return CCCryptorStatus(kCCSuccess)
    }

    func reset(_ iv: UnsafeRawPointer?) -> CCCryptorStatus {
        // Since iOS 11, CBC and CTR only.
        guard mode == kCCModeCBC || mode == kCCModeCTR else { return CCCryptorStatus(kCCUnimplemented) }
        held = []
        do {
            try cipher.reset(iv: iv.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: Self.block)) })
            return CCCryptorStatus(kCCSuccess)
        } catch {
            return CCCryptorStatus(kCCUnspecifiedError)
        }
    }

    /// The object behind a reference that `CCCryptorCreateWithMode` made.
    static func from(_ reference: CCCryptorRef) -> Cryptor {
        Unmanaged<Cryptor>.fromOpaque(UnsafeRawPointer(reference)).takeUnretainedValue()
    }
}

/// `CCCryptorCreateWithMode` with the mode and padding the old options name: `kCCOptionECBMode` for
/// ECB (CBC otherwise), `kCCOptionPKCS7Padding` for PKCS#7 padding.
public func CCCryptorCreate(_ op: CCOperation, _ alg: CCAlgorithm, _ options: CCOptions, _ key: UnsafeRawPointer!, _ keyLength: Int,
                            _ iv: UnsafeRawPointer!, _ cryptorRef: UnsafeMutablePointer<CCCryptorRef?>!) -> CCCryptorStatus {
    let mode = options & CCOptions(kCCOptionECBMode) != 0 ? kCCModeECB : kCCModeCBC
    let padding = options & CCOptions(kCCOptionPKCS7Padding) != 0 ? ccPKCS7Padding : ccNoPadding
    return CCCryptorCreateWithMode(op, CCMode(mode), alg, CCPadding(padding), iv, key, keyLength, nil, 0, 0, 0, cryptorRef)
}

/// A cryptor for AES in `mode`, as Apple's CommonCryptor.c makes one:
/// - `kCCParamError`: no `cryptorRef` or no key; an algorithm number over 6; an operation other
///   than encrypt/decrypt; a mode CommonCryptor does not have.
/// - `kCCUnimplemented`: DES, 3DES, CAST, RC4, RC2, Blowfish, and the SPI modes XTS, GCM and CCM
///   (Apple has them; this module does not).
/// - `kCCKeySizeError`: an AES key that is not 16, 24 or 32 bytes.
/// Padding applies to ECB and CBC (`ccPKCS7Padding`; any other value is none, as Apple's default);
/// the stream modes ignore it. A nil IV is zeros; ECB ignores it; otherwise 16 bytes are read.
/// `tweak`, `numRounds` and `options` are ignored, as in Apple's code (CTR is always big-endian).
public func CCCryptorCreateWithMode(_ op: CCOperation, _ mode: CCMode, _ alg: CCAlgorithm, _ padding: CCPadding,
                                    _ iv: UnsafeRawPointer!, _ key: UnsafeRawPointer!, _ keyLength: Int,
                                    _ tweak: UnsafeRawPointer!, _ tweakLength: Int, _ numRounds: Int32,
                                    _ options: CCModeOptions, _ cryptorRef: UnsafeMutablePointer<CCCryptorRef?>!) -> CCCryptorStatus {
    guard let cryptorRef, let key else { return CCCryptorStatus(kCCParamError) }
    cryptorRef.pointee = nil
    guard alg <= 6, op == CCOperation(kCCEncrypt) || op == CCOperation(kCCDecrypt) else { return CCCryptorStatus(kCCParamError) }
    let modes: [Int: AESCipherContext.Mode] = [kCCModeECB: .ecb, kCCModeCBC: .cbc, kCCModeCFB: .cfb, kCCModeCTR: .ctr,
                                               kCCModeOFB: .ofb, kCCModeCFB8: .cfb8]
    let spiModes = [8, 11, 12]  // kCCModeXTS, kCCModeGCM, kCCModeCCM (CommonCryptorSPI.h)
    guard modes[Int(mode)] != nil || spiModes.contains(Int(mode)) || alg == CCAlgorithm(kCCAlgorithmRC4) else {
        return CCCryptorStatus(kCCParamError)
    }
    guard alg == CCAlgorithm(kCCAlgorithmAES), let aesMode = modes[Int(mode)] else { return CCCryptorStatus(kCCUnimplemented) }
    guard AESCipherContext.allowedKeySizes.contains(keyLength) else { return CCCryptorStatus(kCCKeySizeError) }
    let ivBytes = iv.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: kCCBlockSizeAES128)) }
    guard let cipher = try? AESCipherContext(mode: aesMode, encrypt: op == CCOperation(kCCEncrypt),
                                             key: UnsafeRawBufferPointer(start: key, count: keyLength), iv: ivBytes) else {
        return CCCryptorStatus(kCCUnspecifiedError)
    }
    let cryptor = Cryptor(encrypting: op == CCOperation(kCCEncrypt), mode: Int(mode),
                          pkcs7: aesMode.isBlockMode && Int(padding) == ccPKCS7Padding, cipher: cipher)
    cryptorRef.pointee = OpaquePointer(Unmanaged.passRetained(cryptor).toOpaque())
    return CCCryptorStatus(kCCSuccess)
}

/// Frees a cryptor; a nil one is fine. Using it afterwards is a crash, as in C.
@discardableResult
public func CCCryptorRelease(_ cryptorRef: CCCryptorRef!) -> CCCryptorStatus {
    if let cryptorRef { Unmanaged<Cryptor>.fromOpaque(UnsafeRawPointer(cryptorRef)).release() }
    return CCCryptorStatus(kCCSuccess)
}

/// Encrypts or decrypts `dataInLength` more bytes, writing what is ready (see
/// `CCCryptorGetOutputLength`). `*dataOutMoved` is 0 first, the bytes written on success, and the
/// size needed with `kCCBufferTooSmall`. No cryptor is `kCCParamError`; so (here only; Apple would
/// crash) are a nil `dataIn` with a length, a nil `dataOut` with output due, or a negative length.
public func CCCryptorUpdate(_ cryptorRef: CCCryptorRef!, _ dataIn: UnsafeRawPointer!, _ dataInLength: Int,
                            _ dataOut: UnsafeMutableRawPointer!, _ dataOutAvailable: Int,
                            _ dataOutMoved: UnsafeMutablePointer<Int>!) -> CCCryptorStatus {
    guard let cryptorRef else { return CCCryptorStatus(kCCParamError) }
    dataOutMoved?.pointee = 0
    if dataInLength == 0 { return CCCryptorStatus(kCCSuccess) }
    guard dataInLength > 0, dataOutAvailable >= 0, let dataIn else { return CCCryptorStatus(kCCParamError) }
    return Cryptor.from(cryptorRef).update(UnsafeRawBufferPointer(start: dataIn, count: dataInLength), dataOut, dataOutAvailable, dataOutMoved)
}

/// Finishes: with PKCS#7 padding, encrypting writes the padded last block (16 bytes) and
/// decrypting the unpadded last block (a bad padding is not an error: corecrypto's last-byte rule,
/// as in `CCCrypt`); without padding, input that never made a whole block is `kCCAlignmentError`.
/// The stream modes have nothing to finish. No cryptor is `kCCSuccess`, as in Apple's code.
public func CCCryptorFinal(_ cryptorRef: CCCryptorRef!, _ dataOut: UnsafeMutableRawPointer!, _ dataOutAvailable: Int,
                           _ dataOutMoved: UnsafeMutablePointer<Int>!) -> CCCryptorStatus {
    guard let cryptorRef else { return CCCryptorStatus(kCCSuccess) }
    dataOutMoved?.pointee = 0
    return Cryptor.from(cryptorRef).final(dataOut, max(dataOutAvailable, 0), dataOutMoved)
}

/// Starts again with a new IV (nil: zeros) under the same key, dropping held input. CBC and CTR
/// only; other modes are `kCCUnimplemented` (iOS 11 and later). No cryptor is `kCCParamError`.
public func CCCryptorReset(_ cryptorRef: CCCryptorRef!, _ iv: UnsafeRawPointer!) -> CCCryptorStatus {
    guard let cryptorRef else { return CCCryptorStatus(kCCParamError) }
    return Cryptor.from(cryptorRef).reset(iv)
}

/// The output an update of `inputLength` more bytes would write (`final`: an update and a final):
/// for ECB/CBC, whole blocks of what is held plus the input (with PKCS#7: one more block when
/// encrypting and finishing; decrypting, the last block is held until Final); the stream modes,
/// `inputLength`. No cryptor gives `kCCParamError` as a size, as Apple's code returns it.
public func CCCryptorGetOutputLength(_ cryptorRef: CCCryptorRef!, _ inputLength: Int, _ final: Bool) -> Int {
    guard let cryptorRef else { return kCCParamError }
    return Cryptor.from(cryptorRef).outputLength(inputLength, final: final)
}

/// Encrypts or decrypts `dataIn` in one call, as Apple's `CCCrypt` does: `CCCryptorCreate`, the
/// output length check, `CCCryptorUpdate`, `CCCryptorFinal`, `CCCryptorRelease`. So:
/// - `kCCParamError`, `kCCUnimplemented`, `kCCKeySizeError` from `CCCryptorCreate`, with
///   `*dataOutMoved` untouched.
/// - `kCCBufferTooSmall`: `dataOutAvailable` under the size needed; `*dataOutMoved` is set to it
///   (encrypt with padding: the length rounded up to the next whole block; decrypt with padding:
///   the input length; without padding: the input length rounded down to whole blocks).
/// - `kCCAlignmentError`: without padding, input that is not whole blocks (the whole blocks are
///   still written and counted in `*dataOutMoved`); with padding, a decrypt input of zero or a
///   non-multiple of 16 bytes (undefined in Apple's code, which reads outside its buffer).
/// - A bad PKCS#7 padding on decrypt is *not* an error, as on iOS since corecrypto's
///   constant-time decoder: only the last byte is read; 1…16 removes that many bytes, anything
///   else removes none, and the status is `kCCSuccess`.
/// A nil `iv` means a zero IV in CBC mode; ECB ignores the IV. The IV is read as 16 bytes.
@discardableResult
public func CCCrypt(
    _ op: CCOperation, _ alg: CCAlgorithm, _ options: CCOptions,
    _ key: UnsafeRawPointer?, _ keyLength: Int, _ iv: UnsafeRawPointer?,
    _ dataIn: UnsafeRawPointer?, _ dataInLength: Int,
    _ dataOut: UnsafeMutableRawPointer?, _ dataOutAvailable: Int,
    _ dataOutMoved: UnsafeMutablePointer<Int>?
) -> CCCryptorStatus {
    var made: CCCryptorRef?
    let created = CCCryptorCreate(op, alg, options, key, keyLength, iv, &made)
    guard created == CCCryptorStatus(kCCSuccess), let cryptor = made else { return created }
    defer { CCCryptorRelease(cryptor) }
    guard dataInLength >= 0, dataOutAvailable >= 0 else { return CCCryptorStatus(kCCParamError) }
    let needed = CCCryptorGetOutputLength(cryptor, dataInLength, true)
    dataOutMoved?.pointee = needed
    guard needed <= dataOutAvailable else { return CCCryptorStatus(kCCBufferTooSmall) }
    var updateLength = 0
    let updated = CCCryptorUpdate(cryptor, dataIn, dataInLength, dataOut, dataOutAvailable, &updateLength)
    guard updated == CCCryptorStatus(kCCSuccess) else { return updated }
    var finalLength = 0
    let finished = CCCryptorFinal(cryptor, dataOut.map { $0 + updateLength }, dataOutAvailable - updateLength, &finalLength)
    dataOutMoved?.pointee = updateLength + finalLength
    return finished
}
