import Foundation
import XCTest
import Security

/// Core Foundation as keychain and key code uses it, written as iOS tutorials write it.
final class CoreFoundationTests: XCTestCase {
    override func setUp() { InMemoryKeychain.shared.removeAll() }

    /// `kCFBooleanTrue!` (Apple imports it as `CFBoolean!`), bare `kCFBooleanTrue` and `true` all
    /// ask the keychain for the data; `kCFBooleanFalse` does not.
    func testBooleanConstantsInKeychainQueries() throws {
        let secret = Data("s3cret".utf8)
        let add: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                                  kSecAttrAccount as String: "alice", kSecValueData as String: secret]
        XCTAssertEqual(SecItemAdd(add as CFDictionary, nil), errSecSuccess)
        let forced: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice",
                                     kSecReturnData as String: kCFBooleanTrue!, kSecMatchLimit as String: kSecMatchLimitOne]
        var item: AnyObject?
        XCTAssertEqual(SecItemCopyMatching(forced as CFDictionary, &item), errSecSuccess)
        XCTAssertEqual(item as? Data, secret)
        // As some code writes it: the implicitly unwrapped value put in `Any` (an Optional inside).
        let wrapped: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice",
                                      kSecReturnData as String: kCFBooleanTrue as Any]
        item = nil
        XCTAssertEqual(SecItemCopyMatching(wrapped as CFDictionary, &item), errSecSuccess)
        XCTAssertEqual(item as? Data, secret)
        let keyed = [kSecClass: kSecClassGenericPassword, kSecAttrAccount: "alice", kSecReturnData: kCFBooleanTrue!] as [CFString: Any]
        item = nil
        XCTAssertEqual(SecItemCopyMatching(keyed as CFDictionary, &item), errSecSuccess)
        XCTAssertEqual(item as? Data, secret)
        // kCFBooleanFalse asks for nothing back: the item is found, no data is returned.
        let noData: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice",
                                     kSecReturnData as String: kCFBooleanFalse!]
        item = nil
        XCTAssertEqual(SecItemCopyMatching(noData as CFDictionary, &item), errSecSuccess)
        XCTAssertNil(item)
        XCTAssertEqual(CFGetTypeID(kCFBooleanTrue), CFBooleanGetTypeID())
        XCTAssertEqual(kCFBooleanTrue as? Bool, true)
        XCTAssertEqual(kCFBooleanFalse as? Bool, false)
    }

    /// A mutable CFData built, read and trimmed with the CF functions, as key-export code does
    /// (strip a header with CFDataDeleteBytes, read with CFDataGetBytePtr/GetLength).
    func testMutableDataFunctions() {
        let data = CFDataCreateMutable(kCFAllocatorDefault, 0)!
        XCTAssertEqual(CFDataGetLength(data), 0)
        let header: [UInt8] = [0x30, 0x82, 0x01, 0x22]
        let body: [UInt8] = Array(0..<40)
        CFDataAppendBytes(data, header, header.count)
        CFDataAppendBytes(data, body, body.count)
        XCTAssertEqual(CFDataGetLength(data), 44)
        XCTAssertEqual(Array(UnsafeBufferPointer(start: CFDataGetBytePtr(data), count: CFDataGetLength(data))), header + body)
        CFDataDeleteBytes(data, CFRangeMake(0, header.count))
        XCTAssertEqual(data as Data, Data(body))
        var middle = [UInt8](repeating: 0, count: 4)
        CFDataGetBytes(data, CFRange(location: 10, length: 4), &middle)
        XCTAssertEqual(middle, [10, 11, 12, 13])
        CFDataReplaceBytes(data, CFRangeMake(0, 2), [0xaa], 1)
        XCTAssertEqual(Array((data as Data).prefix(3)), [0xaa, 2, 3])
        CFDataSetLength(data, 3)
        XCTAssertEqual(data as Data, Data([0xaa, 2, 3]))
        CFDataGetMutableBytePtr(data)[0] = 0x55
        XCTAssertEqual(data as Data, Data([0x55, 2, 3]))
        let copy = CFDataCreate(nil, [1, 2, 3], 3)!
        XCTAssertEqual(copy as Data, Data([1, 2, 3]))
        XCTAssertNil(CFDataGetBytePtr(CFDataCreateMutable(nil, 0)), "an empty CFData has no byte pointer (CF returns NULL)")
        // Security's results are CFData: SecCertificateCopyData's bytes read the same way.
        XCTAssertEqual(CFDataGetLength(CFDataCreateCopy(nil, copy)), 3)
    }

    /// CFDictionaryGetValue with a CF object's pointer as the key, as Security code unpacks
    /// attribute dictionaries; the value comes back as a pointer to the same object.
    func testDictionaryGetValueByPointer() {
        let attributes = [kSecAttrLabel as String: "my key", kSecAttrKeySizeInBits as String: 2048] as CFDictionary
        XCTAssertEqual(CFDictionaryGetCount(attributes), 2)
        let pointer = CFDictionaryGetValue(attributes, unsafeBitCast(kSecAttrLabel, to: UnsafeRawPointer.self))!
        let label = Unmanaged<CFString>.fromOpaque(pointer).takeUnretainedValue()
        XCTAssertEqual(label as String, "my key")
        XCTAssertTrue(CFDictionaryContainsKey(attributes, Unmanaged.passUnretained(kSecAttrKeySizeInBits).toOpaque()))
        XCTAssertFalse(CFDictionaryContainsKey(attributes, Unmanaged.passUnretained(kSecAttrAccount).toOpaque()))
        XCTAssertNil(CFDictionaryGetValue(attributes, Unmanaged.passUnretained(kSecAttrAccount).toOpaque()))
    }

    /// The CFArray walk PKCS#12 code writes: count, the value at an index as a pointer, the pointer
    /// bit-cast back to a CFDictionary and read with CFDictionaryGetValue.
    func testArrayGetCountAndValueAtIndex_asPKCS12CodeWalksItems() {
        let items = [[kSecAttrLabel as String: "first"], [kSecAttrLabel as String: "second"]] as CFArray
        XCTAssertEqual(CFArrayGetCount(items), 2)
        let second = unsafeBitCast(CFArrayGetValueAtIndex(items, 1), to: CFDictionary.self)
        let label = CFDictionaryGetValue(second, unsafeBitCast(kSecAttrLabel, to: UnsafeRawPointer.self))!
        XCTAssertEqual(Unmanaged<CFString>.fromOpaque(label).takeUnretainedValue() as String, "second")
        let first = Unmanaged<CFDictionary>.fromOpaque(CFArrayGetValueAtIndex(items, 0)).takeUnretainedValue()
        XCTAssertEqual(first[kSecAttrLabel as String] as? String, "first")
        XCTAssertEqual(CFArrayGetCount([] as CFArray), 0)
    }

    /// CFDataCreateWithBytesNoCopy with kCFAllocatorNull (the "do not free" deallocator) holds the
    /// caller's bytes; here they are copied, so reusing the buffer afterwards changes nothing.
    func testDataCreateWithBytesNoCopy_holdsTheBytes() {
        var buffer: [UInt8] = [9, 8, 7, 6]
        let data = buffer.withUnsafeBufferPointer { CFDataCreateWithBytesNoCopy(kCFAllocatorDefault, $0.baseAddress, 4, kCFAllocatorNull)! }
        buffer[0] = 0
        XCTAssertEqual(data as Data, Data([9, 8, 7, 6]))
        XCTAssertEqual(CFDataGetLength(data), 4)
        XCTAssertNotNil(kCFAllocatorNull)
    }

    func testStringsTimeAndErrors() {
        XCTAssertEqual(CFStringCreateWithCString(nil, "héllo", CFStringEncoding(kCFStringEncodingUTF8)) as String?, "héllo")
        XCTAssertNil(CFStringCreateWithCString(nil, "héllo", kCFStringEncodingASCII), "not ASCII")
        XCTAssertEqual(CFStringGetLength("abc" as CFString), 3)
        // CF's clock counts from 2001-01-01: the same instant as Foundation's, in CF's epoch.
        let before = Date().timeIntervalSince1970
        let now = CFAbsoluteTimeGetCurrent() + kCFAbsoluteTimeIntervalSince1970
        let after = Date().timeIntervalSince1970
        XCTAssertTrue(before <= now && now <= after, "\(before) ≤ \(now) ≤ \(after)")
        XCTAssertEqual(kCFAbsoluteTimeIntervalSince1970, Date(timeIntervalSinceReferenceDate: 0).timeIntervalSince1970)
        // A Security CFError through an Unmanaged out-parameter, read back with the CF functions.
        var error: Unmanaged<CFError>?
        XCTAssertNil(SecKeyCreateWithData(Data([1, 2, 3]) as CFData,
                                          [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: kSecAttrKeyClassPublic] as CFDictionary, &error))
        let cfError = error!.takeRetainedValue()
        XCTAssertEqual(CFErrorGetCode(cfError), Int(errSecParam))
        XCTAssertEqual(CFErrorGetDomain(cfError) as String?, kCFErrorDomainOSStatus)
        XCTAssertFalse((CFErrorCopyDescription(cfError) as String? ?? "").isEmpty)
    }
}
