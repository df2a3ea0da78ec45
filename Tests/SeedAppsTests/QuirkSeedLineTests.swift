import Foundation
import XCTest
import WireProtocol

/// Every wire quirk the seed-app clients model names the seed code it comes from; that code must
/// be in the seed (the extracts cut from the seed documents), so a modelled behaviour cannot
/// drift into something the app never did. Whitespace is ignored: seed 001's page runs its code
/// together on one line.
final class QuirkSeedLineTests: XCTestCase {
    static let extracts = VerbatimTests.root.appendingPathComponent("Tests/SeedAppsTests/Extracts")

    /// The seed's code, all extracts of it joined, without whitespace.
    func code(ofSeed seed: String) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.extracts.path).filter { $0.hasPrefix("seed\(seed)-") }
        XCTAssertFalse(names.isEmpty, "no extracts of seed \(seed)")
        return try names.map { try String(contentsOf: Self.extracts.appendingPathComponent($0), encoding: .utf8) }
            .joined().filter { !$0.isWhitespace }
    }

    func testEveryQuirkNamesCodeTheSeedHas() throws {
        XCTAssertEqual(SeedQuirk.all.count, Set(SeedQuirk.all.map(\.name)).count, "each quirk once")
        for quirk in SeedQuirk.all {
            let parts = quirk.seedLine.components(separatedBy: ": ")
            guard parts.count > 1, parts[0].hasPrefix("seed "), parts[0].count == "seed 000".count else {
                XCTFail("\(quirk.name): seedLine must start `seed NNN: `, not \(quirk.seedLine)"); continue
            }
            let seedCode = try code(ofSeed: String(parts[0].dropFirst("seed ".count)))
            let fragments = parts.dropFirst().joined(separator: ": ")
                .components(separatedBy: "…").flatMap { $0.components(separatedBy: "; ") }
                .map { $0.filter { !$0.isWhitespace } }.filter { $0.count > 2 }
            XCTAssertFalse(fragments.isEmpty, "\(quirk.name): no code in \(quirk.seedLine)")
            for fragment in fragments {
                XCTAssertTrue(seedCode.contains(fragment), "\(quirk.name): `\(fragment)` is not in seed \(parts[0])'s code")
            }
        }
    }

    /// The check can fail: a fragment the seed does not have is reported.
    func testACodeFragmentNotInTheSeedIsNoticed() throws {
        XCTAssertFalse(try code(ofSeed: "000").contains("SecKeyDecrypt(privateKey!,SecPadding.OAEP"))
    }
}
