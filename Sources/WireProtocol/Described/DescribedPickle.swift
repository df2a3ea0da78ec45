import Foundation

/// A tuple of ints and strs as CPython's `pickle.dumps(obj, protocol=4)` writes it
/// (Lib/pickle.py `_Pickler`: `save_long`, `save_str`, `save_tuple`, `_Framer`; the opcodes of
/// PEP 3154), for a `pickle = [...]` value (NithinYesudas/Networking_Lab_Python rsa_client.py:
/// `pickle.dumps((e, n, msg))`). Read strictly and without running anything: only the opcodes such a
/// tuple has, under PROTO 4 or 5 (3.8's default and 3.14's: the same opcodes), and only the bytes the
/// writer itself writes for what was read. `pickle.loads` of network bytes runs any code a peer sends;
/// this reader has no opcode that calls or imports.
public enum DescribedPickle {
    public enum Item: Equatable, Sendable {
        /// A non-negative int, as unsigned big-endian bytes without leading zeros (empty for 0).
        case integer(Data)
        case text(String)
    }

    /// CPython commits a frame and writes large strings outside it from 64 KiB (`_FRAME_SIZE_TARGET`).
    public static let maximumPayload = 65535

    enum Opcode {
        static let proto: UInt8 = 0x80, frame: UInt8 = 0x95, stop: UInt8 = 0x2e, memoize: UInt8 = 0x94, mark: UInt8 = 0x28
        static let binint1: UInt8 = 0x4b, binint2: UInt8 = 0x4d, binint: UInt8 = 0x4a, long1: UInt8 = 0x8a, long4: UInt8 = 0x8b
        static let shortBinunicode: UInt8 = 0x8c, binunicode: UInt8 = 0x58, tuple: UInt8 = 0x74
        static let tuples: [UInt8] = [0x85, 0x86, 0x87]  // TUPLE1, TUPLE2, TUPLE3
    }

    /// The pickle of `items` (one or more) with PROTO `proto`; nil when its frame would reach 64 KiB.
    public static func encode(_ items: [Item], proto: UInt8 = 4) -> Data? {
        guard !items.isEmpty else { return nil }
        var body: [UInt8] = []
        if items.count > 3 { body.append(Opcode.mark) }
        for item in items {
            switch item {
            case let .integer(magnitude):
                body += integer([UInt8](magnitude.drop { $0 == 0 }))
            case let .text(text):
                let bytes = Array(text.utf8)
                body += bytes.count < 256 ? [Opcode.shortBinunicode, UInt8(bytes.count)] : [Opcode.binunicode] + littleEndian(bytes.count, 4)
                body += bytes + [Opcode.memoize]
            }
        }
        body += (items.count <= 3 ? [Opcode.tuples[items.count - 1]] : [Opcode.tuple]) + [Opcode.memoize, Opcode.stop]
        guard body.count <= maximumPayload else { return nil }
        return Data([Opcode.proto, proto, Opcode.frame] + littleEndian(body.count, 8) + body)
    }

    /// `save_long` for x ≥ 0 (its big-endian magnitude): BININT1, BININT2, BININT below 2³¹, else
    /// LONG1 or LONG4 of the little-endian two's complement in (bit_length >> 3) + 1 bytes (`encode_long`).
    private static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        if magnitude.count <= 4 {
            let value = magnitude.reduce(0) { $0 << 8 | Int($1) }
            if value <= 0xff { return [Opcode.binint1, UInt8(value)] }
            if value <= 0xffff { return [Opcode.binint2] + littleEndian(value, 2) }
            if value <= 0x7fff_ffff { return [Opcode.binint] + littleEndian(value, 4) }
        }
        let bitLength = (magnitude.count - 1) * 8 + (8 - magnitude[0].leadingZeroBitCount)
        let count = (bitLength >> 3) + 1
        let bytes = Array(magnitude.reversed()) + [UInt8](repeating: 0, count: count - magnitude.count)
        return (count < 256 ? [Opcode.long1, UInt8(count)] : [Opcode.long4] + littleEndian(count, 4)) + bytes
    }

    private static func littleEndian(_ value: Int, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// The items of a pickle `encode` would write exactly so (PROTO 4 or 5), or nil.
    public static func decode(_ data: Data) -> [Item]? {
        let bytes = [UInt8](data)
        guard bytes.count >= 11, bytes[0] == Opcode.proto, bytes[1] == 4 || bytes[1] == 5, bytes[2] == Opcode.frame else { return nil }
        var index = 11
        func take(_ count: Int) -> [UInt8]? {
            guard count >= 0, index + count <= bytes.count else { return nil }
            defer { index += count }
            return Array(bytes[index..<(index + count)])
        }
        func number(_ count: Int) -> Int? { take(count).map { $0.reversed().reduce(0) { $0 << 8 | Int($1) } } }
        var items: [Item] = []
        while index < bytes.count, items.count <= 256 {
            guard let opcode = take(1)?.first else { return nil }
            switch opcode {
            case Opcode.mark where index == 12:
                continue
            case Opcode.binint1: guard let value = number(1) else { return nil }; items.append(.integer(bigEndian(value)))
            case Opcode.binint2: guard let value = number(2) else { return nil }; items.append(.integer(bigEndian(value)))
            case Opcode.binint:
                guard let value = number(4), value <= 0x7fff_ffff else { return nil }  // a negative int: no item here
                items.append(.integer(bigEndian(value)))
            case Opcode.long1, Opcode.long4:
                guard let count = number(opcode == Opcode.long1 ? 1 : 4), count <= maximumPayload, let little = take(count),
                      let top = little.last, top & 0x80 == 0 else { return nil }
                items.append(.integer(Data(little.reversed().drop { $0 == 0 })))
            case Opcode.shortBinunicode, Opcode.binunicode:
                guard let count = number(opcode == Opcode.shortBinunicode ? 1 : 4), count <= maximumPayload, let utf8 = take(count),
                      let text = String(validating: utf8, as: UTF8.self), take(1) == [Opcode.memoize] else { return nil }
                items.append(.text(text))
            case Opcode.tuple, 0x85, 0x86, 0x87:
                // The tuple, its MEMOIZE and STOP end the pickle; the whole must be what encode writes.
                guard take(2) == [Opcode.memoize, Opcode.stop], index == bytes.count, !items.isEmpty,
                      encode(items, proto: bytes[1]) == data else { return nil }
                return items
            default:
                return nil
            }
        }
        return nil
    }

    private static func bigEndian(_ value: Int) -> Data {
        var bytes: [UInt8] = []
        var rest = value
        while rest > 0 { bytes.insert(UInt8(rest & 0xff), at: 0); rest >>= 8 }
        return Data(bytes)
    }
}
