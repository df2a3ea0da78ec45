import Foundation
@testable import Remote
import XCTest

/// The binary-safety probes' one-pass classification agrees with the definitions written plainly
/// (docs/PROTOCOL.md "Legacy reading"): over edge cases and 20,000 random ciphertext-like blocks.
final class LineEndHazardsTests: XCTestCase {
    func plainlyBenign(_ data: Data) -> Bool {
        !data.contains(0x0a) && !data.contains(0x0d) && !(data.last.map(isASCIIWhitespace) ?? false)
    }

    func plainlyMatches(_ probe: RemoteRSASocket.BinaryProbe, _ data: Data) -> Bool {
        let crlf = data.firstRange(of: Data([0x0d, 0x0a])) != nil
        let endsInWhitespace = data.last.map(isASCIIWhitespace) ?? false
        switch probe {
        case .crlf: return crlf && !endsInWhitespace
        case .lf: return data.contains(0x0a) && !crlf && !endsInWhitespace
        case .trailingWhitespace: return endsInWhitespace && !data.contains(0x0a) && !data.contains(0x0d)
        }
    }

    func testOnePassAgreesWithThePlainDefinitions() {
        var generator = SystemRandomNumberGenerator()
        let edges: [[UInt8]] = [[], [0x0a], [0x0d], [0x0d, 0x0a], [0x0a, 0x0d], [0x41, 0x0d, 0x0a, 0x41], [0x41, 0x20], [0x41, 0x09],
                                [0x0d, 0x41, 0x0a, 0x41], [0x41, 0x0d], [0x0b], [0x0c, 0x41]]
        // Bytes drawn mostly from the hazards, so every class occurs often.
        let alphabet: [UInt8] = [0x0a, 0x0d, 0x20, 0x09, 0x0b, 0x0c, 0x41, 0x00, 0xff]
        let random = (0..<20_000).map { _ in (0..<Int.random(in: 1...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! } }
        var seen: Set<String> = []
        for bytes in edges + random {
            let data = Data(bytes)
            XCTAssertEqual(isBinaryBenign(data), plainlyBenign(data), "\(bytes)")
            for probe in RemoteRSASocket.BinaryProbe.allCases {
                let matches = probe.matches(data)
                XCTAssertEqual(matches, plainlyMatches(probe, data), "\(probe) \(bytes)")
                if matches { seen.insert(probe.rawValue) }
            }
        }
        XCTAssertEqual(seen.count, RemoteRSASocket.BinaryProbe.allCases.count, "every probe's class occurred")
    }
}
