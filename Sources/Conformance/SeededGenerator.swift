import Foundation

/// SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", 2014):
/// reproducible plaintexts, keys, IVs and nonces for a given `--seed`. Not for secrets.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func bytes(_ count: Int) -> Data {
        // Each next() word's little-endian bytes, the last one cut short, copied into one buffer:
        // every check's plaintext is made when the suites are built, and appending slices cost a
        // sixth of a short run's time in debug builds.
        var data = Data(count: max(count, 0))
        data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let word = next().littleEndian
                let length = min(8, buffer.count - offset)
                withUnsafeBytes(of: word) { buffer.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: length) }
                offset += length
            }
        }
        return data
    }

    /// A generator for one named check, independent of the order checks are built or run in.
    public static func forCheck(_ name: String, seed: UInt64) -> SeededGenerator {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a over the name, mixed with the seed
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return SeededGenerator(seed: seed ^ hash)
    }
}
