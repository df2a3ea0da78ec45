import Foundation
internal import WireCrypto

// PKCS#12 identities (SecImportExport.h, SecIdentity.h): client certificates an app ships or
// downloads as a .p12 and answers a TLS client-certificate challenge with. The file is read by
// WireCrypto's PKCS12 (OpenSSL's PKCS12_parse, legacy RC2/3DES files included); the dictionary
// keys and statuses are Apple's: a wrong passphrase is errSecAuthFailed, bytes that are not
// PKCS#12 are errSecDecode.

nonisolated(unsafe) public let kSecImportExportPassphrase: CFString = "passphrase"
nonisolated(unsafe) public let kSecImportItemLabel: CFString = "label"
nonisolated(unsafe) public let kSecImportItemKeyID: CFString = "keyid"
nonisolated(unsafe) public let kSecImportItemTrust: CFString = "trust"
nonisolated(unsafe) public let kSecImportItemCertChain: CFString = "chain"
nonisolated(unsafe) public let kSecImportItemIdentity: CFString = "identity"

/// A certificate with its private key.
public final class SecIdentity: CustomStringConvertible, @unchecked Sendable {
    let certificate: SecCertificate
    let privateKey: SecKey
    init(certificate: SecCertificate, privateKey: SecKey) { self.certificate = certificate; self.privateKey = privateKey }
    public var description: String { "<SecIdentityRef: \(certificate.subjectSummary ?? "certificate")>" }
}

public func SecIdentityGetTypeID() -> CFTypeID { TypeIDs.identity }

@discardableResult
public func SecIdentityCopyCertificate(_ identityRef: SecIdentity, _ certificateRef: UnsafeMutablePointer<SecCertificate?>) -> OSStatus {
    certificateRef.pointee = identityRef.certificate
    return errSecSuccess
}

@discardableResult
public func SecIdentityCopyPrivateKey(_ identityRef: SecIdentity, _ privateKeyRef: UnsafeMutablePointer<SecKey?>) -> OSStatus {
    privateKeyRef.pointee = identityRef.privateKey
    return errSecSuccess
}

/// Imports the identity in a PKCS#12 file. `options` carries kSecImportExportPassphrase (none is
/// an empty passphrase). On success `items` is an array with one dictionary: kSecImportItemIdentity,
/// kSecImportItemCertChain (the certificate first, then the file's others), kSecImportItemTrust
/// (a SecTrust over that chain, basic X.509 policy, not yet evaluated), kSecImportItemKeyID and
/// kSecImportItemLabel when the file has them. Only RSA private keys become SecKeys here; an EC
/// identity is errSecUnimplemented until Security has EC keys.
@discardableResult
public func SecPKCS12Import(_ pkcs12_data: CFData, _ options: CFDictionary, _ items: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    let given = entries(of: options)
    let passphrase = stringAttribute(given[kSecImportExportPassphrase as String]) ?? ""
    let contents: PKCS12Contents
    do { contents = try PKCS12.parse(Data(pkcs12_data), passphrase: passphrase) } catch {
        switch error {
        case .wrongPassphrase: return errSecAuthFailed
        case .malformed: return errSecDecode
        case .noIdentity: return errSecDecode
        }
    }
    guard contents.privateKeyAlgorithm == "RSA", let rsa = try? RSAPrivateKey(importing: contents.privateKeyPKCS8DER) else {
        return errSecUnimplemented
    }
    let certificate = SecCertificate(contents.certificate)
    let identity = SecIdentity(certificate: certificate, privateKey: SecKey(.rsaPrivate(rsa)))
    let chain = [certificate] + contents.chain.map(SecCertificate.init)
    var trust: SecTrust?
    guard SecTrustCreateWithCertificates(chain as NSArray, SecPolicyCreateBasicX509(), &trust) == errSecSuccess, let trust else {
        return errSecInternalComponent
    }
    var item: [String: Any] = [kSecImportItemIdentity as String: identity, kSecImportItemCertChain as String: NSArray(array: chain),
                               kSecImportItemTrust as String: trust]
    if let keyID = contents.localKeyID { item[kSecImportItemKeyID as String] = keyID }
    if let label = contents.friendlyName { item[kSecImportItemLabel as String] = label }
    items.pointee = NSArray(array: [NSDictionary(dictionary: item)])
    return errSecSuccess
}
