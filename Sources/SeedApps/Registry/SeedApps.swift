// The seed apps as apps under test: one adapter per seed, each over the seed's own code.
import AppUnderTest
import Seed000App
import Seed001App
import Seed002App
import Seed003App
import Seed004App

public enum SeedApps {
    /// The identifiers, in seed order.
    public static let identifiers = ["seed-000", "seed-001", "seed-002", "seed-003", "seed-004"]

    /// A fresh adapter (its own keychain) for one seed app.
    public static func make(_ identifier: String) -> AppUnderTest? {
        switch identifier {
        case "seed-000": return Seed000Adapter()
        case "seed-001": return Seed001Adapter()
        case "seed-002": return Seed002Adapter()
        case "seed-003": return Seed003Adapter()
        case "seed-004": return Seed004Adapter()
        default: return nil
        }
    }
}
