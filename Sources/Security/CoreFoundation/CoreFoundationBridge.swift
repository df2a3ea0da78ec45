import Foundation

// The Core Foundation types that Security's Swift interface uses. swift-corelibs-foundation keeps
// CoreFoundation private on Linux, so they are defined here as the toll-free-bridged Foundation
// classes they are on Apple platforms. That makes the casts iOS code writes — `dict as CFDictionary`,
// `data as CFData`, `kSecClass as String`, `item as? Data`, `(result as? NSArray) as? [SecCertificate]`,
// `error!.takeRetainedValue() as Error` — compile and behave the same here.

public typealias CFTypeRef = AnyObject
public typealias CFString = NSString
public typealias CFMutableString = NSMutableString
public typealias CFData = NSData
public typealias CFMutableData = NSMutableData
public typealias CFDictionary = NSDictionary
public typealias CFMutableDictionary = NSMutableDictionary
public typealias CFArray = NSArray
public typealias CFMutableArray = NSMutableArray
public typealias CFNumber = NSNumber
public typealias CFBoolean = NSNumber
public typealias CFDate = NSDate
public typealias CFError = NSError
public typealias CFTypeID = UInt
public typealias CFIndex = Int
public typealias CFErrorDomain = CFString

/// CF's allocator; the default (nil) and kCFAllocatorNull exist here, which is what app code passes.
public final class CFAllocator: @unchecked Sendable {
    fileprivate init() {}
}
public let kCFAllocatorDefault: CFAllocator? = nil
/// The allocator that does nothing: passed as a deallocator, it means "do not free these bytes".
public let kCFAllocatorNull: CFAllocator! = CFAllocator()

// Implicitly unwrapped, as Swift imports them on iOS (`kSecReturnData: kCFBooleanTrue!` is what tutorials write).
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)

/// The error domain for OSStatus-coded errors, as Security's CFErrors carry it.
public let kCFErrorDomainOSStatus: String = "NSOSStatusErrorDomain"
/// The userInfo key Apple's CFErrorCreate uses for the description (`kCFErrorDescriptionKey`).
public let kCFErrorDescriptionKey: String = "NSDescription"

/// Type identifiers, so `CFGetTypeID(x) == CFArrayGetTypeID()` works as on Apple platforms.
enum TypeIDs {
    static let array: CFTypeID = 19
    static let boolean: CFTypeID = 21
    static let data: CFTypeID = 20
    static let date: CFTypeID = 42
    static let dictionary: CFTypeID = 18
    static let error: CFTypeID = 34
    static let number: CFTypeID = 22
    static let string: CFTypeID = 7
    static let key: CFTypeID = 300
    static let certificate: CFTypeID = 301
    static let policy: CFTypeID = 302
    static let trust: CFTypeID = 303
    static let unknown: CFTypeID = 0
}

public func CFArrayGetTypeID() -> CFTypeID { TypeIDs.array }
public func CFBooleanGetTypeID() -> CFTypeID { TypeIDs.boolean }
public func CFDataGetTypeID() -> CFTypeID { TypeIDs.data }
public func CFDateGetTypeID() -> CFTypeID { TypeIDs.date }
public func CFDictionaryGetTypeID() -> CFTypeID { TypeIDs.dictionary }
public func CFErrorGetTypeID() -> CFTypeID { TypeIDs.error }
public func CFNumberGetTypeID() -> CFTypeID { TypeIDs.number }
public func CFStringGetTypeID() -> CFTypeID { TypeIDs.string }

/// The type of a CF object (0 for nil or a type CF does not know).
public func CFGetTypeID(_ cf: CFTypeRef?) -> CFTypeID {
    switch cf {
    case nil: return TypeIDs.unknown
    case is SecKey: return TypeIDs.key
    case is SecCertificate: return TypeIDs.certificate
    case is SecPolicy: return TypeIDs.policy
    case is SecTrust: return TypeIDs.trust
    case is SecAccessControl: return TypeIDs.accessControl
    case is SecIdentity: return TypeIDs.identity
    case is NSArray: return TypeIDs.array
    case is NSDictionary: return TypeIDs.dictionary
    case is NSData: return TypeIDs.data
    case is NSString: return TypeIDs.string
    case is NSDate: return TypeIDs.date
    case is NSError: return TypeIDs.error
    case let number as NSNumber:
        return CFNumberIsBoolean(number) ? TypeIDs.boolean : TypeIDs.number
    default: return TypeIDs.unknown
    }
}

/// True for the NSNumbers that hold a Bool (what CF calls CFBoolean): Foundation records them
/// with the C type code "c".
func CFNumberIsBoolean(_ number: NSNumber) -> Bool { String(cString: number.objCType) == "c" }

// Implicitly unwrapped results, as Swift imports them on iOS (`CFErrorGetDomain(error) as String`).
public func CFErrorGetCode(_ error: CFError) -> CFIndex { error.code }
public func CFErrorGetDomain(_ error: CFError) -> CFErrorDomain! { error.domain as NSString }
public func CFErrorCopyDescription(_ error: CFError) -> CFString! { error.localizedDescription as NSString }
public func CFErrorCopyUserInfo(_ error: CFError) -> CFDictionary! { error.userInfo as NSDictionary }
