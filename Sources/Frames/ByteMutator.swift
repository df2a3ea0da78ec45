import Foundation
import Conformance

/// Plain random byte mutation ("havoc", as AFL and libFuzzer do it): a few stacked edits of a
/// frame — bit flips, interesting bytes, inserts, deletes, duplicated ranges, splices from another
/// frame, and tokens the formats care about. Deterministic for a given generator state.
enum ByteMutator {
    static let interestingBytes: [UInt8] = [0x00, 0x01, 0x0a, 0x0d, 0x20, 0x22, 0x2b, 0x2d, 0x2f, 0x3d, 0x5c, 0x7b, 0x7d, 0x7f, 0x80, 0xc3, 0xff]
    static let tokens: [Data] = ["\r\n", "\n", "-----", "=", "==", "\"", "\\u0000", "\\ud800", "{}", "[]", "null", "1e400", "-0",
                                 "-----BEGIN ", "-----END ", "PUBLIC KEY-----", "Client: OK", "Quit", "Server: ", "encrypted_message=",
                                 "public_key=", "\u{00e9}", "\u{feff}"].map { Data($0.utf8) }

    /// `data` after 1…8 random edits, never longer than `data.count * 2 + 1024` bytes.
    static func havoc(_ data: Data, donors: [Data], random: inout SeededGenerator) -> Data {
        var bytes = [UInt8](data)
        let limit = data.count * 2 + 1024
        let edits = 1 + Int(random.next() % 8)
        for _ in 0..<edits {
            let choice = random.next() % 10
            switch choice {
            case 0 where !bytes.isEmpty:  // flip one bit
                let index = pick(bytes.count, &random)
                bytes[index] ^= UInt8(1) << UInt8(random.next() % 8)
            case 1 where !bytes.isEmpty:  // an interesting byte
                bytes[pick(bytes.count, &random)] = interestingBytes[pick(interestingBytes.count, &random)]
            case 2 where !bytes.isEmpty:  // a random byte
                bytes[pick(bytes.count, &random)] = UInt8(truncatingIfNeeded: random.next())
            case 3:  // insert random bytes
                let count = 1 + Int(random.next() % 4)
                bytes.insert(contentsOf: (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: pick(bytes.count + 1, &random))
            case 4 where !bytes.isEmpty:  // delete a range
                let start = pick(bytes.count, &random)
                let length = 1 + pick(min(bytes.count - start, 32), &random)
                bytes.removeSubrange(start..<(start + length))
            case 5 where !bytes.isEmpty:  // duplicate a range in place
                let start = pick(bytes.count, &random)
                let length = 1 + pick(min(bytes.count - start, 64), &random)
                bytes.insert(contentsOf: bytes[start..<(start + length)], at: pick(bytes.count + 1, &random))
            case 6 where !bytes.isEmpty:  // truncate
                bytes.removeSubrange(pick(bytes.count, &random)...)
            case 7 where !donors.isEmpty:  // splice: our head, another frame's tail
                let donor = donors[pick(donors.count, &random)]
                let cut = pick(bytes.count + 1, &random)
                let from = pick(donor.count + 1, &random)
                bytes = Array(bytes[..<cut]) + Array(donor[donor.index(donor.startIndex, offsetBy: from)...])
            case 8:  // a token
                let token = tokens[pick(tokens.count, &random)]
                bytes.insert(contentsOf: token, at: pick(bytes.count + 1, &random))
            default:  // add or subtract a small number from a byte (lengths, counters)
                guard !bytes.isEmpty else { continue }
                let index = pick(bytes.count, &random)
                bytes[index] = bytes[index] &+ UInt8(truncatingIfNeeded: Int(random.next() % 9) - 4)
            }
            if bytes.count > limit { bytes.removeSubrange(limit...) }
        }
        return Data(bytes)
    }

    static func pick(_ count: Int, _ random: inout SeededGenerator) -> Int {
        count <= 1 ? 0 : Int(random.next() % UInt64(count))
    }
}

extension SeededGenerator {
    /// A uniformly chosen element (the first of an empty array is a programming error).
    mutating func choose<T>(_ options: [T]) -> T { options[ByteMutator.pick(options.count, &self)] }
    /// True with probability `percent`/100.
    mutating func chance(_ percent: UInt64) -> Bool { next() % 100 < percent }
    mutating func int(in range: ClosedRange<Int>) -> Int { range.lowerBound + ByteMutator.pick(range.count, &self) }
}
