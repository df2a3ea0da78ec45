import Foundation
internal import WireCrypto

// CommonCrypto's one-shot symmetric cipher, `CCCrypt`, with Apple's types, constants and status
// results. Constants are `Int` because Swift imports CommonCrypto's anonymous C enums as `Int`, which
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

/// Encrypts or decrypts `dataIn` in one call, as Apple's `CCCrypt`:
/// - `kCCParamError`: an operation other than encrypt/decrypt, an algorithm number over 6, no key,
///   or (here only; Apple would crash) no `dataIn` for a non-zero length.
/// - `kCCKeySizeError`: an AES key that is not 16, 24 or 32 bytes.
/// - `kCCBufferTooSmall`: `dataOutAvailable` under the size needed; `*dataOutMoved` is set to it
///   (encrypt with padding: the length rounded up to the next whole block; decrypt with padding:
///   the input length; without padding: the input length rounded down to whole blocks).
/// - `kCCAlignmentError`: without padding, input that is not whole blocks (the whole blocks are
///   still written and counted in `*dataOutMoved`); with padding, a decrypt input of zero or a
///   non-multiple of 16 bytes (undefined in Apple's code, which reads outside its buffer).
/// - A bad PKCS#7 padding on decrypt is *not* an error, as on iOS since corecrypto's
///   constant-time decoder: only the last byte is read; 1…16 removes that many bytes, anything
///   else removes none, and the status is `kCCSuccess`.
/// - `kCCUnimplemented`: DES, 3DES, CAST, RC4, RC2, Blowfish (Apple has them; this module does not).
/// A nil `iv` means a zero IV in CBC mode; ECB ignores the IV. The IV is read as 16 bytes.
@discardableResult
public func CCCrypt(
    _ op: CCOperation, _ alg: CCAlgorithm, _ options: CCOptions,
    _ key: UnsafeRawPointer?, _ keyLength: Int, _ iv: UnsafeRawPointer?,
    _ dataIn: UnsafeRawPointer?, _ dataInLength: Int,
    _ dataOut: UnsafeMutableRawPointer?, _ dataOutAvailable: Int,
    _ dataOutMoved: UnsafeMutablePointer<Int>?
) -> CCCryptorStatus {
    guard op == CCOperation(kCCEncrypt) || op == CCOperation(kCCDecrypt) else { return CCCryptorStatus(kCCParamError) }
    guard alg <= 6 else { return CCCryptorStatus(kCCParamError) }
    guard let key else { return CCCryptorStatus(kCCParamError) }
    guard alg == CCAlgorithm(kCCAlgorithmAES) else { return CCCryptorStatus(kCCUnimplemented) }
    guard [kCCKeySizeAES128, kCCKeySizeAES192, kCCKeySizeAES256].contains(keyLength) else {
        return CCCryptorStatus(kCCKeySizeError)
    }
    guard dataInLength >= 0, dataOutAvailable >= 0 else { return CCCryptorStatus(kCCParamError) }
    let encrypting = op == CCOperation(kCCEncrypt)
    let padding = options & CCOptions(kCCOptionPKCS7Padding) != 0
    let block = kCCBlockSizeAES128
    let wholeBlocks = dataInLength / block * block
    let needed = padding ? (encrypting ? wholeBlocks + block : dataInLength) : wholeBlocks
    dataOutMoved?.pointee = needed
    guard needed <= dataOutAvailable else { return CCCryptorStatus(kCCBufferTooSmall) }
    if dataInLength > 0 && dataIn == nil { return CCCryptorStatus(kCCParamError) }
    if needed > 0 && dataOut == nil { return CCCryptorStatus(kCCParamError) }

    let keyBytes = [UInt8](UnsafeRawBufferPointer(start: key, count: keyLength))
    let input = dataIn.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: dataInLength)) } ?? []
    let mode: AESBlockMode = options & CCOptions(kCCOptionECBMode) != 0
        ? .ecb
        : .cbc(iv: iv.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: block)) } ?? [UInt8](repeating: 0, count: block))

    func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty, let dataOut else { return }
        bytes.withUnsafeBytes { dataOut.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
    }

    do {
        if encrypting && padding {
            let pad = block - (dataInLength - wholeBlocks)
            let padded = input + [UInt8](repeating: UInt8(pad), count: pad)
            let output = try mode.process(encrypt: true, key: keyBytes, input: padded)
            write(output)
            dataOutMoved?.pointee = output.count
            return CCCryptorStatus(kCCSuccess)
        }
        if padding {  // decrypting
            guard dataInLength > 0, wholeBlocks == dataInLength else {
                dataOutMoved?.pointee = 0
                return CCCryptorStatus(kCCAlignmentError)
            }
            let output = try mode.process(encrypt: false, key: keyBytes, input: input)
            // corecrypto's ccpad_pkcs7_decode: the last byte alone decides; out of range strips nothing.
            let last = Int(output[output.count - 1])
            let strip = (1...block).contains(last) ? last : 0
            let plaintext = Array(output.prefix(output.count - strip))
            write(plaintext)
            dataOutMoved?.pointee = plaintext.count
            return CCCryptorStatus(kCCSuccess)
        }
        // No padding, either way: whole blocks only; a partial block is an alignment error.
        let output = try mode.process(encrypt: encrypting, key: keyBytes, input: Array(input.prefix(wholeBlocks)))
        write(output)
        dataOutMoved?.pointee = output.count
        return CCCryptorStatus(wholeBlocks == dataInLength ? kCCSuccess : kCCAlignmentError)
    } catch {
        // Key sizes and lengths are checked above; what remains is OpenSSL failing outright.
        return CCCryptorStatus(kCCUnspecifiedError)
    }
}
