import Foundation

/// Apple's result code type.
public typealias OSStatus = Int32

// Result codes with Apple's values (SecBase.h, MacTypes.h, SecureTransport.h).
public let noErr: OSStatus = 0
public let errSecSuccess: OSStatus = 0
public let errSecUnimplemented: OSStatus = -4
public let errSecIO: OSStatus = -36
public let errSecParam: OSStatus = -50
public let errSecAllocate: OSStatus = -108
public let errSecUserCanceled: OSStatus = -128
public let errSecBadReq: OSStatus = -909
public let errSecInternalComponent: OSStatus = -2070
public let errSecNotAvailable: OSStatus = -25291
public let errSecAuthFailed: OSStatus = -25293
public let errSecDuplicateItem: OSStatus = -25299
public let errSecItemNotFound: OSStatus = -25300
public let errSecBufferTooSmall: OSStatus = -25301
public let errSecDataTooLarge: OSStatus = -25302
public let errSecNoSuchAttr: OSStatus = -25303
public let errSecNoSuchClass: OSStatus = -25306
public let errSecKeySizeNotAllowed: OSStatus = -25311
public let errSecInteractionNotAllowed: OSStatus = -25308
public let errSecDecode: OSStatus = -26275
public let errSecMissingEntitlement: OSStatus = -34018
public let errSecHostNameMismatch: OSStatus = -67602
public let errSecInvalidExtendedKeyUsage: OSStatus = -67609
public let errSecInvalidRecord: OSStatus = -67701
public let errSecUnsupportedKeySize: OSStatus = -67735
public let errSecVerifyFailed: OSStatus = -67808
public let errSecCertificateExpired: OSStatus = -67818
public let errSecInvalidDigestAlgorithm: OSStatus = -67815
public let errSecCertificateNotValidYet: OSStatus = -67819
public let errSecNotTrusted: OSStatus = -67843
public let errSecCertificateValidityPeriodTooLong: OSStatus = -67901
public let errSSLCrypto: OSStatus = -9809

/// Apple's text for the result codes this module returns (Apple's wording where known).
@discardableResult
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    let text: String
    switch status {
    case errSecSuccess: text = "No error."
    case errSecUnimplemented: text = "Function or operation not implemented."
    case errSecParam: text = "One or more parameters passed to a function were not valid."
    case errSecAllocate: text = "Failed to allocate memory."
    case errSecNotAvailable: text = "No keychain is available. You may need to restart your computer."
    case errSecDuplicateItem: text = "The specified item already exists in the keychain."
    case errSecItemNotFound: text = "The specified item could not be found in the keychain."
    case errSecNoSuchAttr: text = "The specified attribute does not exist."
    case errSecDecode: text = "Unable to decode the provided data."
    case errSecKeySizeNotAllowed: text = "The key size is not allowed."
    case errSecNotTrusted: text = "The trust policy was not trusted."
    case errSecCertificateExpired: text = "An expired certificate was detected."
    case errSecCertificateNotValidYet: text = "The certificate is not yet valid."
    case errSecHostNameMismatch: text = "A host name mismatch has occurred."
    case errSecCertificateValidityPeriodTooLong: text = "The validity period in the certificate exceeds the maximum allowed."
    case errSecInvalidExtendedKeyUsage: text = "The extended key usage is not valid."
    case errSecUnsupportedKeySize: text = "The key size is not supported."
    case errSecInvalidDigestAlgorithm: text = "An invalid digest algorithm was detected."
    default: return nil
    }
    return text as NSString
}

/// A CFError in Security's form: OSStatus domain, the status as code, a description.
func makeSecError(_ status: OSStatus, _ description: String) -> CFError {
    NSError(domain: kCFErrorDomainOSStatus, code: Int(status),
            userInfo: [kCFErrorDescriptionKey: description, NSLocalizedDescriptionKey: description])
}

/// Stores a retained CFError into an `Unmanaged<CFError>?` out-parameter, as Security's C API does.
func report(_ status: OSStatus, _ description: String, to error: UnsafeMutablePointer<Unmanaged<CFError>?>?) {
    error?.pointee = Unmanaged.passRetained(makeSecError(status, description))
}
