// crosscheck-bench: ratios measured side by side in one run (`make bench`). Each figure compares
// crosscheck against the baseline it must beat or match, on this machine, now, and says MET or
// NOT MET against its target; the exit status is 1 when one is not met (issue 14):
//   1. one in-process Swift→PythonRef call vs spawning python3 for the same case (≥ 1000×)
//   2. Swift AES-256-GCM sealing 16 KiB vs `openssl speed -evp aes-256-gcm`: into a caller's
//      buffer (≥ 0.95×), through WireCrypto's CryptoKit-shaped `AES.GCM.seal` and through the
//      `CryptoKit` module's, the one app code calls (≥ 0.9× each)
//   3. Swift RSA-2048 private-key decryptions/s vs `openssl speed rsa2048` sign/s (≥ 0.9×)
//   4. rsa-socket conversations per second with the Swift server vs the Python server, the same
//      Swift client, in process and over loopback TCP (≥ 1.0× each)
//   5. a team's own server (examples/pi-server-flask, examples/pi-server-socket) under the remote
//      checks in-process (`run --server`) vs the same checks against the same file served on
//      loopback (`remote`): whole runs per second (issue 20 asks ≥ 10×). aes-https meets it (19× and 18×
//      with runs repeated per round; 19×, 15× and 6× when one run a round was timed): loopback pays a TLS
//      handshake and werkzeug per request, in-process ~1 ms of Flask. It had fallen to 9.2–9.5× once the app
//      ran on its own thread (so a hung app can be cut off); the caller now joins that thread's core for each
//      request (team_host._one_core), 150–180 µs a request back to ~100. rsa-socket does not (0.8–1.6×):
//      profiled, its run is CPU-bound in the checks' own cryptography (ciphertext draws for binary
//      safety, about 5,800 RSA-2048 encryptions a run expected; a client key made per run; the
//      oracle probes) and the server's RSA decryptions, the same code both ways; the harness's
//      thread waits on the server for under a fifth of the run, with one fixed wait (a 0.3 s quiet
//      gap), and a socket-pair connection costs what a loopback one does. Its target is therefore
//      1.0× (issue 31: its measured bound, printed beside it, leaves no room for 10×).
//   8. a described protocol (issue 31) against the built-in one, the same conversations and frames:
//      rsa-socket conversations per second in process, Swift client and Python server, described
//      (protocols/variants/bench-rsa-socket.toml, the plan of 4.) vs built-in; and mutated client
//      messages decided by both engines per second vs the built-in fuzz suite's frames (rsa-socket.encrypted) (≥ 0.8× each)
//   6. CommonCrypto's CC_SHA256 over 16 KiB, as app code calls it, vs `openssl speed -evp sha256` (≥ 0.9×)
//   7. ECDSA P-256 signatures/s and ECDH P-256 agreements/s through WireCrypto's EC keys (what the
//      Security and CryptoKit modules call) vs `openssl speed ecdsap256` / `ecdhp256` (≥ 0.9× each)
//
// Environment: BENCH_SECONDS (per measurement, default 3), BENCH_ROUNDS (alternating rounds, best
// of each side counts, default 3), BENCH_ONLY=bridge,aes,rsa,sessions,teamserver,digest,ec,described (a subset of sections).
// BENCH_LOOP=NAME:COUNT runs one measured operation COUNT times and exits, with no baseline and no
// clock: for `perf record` and `valgrind --tool=callgrind`, whose instruction counts compare two
// versions of the code repeatably on a busy machine. NAMES: aes-seal, aes-into, server-inprocess,
// teamserver-aes (section 5's in-process aes-https run against examples/pi-server-flask).
import Foundation
import Conformance
import PythonBridge
import Remote
import Sessions
import TeamServer
import Transport
import WireCrypto
import CryptoKit
import CommonCrypto
import Described
import Frames
import Fuzzing
import WireProtocol

// It takes no arguments (its settings are the environment's, above): --help says so, and anything
// else is refused rather than silently starting a run of several minutes.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments == ["--help"] || arguments == ["-h"] {
    print("""
        usage: crosscheck-bench   (make bench builds it in release and runs it)
        Measures each speed figure beside its baseline on this machine, now, and prints MET or NOT MET
        against its target; exits 1 when one is not met. Takes no arguments. Environment:
          BENCH_SECONDS=S  seconds per measurement (default 3)
          BENCH_ROUNDS=N   alternating rounds, the best of each side counts (default 3)
          BENCH_ONLY=LIST  sections: bridge,aes,rsa,sessions,teamserver,digest,ec,described
          BENCH_LOOP=NAME:COUNT  one operation COUNT times, no clock (for perf and callgrind): aes-seal,
                           aes-into, server-inprocess, teamserver-aes
        """)
    exit(0)
}
if !arguments.isEmpty {
    FileHandle.standardError.write(Data("crosscheck-bench: takes no arguments, found '\(arguments.joined(separator: " "))' (settings are environment variables: crosscheck-bench --help)\n".utf8))
    exit(64)
}

let environment = ProcessInfo.processInfo.environment
let seconds = Double(environment["BENCH_SECONDS"] ?? "") ?? 3
/// Rounds per figure: crosscheck and its baseline are measured alternately, and each side's best
/// round counts, so a burst of load on this 2-core machine does not decide a ratio.
let rounds = max(1, Int(environment["BENCH_ROUNDS"] ?? "") ?? 3)
let files = ProjectFiles.locate()
let python = "/usr/bin/python3"
let only = Set((environment["BENCH_ONLY"] ?? "").split(separator: ",").map(String.init))
func wanted(_ section: String) -> Bool { only.isEmpty || only.contains(section) }

/// Runs `body` repeatedly for about `duration` seconds; returns operations per second.
func rate(for duration: Double, _ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    var operations = 0
    var elapsed = 0.0
    while elapsed < duration {
        for _ in 0..<8 { try body() }
        operations += 8
        let spent = clock.now - start
        elapsed = Double(spent.components.seconds) + Double(spent.components.attoseconds) / 1e18
    }
    return Double(operations) / elapsed
}

/// Runs a command and returns its standard output (stderr discarded).
func output(_ executable: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

/// The best of `rounds` alternating measurements of each function (in order, round after round).
func bestOf(_ measurements: [() throws -> Double], rounds: Int = rounds) throws -> [Double] {
    var best = [Double](repeating: 0, count: measurements.count)
    for _ in 0..<rounds {
        for (index, measure) in measurements.enumerated() { best[index] = max(best[index], try measure()) }
    }
    return best
}

/// One figure: crosscheck's rate against its baseline, the ratio and the target it must reach.
struct Figure {
    let name: String
    let ours: String
    let baseline: String
    let ratio: Double
    let target: Double

    var met: Bool { ratio >= target }

    func print() {
        Swift.print("""
        \(name)
          crosscheck: \(ours)
          baseline:   \(baseline)
          ratio:      \(String(format: "%.2f", ratio))× (target ≥ \(target)×) \(met ? "MET" : "NOT MET")

        """)
    }
}

var figures: [Figure] = []
@MainActor func record(_ figure: Figure) { figure.print(); figures.append(figure) }

// MARK: the measured operations (also what BENCH_LOOP runs)

/// AES-256-GCM over one 16 KiB message, the two Swift paths. The caller's buffers are plain
/// memory allocated once, as openssl speed's is; the key is WireCrypto's CryptoKit-shaped `SymmetricKey`.
enum AESCase {
    static let size = 16384
    static let key = WireCrypto.SymmetricKey(size: .bits256)
    static let message = Data(repeating: 0x5a, count: size)
    nonisolated(unsafe) static let input: UnsafeMutableRawBufferPointer = {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 64)
        buffer.initializeMemory(as: UInt8.self, repeating: 0x5a)
        return buffer
    }()
    nonisolated(unsafe) static let output = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 64)
    nonisolated(unsafe) static let tag = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 16)

    /// `AES.GCM.seal`: a fresh nonce, a new sealed box (new buffers) per message.
    static func seal() throws { _ = try WireCrypto.AES.GCM.seal(message, using: key) }

    /// The same through the `CryptoKit` module, the API app code calls (a wrapper over the above).
    static let appKey = CryptoKit.SymmetricKey(data: key)
    static func appSeal() throws { _ = try CryptoKit.AES.GCM.seal(message, using: appKey) }

    /// `AEADCore.seal` into the caller's buffers, with a fresh random nonce per message (as a caller must).
    static func sealInto() throws {
        try withUnsafeTemporaryAllocation(byteCount: 12, alignment: 4) { nonce in
            AEADCore.randomNonce(into: nonce)
            try key.withUnsafeBytes { k in
                try AEADCore.seal(.aesGCM, key: k, nonce: UnsafeRawBufferPointer(nonce), plaintext: UnsafeRawBufferPointer(input),
                                  aad: UnsafeRawBufferPointer(start: nil, count: 0), into: output, tag: tag)
            }
        }
    }
}

/// The measured part of a BENCH_LOOP run, after one warm-up call (keys made, caches filled): profile
/// only this with `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*profiledLoop*'`.
@inline(never)
func profiledLoop(_ count: Int, _ body: () throws -> Void) rethrows {
    for _ in 0..<count { try body() }
}

if let loop = environment["BENCH_LOOP"] {
    let parts = loop.split(separator: ":")
    guard parts.count == 2, let count = Int(parts[1]), count > 0 else {
        FileHandle.standardError.write(Data("crosscheck-bench: BENCH_LOOP takes NAME:COUNT (aes-seal, aes-into, server-inprocess, teamserver-aes), not '\(loop)'\n".utf8))
        exit(64)
    }
    switch parts[0] {
    case "aes-seal":
        try AESCase.seal()
        try profiledLoop(count) { try AESCase.seal() }
    case "aes-into":
        try AESCase.sealInto()
        try profiledLoop(count) { try AESCase.sealInto() }
    case "server-inprocess":
        // Swift client → Swift server only: no interpreter, so the server's own cost is what is counted.
        let context = SuiteContext(swift: SwiftPeer(), python: SwiftPeer(), seed: 1, files: files)
        let setup = SessionThroughput.Setup(context: context, options: SessionOptions(factories: [SwiftSessions()]))
        try SessionThroughput.conversations(setup, client: SwiftSessions(), server: SwiftSessions(), count: 1)
        try profiledLoop(count) { try SessionThroughput.conversations(setup, client: SwiftSessions(), server: SwiftSessions(), count: 1) }
    case "teamserver-aes":
        let interpreter = try PythonInterpreter.shared(pythonRefDirectory: files.pythonRef.path)
        let path = files.pythonRef.deletingLastPathComponent().appendingPathComponent("examples/pi-server-flask/app.py").path
        var options = RemoteOptions()
        options.profile = .aesHTTPS
        options.pin = files.tls.appendingPathComponent("pinned.crt.pem").path
        let server = try TeamServer(spec: "\(path):app", searchPath: nil, logPath: "reports/bench-server.log", timeout: 5, interpreter: interpreter)
        options.inProcess = server
        let target = ServerAddress(host: server.name, port: 0)
        _ = RemoteRun.run(target, options: options)
        profiledLoop(count) { _ = RemoteRun.run(target, options: options) }
    default:
        FileHandle.standardError.write(Data("crosscheck-bench: unknown BENCH_LOOP '\(parts[0])' (aes-seal, aes-into, server-inprocess, teamserver-aes)\n".utf8))
        exit(64)
    }
    exit(0)
}

// MARK: 1. Bridge call vs spawning python3 per case. The case: AES-CBC of 32 bytes under a fixed key.
if wanted("bridge") {
    let interpreter = try PythonInterpreter.shared(pythonRefDirectory: files.pythonRef.path)
    let peer = PythonPeer(interpreter: interpreter)
    let key = Data(repeating: 7, count: 16), iv = Data(repeating: 9, count: 16), plaintext = Data(repeating: 1, count: 32)
    let expected = try AESCBC.encrypt(plaintext, key: key, iv: iv)
    guard try peer.cbcEncrypt(key: key, iv: iv, plaintext: plaintext) == expected else { fatalError("bridge result differs") }
    let script = """
    import sys; sys.path.insert(0, sys.argv[1])
    from pythonref.handlers import handle
    r = handle('cbc.encrypt', {'key': b'\\x07'*16, 'iv': b'\\x09'*16, 'plaintext': b'\\x01'*32})
    sys.stdout.write(r['ok'].hex())
    """
    guard try output(python, ["-c", script, files.pythonRef.path]) == expected.hexString else { fatalError("spawned result differs") }
    let callsPerSecond = try rate(for: seconds) { _ = try peer.cbcEncrypt(key: key, iv: iv, plaintext: plaintext) }
    let spawnsPerSecond = try rate(for: seconds) { _ = try output(python, ["-c", script, files.pythonRef.path]) }
    record(Figure(name: "Swift→PythonRef call vs spawning python3 per case (cbc.encrypt, 32 bytes)",
                  ours: String(format: "%.0f calls/s (%.1f µs/call)", callsPerSecond, 1e6 / callsPerSecond),
                  baseline: String(format: "%.1f spawns/s (%.1f ms/spawn)", spawnsPerSecond, 1e3 / spawnsPerSecond),
                  ratio: callsPerSecond / spawnsPerSecond, target: 1000))
}

// MARK: 2. AES-256-GCM sealing 16 KiB. openssl speed encrypts in place in one hot buffer with no
//    per-message set-up (no nonce, no tag), so it is the ceiling. The three are measured in turn,
//    round after round; each one's best round counts.
if wanted("aes") {
    func openSSLSpeed() throws -> Double {
        // -elapsed: wall-clock time, as `rate` measures. Without it openssl divides by its own user
        // CPU time, which a busy core does not lower: with two busy loops beside it, 3,587 MB/s by CPU
        // time against 1,791 MB/s by the clock, one run after the other, where the Swift side's
        // wall-clock rate halves. That asymmetry, not the code, is what failed this figure in stops 51-52.
        let speed = try output("/usr/bin/openssl", ["speed", "-elapsed", "-evp", "aes-256-gcm", "-bytes", String(AESCase.size),
                                                    "-seconds", String(max(1, Int(seconds)))])
        // "AES-256-GCM    3339709.62k": thousands of bytes per second.
        guard let line = speed.split(separator: "\n").last(where: { $0.uppercased().hasPrefix("AES-256-GCM") }),
              let field = line.split(separator: " ").last, let thousands = Double(field.dropLast()) else {
            fatalError("cannot parse openssl speed output:\n\(speed)")
        }
        return thousands * 1000
    }
    let best = try bestOf([
        openSSLSpeed,
        { try rate(for: seconds) { try AESCase.sealInto() } * Double(AESCase.size) },
        { try rate(for: seconds) { try AESCase.seal() } * Double(AESCase.size) },
        { try rate(for: seconds) { try AESCase.appSeal() } * Double(AESCase.size) },
    ])
    let baseline = best[0]
    for (label, bytesPerSecond, target) in [("AEADCore.seal into a caller's buffer", best[1], 0.95),
                                            ("WireCrypto AES.GCM.seal (new sealed box per message)", best[2], 0.9),
                                            ("CryptoKit module's AES.GCM.seal, as app code calls it", best[3], 0.9)] {
        record(Figure(name: "AES-256-GCM seal, 16 KiB messages: \(label) vs openssl speed -evp aes-256-gcm",
                      ours: String(format: "%.0f MB/s", bytesPerSecond / 1e6), baseline: String(format: "%.0f MB/s", baseline / 1e6),
                      ratio: bytesPerSecond / baseline, target: target))
    }
}

// MARK: 3. RSA-2048 private-key operations.
if wanted("rsa") {
    let key = try RSAPrivateKey(bits: 2048)
    let ciphertext = try key.publicKey.encrypt(Data("Secret message from RPi server".utf8), padding: .oaepSHA256)
    func openSSLSigns() throws -> Double {
        // -elapsed, as for AES above (with two busy loops beside it: 1,516 signs/s by CPU time, 575 by the clock).
        let speed = try output("/usr/bin/openssl", ["speed", "-elapsed", "-seconds", String(max(1, Int(seconds))), "rsa2048"])
        // "rsa 2048 bits 0.000401s 0.000032s   2491.0  31572.4": sign/s is the fifth field.
        guard let line = speed.split(separator: "\n").last(where: { $0.hasPrefix("rsa 2048 bits") }),
              case let fields = line.split(separator: " "), fields.count >= 6, let signs = Double(fields[5]) else {
            fatalError("cannot parse openssl speed output:\n\(speed)")
        }
        return signs
    }
    // Two more rounds than the other sections: on a shared VM one RSA round swings by ±15% (the
    // same C loop measured 2,604 and 3,686 decryptions/s back to back), more than the margin here.
    let best = try bestOf([{ try rate(for: seconds) { _ = try key.decrypt(ciphertext, padding: .oaepSHA256) } }, openSSLSigns],
                          rounds: rounds + 2)
    record(Figure(name: "RSA-2048 private-key operations (OAEP-SHA256 decrypt vs openssl speed rsa2048 sign)",
                  ours: String(format: "%.0f decryptions/s", best[0]), baseline: String(format: "%.0f signs/s", best[1]),
                  ratio: best[0] / best[1], target: 0.9))
}

// MARK: 4. Whole rsa-socket conversations per second, the Swift server against the Python server
//    with the same Swift client, in process and over loopback TCP; the Python client's figures too.
if wanted("sessions") {
    let interpreter = try PythonInterpreter.shared(pythonRefDirectory: files.pythonRef.path)
    let peer = PythonPeer(interpreter: interpreter)
    let transports = SessionOptions(factories: [SwiftSessions(), PythonSessions(peer: peer)], inProcess: true, loopback: true)
    defer { transports.servers.shutdown() }
    let context = SuiteContext(swift: SwiftPeer(), python: peer, seed: 1, files: files)
    let setup = SessionThroughput.Setup(context: context, options: transports)
    let swift = SwiftSessions(), pythonSessions = PythonSessions(peer: peer)
    let plan = "phone-to-pi, framed, OAEP-SHA256, RSA-2048, digest"

    let inProcess = try bestOf([
        { try SessionThroughput.inProcess(setup, client: swift, server: swift, seconds: seconds) },
        { try SessionThroughput.inProcess(setup, client: swift, server: pythonSessions, seconds: seconds) },
    ])
    record(Figure(name: "rsa-socket conversations in process (\(plan)): Swift server vs Python server, Swift client",
                  ours: String(format: "%.0f/s", inProcess[0]), baseline: String(format: "%.0f/s", inProcess[1]),
                  ratio: inProcess[0] / inProcess[1], target: 1.0))
    let loopback = try bestOf([
        { try SessionThroughput.loopback(setup, client: swift, serverName: "swift", seconds: seconds) },
        { try SessionThroughput.loopback(setup, client: swift, serverName: "python", seconds: seconds) },
    ])
    record(Figure(name: "rsa-socket conversations over loopback TCP (\(plan)): Swift server vs Python server (its own process), Swift client",
                  ours: String(format: "%.0f/s", loopback[0]), baseline: String(format: "%.0f/s", loopback[1]),
                  ratio: loopback[0] / loopback[1], target: 1.0))
    print("for comparison, the Python client (one round each, no target):")
    print(String(format: "  in-process   python client → swift server: %.0f/s",
                 try SessionThroughput.inProcess(setup, client: pythonSessions, server: swift, seconds: seconds)))
    print(String(format: "  loopback TCP python client → swift server: %.0f/s\n",
                 try SessionThroughput.loopback(setup, client: pythonSessions, serverName: "swift", seconds: seconds)))
}

// MARK: 5. A team's own server: the remote checks in-process vs the same checks over loopback
//    against the same file run as its own process (TLS for aes-https). Whole runs are repeated for
//    about BENCH_SECONDS per round (at least one: an rsa-socket run is seconds long, an in-process
//    aes-https run under 0.1 s, which one run timed alone leaves to the scheduler's noise); every
//    run must pass, or the figure would time different work. Both client profiles, as `run --server`
//    and `remote` run by default.
/// Issue 31: the rsa-socket figure's target is what its measured bound allows, not issue 20's 10×.
/// The bound printed below the figure (the loopback run's time over the least an in-process run
/// spends on the client's own RSA draws, as if all else were free) has been 4.2× to 7.7× on this
/// 2-core machine, the ratio itself 1.2× to 1.8×: 10× is out of reach, and what the same RSA work at
/// both ends does allow is that in-process is no slower than loopback — the claim this target makes.
/// aes-https keeps 10×.
let rsaSocketTeamServerTarget = 1.0
if wanted("teamserver") {
    let interpreter = try PythonInterpreter.shared(pythonRefDirectory: files.pythonRef.path)
    let root = files.pythonRef.deletingLastPathComponent()
    let pin = files.tls.appendingPathComponent("pinned.crt.pem").path
    struct NotPassing: Error, CustomStringConvertible { let description: String }
    /// Seconds of every in-process run spent in the binary-safety testcases: the client's own RSA
    /// encryptions, drawn until a ciphertext holds the hazard (a few thousand a run), which no
    /// transport can make cheaper. What bounds the rsa-socket ratio, printed beside it.
    var clientDrawSeconds: [Double] = []
    func runsPerSecond(_ options: RemoteOptions, _ target: ServerAddress) throws -> Double {
        let start = ContinuousClock.now
        var runs = 0
        var elapsed = 0.0
        repeat {
            let results = RemoteRun.run(target, options: options)
            if let bad = results.first(where: { if case .failed = $0.outcome { return true }; if case .error = $0.outcome { return true }; return false }) {
                throw NotPassing(description: "bench: \(target): \(bad.check.name) did not pass: \(bad.outcome)")
            }
            if options.inProcess != nil, options.profile == .rsaSocket {
                clientDrawSeconds.append(results.filter { $0.check.name.hasPrefix("binary-safety.") }.reduce(0) { $0 + $1.duration })
            }
            runs += 1
            let spent = ContinuousClock.now - start
            elapsed = Double(spent.components.seconds) + Double(spent.components.attoseconds) / 1e18
        } while elapsed < seconds
        return Double(runs) / elapsed
    }
    for (profile, file, spec, serverArguments) in [
        (RemoteOptions.Profile.aesHTTPS, "examples/pi-server-flask/app.py", "app", ["--cert", pin, "--key", files.tls.appendingPathComponent("pinned.key.pem").path]),
        (RemoteOptions.Profile.rsaSocket, "examples/pi-server-socket/server.py", "Handler", []),
    ] {
        let path = root.appendingPathComponent(file).path
        let server = try TeamServer(spec: "\(path):\(spec)", searchPath: nil, logPath: "reports/bench-server.log", timeout: 5, interpreter: interpreter)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [path, "--host", "127.0.0.1", "--port", "0"] + serverArguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        var line = ""
        while !line.contains("\n") {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += String(decoding: chunk, as: UTF8.self)
        }
        guard let port = line.split(separator: "\n").first?.split(separator: " ").last.flatMap({ UInt16($0) }) else {
            throw NotPassing(description: "bench: \(file) printed no LISTENING line: \(line)")
        }
        var options = RemoteOptions()
        options.profile = profile
        options.pin = pin
        var inProcess = options
        inProcess.inProcess = server
        let best = try bestOf([
            { try runsPerSecond(inProcess, ServerAddress(host: server.name, port: 0)) },
            { try runsPerSecond(options, ServerAddress(host: "127.0.0.1", port: port)) },
        ])
        record(Figure(name: "\(profile.rawValue) server checks of a team's server (\(file)): in-process (run --server) vs over loopback (remote, the same file as its own process)",
                      ours: String(format: "%.2f runs/s (%.2f s a run)", best[0], 1 / best[0]),
                      baseline: String(format: "%.2f runs/s (%.2f s a run)", best[1], 1 / best[1]),
                      ratio: best[0] / best[1], target: profile == .rsaSocket ? rsaSocketTeamServerTarget : 10))
        if profile == .rsaSocket, let least = clientDrawSeconds.min() {
            // The least an in-process run spent drawing: the most generous bound.
            print(String(format: "  bound: an in-process run spends at least %.2f s in the binary-safety testcases (the client's own RSA encryptions,\n"
                                 + "  drawn until a ciphertext holds the hazard); were everything else free, the ratio could reach at most %.1f×\n",
                         least, 1 / best[1] / least))
        }
    }
}

// MARK: 6. CC_SHA256 over 16 KiB, into the caller's digest buffer as app code calls it, against
//    openssl speed's SHA-256 over the same block size.
if wanted("digest") {
    let size = 16 * 1024
    let block = [UInt8](repeating: 0x5a, count: size)
    var digest = [UInt8](repeating: 0, count: Int(CC_SHA256_DIGEST_LENGTH))
    func openSSLSpeed() throws -> Double {
        // -elapsed: wall-clock time, as `rate` measures (openssl speed counts user CPU time by
        // default, which on a busy machine is a fraction of the wall time the Swift side is given).
        let speed = try output("/usr/bin/openssl", ["speed", "-elapsed", "-evp", "sha256", "-bytes", String(size),
                                                    "-seconds", String(max(1, Int(seconds)))])
        // "sha256         1336661.33k": thousands of bytes per second.
        guard let line = speed.split(separator: "\n").last(where: { $0.lowercased().hasPrefix("sha256") }),
              let field = line.split(separator: " ").last, let thousands = Double(field.dropLast()) else {
            fatalError("cannot parse openssl speed output:\n\(speed)")
        }
        return thousands * 1000
    }
    let best = try bestOf([
        { rate(for: seconds) { block.withUnsafeBytes { _ = CC_SHA256($0.baseAddress, CC_LONG(size), &digest) } } * Double(size) },
        openSSLSpeed,
    ])
    record(Figure(name: "CC_SHA256 over 16 KiB (CommonCrypto module, as app code calls it) vs openssl speed -evp sha256",
                  ours: String(format: "%.0f MB/s", best[0] / 1e6), baseline: String(format: "%.0f MB/s", best[1] / 1e6),
                  ratio: best[0] / best[1], target: 0.9))
}

// MARK: 7. ECDSA P-256 signing and ECDH P-256. openssl speed signs a 20-byte buffer as a digest and
//    derives with one context set up before its loop; here each operation is a whole call as the
//    Apple modules make it (a context per call, the peer key checked), signing a SHA-256 digest.
//    Wall-clock rates on both sides (-elapsed), as for the digest.
if wanted("ec") {
    let key = try ECPrivateKey(curve: .p256)
    let peer = try ECPrivateKey(curve: .p256).publicKey
    let digest = WireCrypto.Digest.sha256.hash(Data("a message an app signs".utf8))
    guard key.publicKey.isValidSignature(try key.signature(forDigest: digest), forDigest: digest) else { fatalError("ECDSA P-256 does not verify its own signature") }
    func openSSLSpeed(_ algorithm: String, column: Int) throws -> Double {
        let speed = try output("/usr/bin/openssl", ["speed", "-elapsed", "-seconds", String(max(1, Int(seconds))), algorithm])
        // " 256 bits ecdsa (nistp256)   0.0000s   0.0001s  28432.5   9370.7": sign/s is the 7th field;
        // " 256 bits ecdh (nistp256)   0.0001s  15016.7": op/s the 6th.
        guard let line = speed.split(separator: "\n").last(where: { $0.contains("bits") && $0.contains("(nistp256)") }),
              case let fields = line.split(separator: " "), fields.count > column, let rate = Double(fields[column]) else {
            fatalError("cannot parse openssl speed output:\n\(speed)")
        }
        return rate
    }
    let signing = try bestOf([{ try rate(for: seconds) { _ = try key.signature(forDigest: digest) } }, { try openSSLSpeed("ecdsap256", column: 6) }])
    record(Figure(name: "ECDSA P-256 signatures (WireCrypto ECPrivateKey, a SHA-256 digest) vs openssl speed ecdsap256 sign",
                  ours: String(format: "%.0f signs/s", signing[0]), baseline: String(format: "%.0f signs/s", signing[1]),
                  ratio: signing[0] / signing[1], target: 0.9))
    let agreeing = try bestOf([{ try rate(for: seconds) { _ = try key.sharedSecret(with: peer) } }, { try openSSLSpeed("ecdhp256", column: 5) }])
    record(Figure(name: "ECDH P-256 shared secrets (WireCrypto ECPrivateKey.sharedSecret) vs openssl speed ecdhp256",
                  ours: String(format: "%.0f agreements/s", agreeing[0]), baseline: String(format: "%.0f op/s", agreeing[1]),
                  ratio: agreeing[0] / agreeing[1], target: 0.9))
}

// MARK: 8. A described protocol against the built-in one (issue 31): the seed's phone-to-pi in the
//    plan of section 4, as protocols/variants/bench-rsa-socket.toml states it, conversations per
//    second with the Swift engine's client and PythonRef's engine's server in process, vs the
//    built-in machines (Swift client, Python server); and mutated client messages each decided by
//    both engines (the run --protocol suite's mutated-to-server) vs the built-in fuzz suite's frames
//    of rsa-socket.encrypted, each also decided by both implementations.
if wanted("described") {
    let interpreter = try PythonInterpreter.shared(pythonRefDirectory: files.pythonRef.path)
    let peer = PythonPeer(interpreter: interpreter)
    let path = files.pythonRef.deletingLastPathComponent().appendingPathComponent("protocols/variants/bench-rsa-socket.toml").path
    let described = try DescribedThroughput(description: try ProtocolDescription(contentsOfFile: path), path: path,
                                            conversation: "phone-to-pi", interpreter: interpreter)
    let transports = SessionOptions(factories: [SwiftSessions(), PythonSessions(peer: peer)], inProcess: true, loopback: false)
    let context = SuiteContext(swift: SwiftPeer(), python: peer, seed: 1, files: files)
    let setup = SessionThroughput.Setup(context: context, options: transports)
    let conversations = try bestOf([
        { try rate(for: seconds) { try described.conversation(client: "swift", server: "python") } },
        { try SessionThroughput.inProcess(setup, client: SwiftSessions(), server: PythonSessions(peer: peer), seconds: seconds) },
    ])
    record(Figure(name: "rsa-socket conversations in process (phone-to-pi, framed, OAEP-SHA256, RSA-2048, digest), Swift client, Python server: described (protocols/variants/bench-rsa-socket.toml) vs built-in",
                  ours: String(format: "%.0f/s", conversations[0]), baseline: String(format: "%.0f/s", conversations[1]),
                  ratio: conversations[0] / conversations[1], target: 0.8))
    let corpus = try FuzzCorpus(directory: files.frames)
    let oracle = FuzzOracle(swift: SwiftPeer(), python: peer, corpus: corpus)
    let generator = FrameGenerator(corpus: corpus, seed: 1)
    var ordinal = 0
    let frames = try bestOf([
        { try rate(for: seconds) { ordinal += 1; try described.mutatedToServer(ordinal) } },
        { () throws -> Double in
            let count = 400
            let options = FuzzOptions(seed: UInt64(ordinal), frames: count, families: [.encrypted], saveDirectory: nil)
            let start = ContinuousClock.now
            _ = FuzzCampaign(generator: generator, options: options, oracle: oracle.run).run(jobs: count) { (.encrypted, $0) }
            let spent = ContinuousClock.now - start
            return Double(count) / (Double(spent.components.seconds) + Double(spent.components.attoseconds) / 1e18)
        },
    ])
    record(Figure(name: "differential decisions per second: a mutated rsa-socket client message to both engines' servers (described, run --protocol's mutated-to-server) vs a fuzz frame of rsa-socket.encrypted to both implementations (built-in)",
                  ours: String(format: "%.0f messages/s", frames[0]), baseline: String(format: "%.0f frames/s", frames[1]),
                  ratio: frames[0] / frames[1], target: 0.8))
}

let notMet = figures.filter { !$0.met }
print("bench summary:")
for figure in figures {
    print(String(format: "  %@  %.2f× (target ≥ %g×)  %@", figure.met ? "MET    " : "NOT MET", figure.ratio, figure.target, figure.name))
}
print(notMet.isEmpty ? "bench: every target met (\(figures.count) figures)" : "bench: \(notMet.count) of \(figures.count) targets NOT MET")
exit(notMet.isEmpty ? 0 : 1)
