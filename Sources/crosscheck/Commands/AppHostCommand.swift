import Foundation
import AppHost
import CommandLineKit
import SeedApps

/// `crosscheck app-host SEED`: one seed app served over the host protocol on stdin/stdout, in a
/// process of its own, as a team's app is (`crosscheck run` starts it in the app's container, so
/// what the seed's code writes lands where the key-storage audit can read it).
struct AppHostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "app-host", abstract: "Serve one seed app over the host protocol on stdin/stdout (crosscheck run starts this; not for direct use).",
        synopsis: ["SEED"],
        discussion: "The seed app's own code runs in this process; requests come on stdin and answers go to stdout, one JSON object per line (Sources/AppHost/AppHost.swift); what the app prints goes to stderr.",
        exitCodes: [.success, .usage])

    @Positionals(value: "SEED", help: "the seed app: \(SeedApps.identifiers.joined(separator: ", "))")
    var seeds: [String]
    init() {}

    func validate() throws {
        guard seeds.count == 1, SeedApps.identifiers.contains(seeds[0]) else {
            throw UsageError("app-host takes one seed app: \(SeedApps.identifiers.joined(separator: ", "))")
        }
    }

    func run() throws -> ExitCode {
        guard let app = SeedApps.make(seeds[0]) else { throw UsageError("no seed app \(seeds[0])") }
        AppHostServer.main(app)
    }
}
