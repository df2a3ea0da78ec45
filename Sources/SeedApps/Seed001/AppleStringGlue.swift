// GLUE for seed 001 (the whole file): Apple's behaviour of String.getCString(_:maxLength:encoding:).
//
// On Apple platforms Foundation clamps maxLength to the buffer (min(buffer.count, maxLength)) and,
// for a native Swift string, returns false and leaves the buffer untouched when the string and its
// terminating NUL do not fit. So the seed's 16-byte key buffer with maxLength 17 takes at most 15
// UTF-8 bytes; a key string of 16 bytes or more leaves an all-zero key. swift-corelibs-foundation
// instead truncates to 15 bytes, adds the NUL and returns true, which would make the app use a key
// it does not use on an iPhone. Declared in this module, this shadows Foundation's method for the
// seed's file. @discardableResult: the seed ignores the result (which on iOS is a warning).
import Foundation

extension StringProtocol {
    @discardableResult
    func getCString(_ buffer: inout [CChar], maxLength: Int, encoding: String.Encoding) -> Bool {
        guard let encoded = String(self).data(using: encoding) else { return false }
        guard encoded.count + 1 <= Swift.min(buffer.count, maxLength) else { return false }
        for (index, byte) in encoded.enumerated() { buffer[index] = CChar(bitPattern: byte) }
        buffer[encoded.count] = 0
        return true
    }
}
