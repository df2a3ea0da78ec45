import Foundation
import CommandLineKit
import Conformance
import Remote
import WireCrypto
import WireProtocol

/// How the remote checks talk to a server, declared once for both places they run:
/// `crosscheck remote` (a live server) and `crosscheck run --server` (a team's server in-process).
struct RemoteCheckOptions: ParsableArguments {
    @Option(name: "--client", value: "C", help: "which client talks to the server: reference (crosscheck's, every check and audit: judges the team's server against the protocol), seed-app (the seed apps, the tutorial's iOS apps crosscheck ships in Sources/SeedApps, as they ship: does the server accept that app?) or both")
    var clients = RemoteCommand.Clients.reference
    @Option(name: "--padding", value: "P", help: "auto (find it by trying), pkcs1, oaep-sha1 or oaep-sha256")
    var padding = "auto"
    @Option(name: "--framing", value: "F", help: "legacy (as the tutorials) or framed")
    var framing = Framing.legacy
    @Option(name: "--key-bits", value: "LIST", help: "client key sizes for pi-to-phone, from 1024 to 16384")
    var keyBits = ArgumentList<Int>([2048])
    @Option(name: "--user", value: "NAME:PASSWORD", help: "aes-https account")
    var user = "user:password"
    @Option(name: "--key-mode", value: "M", help: "aes-https key derivation: utf8-zeropad16 or base64-raw (default: inferred)")
    var keyMode: KeyDerivationMode?
    @Option(name: "--timeout", value: "SECONDS", help: "deadline for every connect, read and write, at most 600 (in-process: also how long a handler may outlive its client before it is cut off)")
    var timeout = Seconds(5)
    @Option(name: "--quiet-gap", value: "SECONDS", help: "silence that ends a legacy message (below --timeout)")
    var quietGap = Seconds(0.3)
    init() {}

    /// Any of these given on the command line (`run` takes them only with `--server`).
    /// (`--strict` is each command's own: on `run` it also covers the key-storage audit.)
    var anyGiven: Bool { $clients || $padding || $framing || $keyBits || $user || $keyMode || $timeout || $quietGap }

    func validate() throws {
        if padding != "auto", (try? RSAEncryptionPadding(name: padding)) == nil {
            throw UsageError("--padding takes auto, pkcs1, oaep-sha1 or oaep-sha256, not '\(padding)'")
        }
        if let bits = keyBits.items.first(where: { !(1024...16384).contains($0) }) {
            throw UsageError("--key-bits takes sizes from 1024 to 16384, e.g. 1024,2048, not \(bits)")
        }
        guard user.contains(":") else { throw UsageError("--user takes NAME:PASSWORD, not '\(user)'") }
        guard timeout.value <= 600 else { throw UsageError("--timeout takes seconds above 0 and at most 600, not \(timeout.argumentText)") }
        guard quietGap.value < timeout.value else { throw UsageError("--quiet-gap takes seconds below --timeout (\(timeout.argumentText)), not \(quietGap.argumentText)") }
    }

    /// Sets what these options say in `options`.
    func apply(to options: inout RemoteOptions) {
        options.clients = clients.profiles
        options.padding = padding == "auto" ? nil : try? RSAEncryptionPadding(name: padding)
        options.framing = framing
        options.keyBits = keyBits.items
        let colon = user.firstIndex(of: ":") ?? user.endIndex
        options.username = String(user[..<colon])
        options.password = String(user[user.index(after: colon)...])
        options.keyMode = keyMode
        options.timeout = timeout.value
        options.quietGap = quietGap.value
    }
}
