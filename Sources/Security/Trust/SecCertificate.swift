import Foundation

// SecCertificate.h's names that Apple still declares for iOS but has deprecated, as Swift imports
// them there (Apple's iOS SDK, Security.framework/Headers/SecCertificate.h):
//
//     __nullable SecKeyRef SecCertificateCopyPublicKey(SecCertificateRef certificate)
//         API_DEPRECATED_WITH_REPLACEMENT("SecCertificateCopyKey", ios(10.3, 12.0)) API_UNAVAILABLE(macos, macCatalyst);
//     __nullable CFDataRef SecCertificateCopySerialNumber(SecCertificateRef certificate)
//         API_DEPRECATED_WITH_REPLACEMENT("SecCertificateCopySerialNumberData", ios(10.3, 11.0)) API_UNAVAILABLE(macos, macCatalyst);
//
// Each is its replacement under the old name, as on iOS. (macOS's SecCertificateCopyPublicKey has
// another signature, an OSStatus and an out-parameter; iOS app code never sees it.) The rest of
// SecCertificate (create, copy data, summary, common name, serial number data, key) is in
// SecTrust.swift for now; the two move together when Security gets family folders.

/// The certificate's public key: `SecCertificateCopyKey` (RSA, or EC P-256/384/521; nil for
/// another key type), under the name iOS 10.3–11 apps call.
@available(iOS, introduced: 10.3, deprecated: 12.0, renamed: "SecCertificateCopyKey")
@available(macOS, unavailable)
@available(macCatalyst, unavailable)
@discardableResult
public func SecCertificateCopyPublicKey(_ certificate: SecCertificate) -> SecKey? {
    SecCertificateCopyKey(certificate)
}

/// The serial number's content bytes (big-endian, as DER holds them): `SecCertificateCopySerialNumberData`
/// without its error argument, under the name iOS 10.3 apps call.
@available(iOS, introduced: 10.3, deprecated: 11.0, renamed: "SecCertificateCopySerialNumberData")
@available(macOS, unavailable)
@available(macCatalyst, unavailable)
@discardableResult
public func SecCertificateCopySerialNumber(_ certificate: SecCertificate) -> CFData? {
    SecCertificateCopySerialNumberData(certificate, nil)
}
