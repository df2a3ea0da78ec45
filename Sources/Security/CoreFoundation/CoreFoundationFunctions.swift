import Foundation

// The Core Foundation functions keychain, key and pinning code calls, with the signatures Swift
// imports on iOS (implicitly unwrapped parameters and results, CFIndex lengths). CF types here are
// the bridged Foundation classes (CoreFoundationBridge.swift), so each function is the Foundation
// operation CF's is toll-free bridged to.

/// A range of items, as CF's `CFRange` (location and length, both CFIndex).
public struct CFRange: Equatable, Sendable {
    public var location: CFIndex
    public var length: CFIndex
    public init() { location = 0; length = 0 }
    public init(location: CFIndex, length: CFIndex) { self.location = location; self.length = length }
}

public func CFRangeMake(_ loc: CFIndex, _ len: CFIndex) -> CFRange { CFRange(location: loc, length: len) }

// MARK: - Time

public typealias CFTimeInterval = Double
public typealias CFAbsoluteTime = CFTimeInterval
/// Seconds from 1970-01-01 to CF's reference date, 2001-01-01 (00:00:00 UTC).
public let kCFAbsoluteTimeIntervalSince1970: CFTimeInterval = 978_307_200
public let kCFAbsoluteTimeIntervalSince1904: CFTimeInterval = 3_061_152_000

/// Seconds since 2001-01-01 00:00:00 UTC, as CF counts them.
public func CFAbsoluteTimeGetCurrent() -> CFAbsoluteTime { Date().timeIntervalSinceReferenceDate }

// MARK: - CFData

/// A CFData over the caller's bytes. With `kCFAllocatorNull` as the deallocator CF neither copies
/// nor frees them; Foundation on Linux has no such borrowed NSData, so the bytes are copied
/// (the caller's buffer may then be reused at once, which is allowed on iOS only after the CFData
/// is released) and never freed here, whatever deallocator is passed.
public func CFDataCreateWithBytesNoCopy(_ allocator: CFAllocator!, _ bytes: UnsafePointer<UInt8>!, _ length: CFIndex,
                                        _ bytesDeallocator: CFAllocator!) -> CFData! {
    CFDataCreate(allocator, bytes, length)
}

public func CFDataCreate(_ allocator: CFAllocator!, _ bytes: UnsafePointer<UInt8>!, _ length: CFIndex) -> CFData! {
    guard length > 0, let bytes else { return NSData() }
    return NSData(bytes: bytes, length: length)
}

/// A mutable CFData; `capacity` is a hint (0: no limit), as in CF.
public func CFDataCreateMutable(_ allocator: CFAllocator!, _ capacity: CFIndex) -> CFMutableData! { NSMutableData() }

public func CFDataCreateCopy(_ allocator: CFAllocator!, _ theData: CFData!) -> CFData! { NSData(data: theData as Data) }

public func CFDataCreateMutableCopy(_ allocator: CFAllocator!, _ capacity: CFIndex, _ theData: CFData!) -> CFMutableData! {
    NSMutableData(data: theData as Data)
}

public func CFDataGetLength(_ theData: CFData!) -> CFIndex { theData.length }

/// The data's bytes, valid while the CFData lives and is not mutated (CF's rule).
public func CFDataGetBytePtr(_ theData: CFData!) -> UnsafePointer<UInt8>! {
    theData.length == 0 ? nil : theData.bytes.assumingMemoryBound(to: UInt8.self)
}

public func CFDataGetMutableBytePtr(_ theData: CFMutableData!) -> UnsafeMutablePointer<UInt8>! {
    theData.length == 0 ? nil : theData.mutableBytes.assumingMemoryBound(to: UInt8.self)
}

/// Copies the bytes in `range` into `buffer`; a range outside the data is a programming error in
/// CF (it crashes); here too.
public func CFDataGetBytes(_ theData: CFData!, _ range: CFRange, _ buffer: UnsafeMutablePointer<UInt8>!) {
    precondition(range.location >= 0 && range.length >= 0 && range.location + range.length <= theData.length,
                 "CFDataGetBytes: range \(range) is outside the data (\(theData.length) bytes)")
    theData.getBytes(buffer, range: NSRange(location: range.location, length: range.length))
}

public func CFDataAppendBytes(_ theData: CFMutableData!, _ bytes: UnsafePointer<UInt8>!, _ length: CFIndex) {
    guard length > 0, let bytes else { return }
    theData.append(bytes, length: length)
}

public func CFDataSetLength(_ theData: CFMutableData!, _ length: CFIndex) { theData.length = length }

public func CFDataIncreaseLength(_ theData: CFMutableData!, _ extraLength: CFIndex) { theData.increaseLength(by: extraLength) }

public func CFDataReplaceBytes(_ theData: CFMutableData!, _ range: CFRange, _ newBytes: UnsafePointer<UInt8>!, _ newLength: CFIndex) {
    theData.replaceBytes(in: NSRange(location: range.location, length: range.length), withBytes: newBytes, length: newLength)
}

public func CFDataDeleteBytes(_ theData: CFMutableData!, _ range: CFRange) {
    theData.replaceBytes(in: NSRange(location: range.location, length: range.length), withBytes: nil, length: 0)
}

// MARK: - CFDictionary

/// The number of entries.
public func CFDictionaryGetCount(_ theDict: CFDictionary!) -> CFIndex { theDict.count }

/// The value for `key` (a pointer to a CF object, as `unsafeBitCast(kSecClass, to: UnsafeRawPointer.self)`
/// or `Unmanaged.passUnretained(key).toOpaque()` make it), or nil. CF's Get rule: the caller does
/// not own the value, which lives as long as the dictionary. Foundation on Linux bridges a Swift
/// value (a String, an Int) to a new object on each read, so the objects handed out are kept
/// alive here for the life of the process instead.
public func CFDictionaryGetValue(_ theDict: CFDictionary!, _ key: UnsafeRawPointer!) -> UnsafeRawPointer! {
    guard let key else { return nil }
    let object = Unmanaged<AnyObject>.fromOpaque(key).takeUnretainedValue()
    guard let value = theDict.object(forKey: object) else { return nil }
    return UnsafeRawPointer(Unmanaged.passUnretained(HandedOutValues.keep(value as AnyObject)).toOpaque())
}

/// Objects CFDictionaryGetValue returned pointers to.
private enum HandedOutValues {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var objects: [AnyObject] = []
    static func keep(_ object: AnyObject) -> AnyObject {
        lock.lock(); defer { lock.unlock() }
        objects.append(object)
        return object
    }
}

public func CFDictionaryContainsKey(_ theDict: CFDictionary!, _ key: UnsafeRawPointer!) -> Bool {
    CFDictionaryGetValue(theDict, key) != nil
}

// MARK: - CFArray

/// The number of values.
public func CFArrayGetCount(_ theArray: CFArray!) -> CFIndex { theArray.count }

/// A pointer to the value at `idx` (CF's Get rule, as CFDictionaryGetValue): apps turn it back
/// with `unsafeBitCast(value, to: CFDictionary.self)` or `Unmanaged<CFDictionary>.fromOpaque(value)`.
/// An index outside the array is a programming error in CF (it crashes); here too.
public func CFArrayGetValueAtIndex(_ theArray: CFArray!, _ idx: CFIndex) -> UnsafeRawPointer! {
    precondition(idx >= 0 && idx < theArray.count, "CFArrayGetValueAtIndex: index \(idx) is outside the array (\(theArray.count) values)")
    return UnsafeRawPointer(Unmanaged.passUnretained(HandedOutValues.keep(theArray.object(at: idx) as AnyObject)).toOpaque())
}

// MARK: - CFString

public typealias CFStringEncoding = UInt32
/// CF's UTF-8 encoding constant (`CFStringBuiltInEncodings.UTF8.rawValue`).
public let kCFStringEncodingUTF8: CFStringEncoding = 0x0800_0100
public let kCFStringEncodingASCII: CFStringEncoding = 0x0600

/// A CFString from a NUL-terminated C string; nil when the bytes are not valid in `encoding`
/// (UTF-8 and ASCII here; other encodings give nil).
public func CFStringCreateWithCString(_ alloc: CFAllocator!, _ cStr: UnsafePointer<CChar>!, _ encoding: CFStringEncoding) -> CFString! {
    guard let cStr else { return nil }
    switch encoding {
    case kCFStringEncodingUTF8: return String(validatingCString: cStr).map { $0 as NSString }
    case kCFStringEncodingASCII:
        let text = String(validatingCString: cStr)
        return text.flatMap { $0.allSatisfy(\.isASCII) ? $0 as NSString : nil }
    default: return nil
    }
}

public func CFStringGetLength(_ theString: CFString!) -> CFIndex { theString.length }

public func CFCopyDescription(_ cf: CFTypeRef!) -> CFString! { String(describing: cf as Any) as NSString }
