import Foundation

/// How a `concat`'s parts lie in its bytes: the one rule every reader of one uses (a party receiving
/// it, `remote` changing one part of it). Every part has a length fixed by the description
/// (`ProtocolDescription.fixedLength`), or one told by the `length_of = "next"` just before it (a
/// length prefix inside the message: ProPorygon/TheOgreProtocol's `send('r')` then
/// `struct.pack("!I", len(ct)) + ct`), or is the one part left, which takes what the parts after it
/// leave (none of them told).
public enum DescribedConcat {
    /// The pieces of `body`, one per part, or nil when it cannot be taken apart so.
    public static func split(_ parts: [DescribedValue], _ body: Data, fixedLength: (DescribedValue) -> Int?) -> [Data]? {
        let bytes = [UInt8](body)
        var pieces: [Data] = []
        var offset = 0
        var told: Int?
        for (index, part) in parts.enumerated() {
            let size: Int
            if let length = told {
                if let fixed = fixedLength(part), fixed != length { return nil }  // told otherwise than it is
                size = length
            } else if let length = fixedLength(part) {
                size = length
            } else {
                // The part left: what the later parts' fixed lengths leave (a told part after it cannot be placed).
                var later = 0
                for after in parts[(index + 1)...] {
                    guard !after.isLengthOfNext, let length = fixedLength(after) else { return nil }
                    later += length
                }
                size = bytes.count - offset - later
            }
            told = nil
            guard size >= 0, offset + size <= bytes.count else { return nil }
            let piece = Array(bytes[offset..<(offset + size)])
            if part.isLengthOfNext { told = piece.reduce(0) { $0 << 8 | Int($1) } }
            pieces.append(Data(piece))
            offset += size
        }
        return offset == bytes.count && told == nil ? pieces : nil
    }

    /// `pieces` one after another, each `length_of = "next"` piece written as the length of the piece
    /// after it, big-endian in its `bytes`; nil when one does not fit.
    public static func join(_ parts: [DescribedValue], _ pieces: [Data]) -> Data? {
        var out = Data()
        for (index, (part, piece)) in zip(parts, pieces).enumerated() {
            guard case let .lengthOfNext(bytes) = part.kind else { out += piece; continue }
            guard index + 1 < pieces.count, pieces[index + 1].count < 1 << (8 * bytes) else { return nil }
            let count = pieces[index + 1].count
            out += Data((0..<bytes).reversed().map { UInt8(truncatingIfNeeded: count >> (8 * $0)) })
        }
        return out
    }
}

extension DescribedValue {
    /// A `length_of = "next"`: the length of the concat's next part.
    public var isLengthOfNext: Bool { if case .lengthOfNext = kind { return true }; return false }
    /// A `mac` with `of = "previous"`: in a concat, over the bytes of the part before it, as sent
    /// (wenyupeng/securex: nonce ‖ GCM ciphertext ‖ tag, then its HMAC-SHA256).
    public var isMACOfPrevious: Bool { if case let .mac(_, _, of, _) = kind { return of == "previous" }; return false }
}
