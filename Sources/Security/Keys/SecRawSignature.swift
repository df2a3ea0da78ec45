import Foundation
internal import WireCrypto

// The older signature calls (iOS 2): SecKeyRawSign / SecKeyRawVerify, where SecPadding says what
// the caller's bytes are. As Apple's SecKey.c maps them onto the newer algorithms:
// .PKCS1SHA1…SHA512 → rsaSignatureDigestPKCS1v15SHA… (the bytes are a digest of that length),
// .PKCS1 → rsaSignatureDigestPKCS1v15Raw (type-1 padding over the bytes as given: usually a
// DigestInfo the caller built), .none → rsaSignatureRaw (one block, textbook RSA). A signature
// that does not verify is errSSLCrypto (-9809), the legacy status Apple's own regression tests
// expect from these calls; a wrong length or an unsupported padding is errSecParam.

/// What the caller's bytes are, for one SecPadding on an RSA key; nil for a padding Apple refuses.
private enum RawSignatureInput {
    case digest(WireCrypto.Digest)
    case unhashedPKCS1
    case rawBlock

    init?(_ padding: SecPadding) {
        switch padding.rawValue {
        case SecPadding.PKCS1SHA1.rawValue: self = .digest(.sha1)
        case SecPadding.PKCS1SHA224.rawValue: self = .digest(.sha224)
        case SecPadding.PKCS1SHA256.rawValue: self = .digest(.sha256)
        case SecPadding.PKCS1SHA384.rawValue: self = .digest(.sha384)
        case SecPadding.PKCS1SHA512.rawValue: self = .digest(.sha512)
        case SecPadding.PKCS1.rawValue: self = .unhashedPKCS1
        case SecPadding.none.rawValue, SecPadding.sigRaw.rawValue: self = .rawBlock
        default: return nil  // MD2/MD5 and OAEP: not signature paddings Apple's current SecKey accepts
        }
    }
}

private func rawSign(_ key: SecKey, _ padding: SecPadding, _ data: Data) -> Result<Data, SecFailure> {
    guard let input = RawSignatureInput(padding) else { return .failure(SecFailure(errSecParam, "SecPadding \(padding.rawValue) cannot sign")) }
    guard case let .rsaPrivate(privateKey) = key.material else { return .failure(SecFailure(errSecParam, "only a private key signs")) }
    if let denied = authorizeUse(of: key) { return .failure(denied) }  // SecAccessControl.swift
    do {
        switch input {
        case let .digest(digest):
            guard data.count == digest.byteCount else {
                return .failure(SecFailure(errSecParam, "\(digest.rawValue) digests are \(digest.byteCount) bytes, not \(data.count)"))
            }
            return .success(try privateKey.sign(digest: data, scheme: .pkcs1v15(digest)))
        case .unhashedPKCS1:
            guard data.count <= key.blockSize - 11 else { return .failure(SecFailure(errSecParam, "at most \(key.blockSize - 11) bytes fit")) }
            return .success(try privateKey.signPKCS1v15Unhashed(data))
        case .rawBlock:
            guard data.count <= key.blockSize else { return .failure(SecFailure(errSecParam, "at most one \(key.blockSize)-byte block")) }
            return .success(try privateKey._WEAK_AND_INSECURE_signRawBlock(Data(count: key.blockSize - data.count) + data))
        }
    } catch {
        return .failure(SecFailure(errSecParam, "RSA signing failed: \(error)"))  // a raw block not below the modulus
    }
}

/// Signs `dataToSign` as `padding` says; `sigLen` is the buffer size in and the signature length out.
@discardableResult
public func SecKeyRawSign(_ key: SecKey, _ padding: SecPadding, _ dataToSign: UnsafePointer<UInt8>, _ dataToSignLen: Int,
                          _ sig: UnsafeMutablePointer<UInt8>, _ sigLen: UnsafeMutablePointer<Int>) -> OSStatus {
    copyOut(rawSign(key, padding, Data(bytes: dataToSign, count: dataToSignLen)), sig, sigLen)
}

/// errSecSuccess when `sig` is a signature of `signedData` as `padding` says; errSSLCrypto when
/// it is not; errSecParam for a padding or length that cannot be.
@discardableResult
public func SecKeyRawVerify(_ key: SecKey, _ padding: SecPadding, _ signedData: UnsafePointer<UInt8>, _ signedDataLen: Int,
                            _ sig: UnsafePointer<UInt8>, _ sigLen: Int) -> OSStatus {
    guard let input = RawSignatureInput(padding) else { return errSecParam }
    let publicKey: RSAPublicKey
    if case let .rsaPublic(key) = key.material { publicKey = key } else if case let .rsaPrivate(key) = key.material { publicKey = key.publicKey } else {
        return errSecParam  // RSA keys only here
    }
    let data = Data(bytes: signedData, count: signedDataLen)
    let signature = Data(bytes: sig, count: sigLen)
    let valid: Bool
    switch input {
    case let .digest(digest):
        guard data.count == digest.byteCount else { return errSecParam }
        valid = publicKey.verify(signature: signature, digest: data, scheme: .pkcs1v15(digest))
    case .unhashedPKCS1:
        valid = publicKey.verifyPKCS1v15Unhashed(signature: signature, data: data)
    case .rawBlock:
        guard data.count <= key.blockSize else { return errSecParam }
        valid = publicKey._WEAK_AND_INSECURE_verifyRawBlock(signature: signature, block: Data(count: key.blockSize - data.count) + data)
    }
    return valid ? errSecSuccess : errSSLCrypto
}
