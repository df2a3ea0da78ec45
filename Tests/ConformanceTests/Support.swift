import Foundation
import Conformance
import PythonBridge
import RoundTrip
import WireCrypto

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
/// This checkout's PythonRef/ and Vectors/, found without searching.
let checkoutFiles = ProjectFiles(checkout: URL(fileURLWithPath: repositoryRoot))

func pythonPeer() throws -> PythonPeer {
    PythonPeer(interpreter: try PythonInterpreter.shared(pythonRefDirectory: checkoutFiles.pythonRef.path))
}

/// Runs the roundtrip suite with `swift` standing in for the Swift side, filtered.
func runRoundTrip(swift: CryptoPeer, filter: String?, seed: UInt64 = 11) throws -> [CheckResult] {
    let context = SuiteContext(swift: swift, python: try pythonPeer(), seed: seed, files: checkoutFiles)
    let runner = Runner(filter: filter)
    return runner.run(runner.selected(RoundTripSuite.checks(context)))
}

extension CheckResult {
    var failed: Bool {
        switch outcome { case .failed, .error: return true; default: return false }
    }
    var message: String {
        switch outcome {
        case let .failed(message, _), let .error(message, _): return message
        case let .skipped(reason): return reason
        case .passed: return ""
        }
    }
}

/// A Swift side with one planted flaw, everything else delegated to the real `SwiftPeer`.
/// Deliberately wrong: used only to prove the suites catch such flaws.
struct DeliberatelyBrokenSwiftPeer: DelegatingPeer {
    enum Flaw { case oaepSHA256WithMGF1SHA1, cbcWithZeroIV, gcmDropsAAD }
    let flaw: Flaw
    let real: CryptoPeer = SwiftPeer()

    func rsaEncrypt(publicKey: Data, padding: RSAEncryptionPadding, plaintext: Data) throws -> Data {
        try real.rsaEncrypt(publicKey: publicKey, padding: brokenPadding(padding), plaintext: plaintext)
    }
    func rsaDecrypt(privateKey: Data, passphrase: Data?, padding: RSAEncryptionPadding, ciphertext: Data) throws -> Data {
        try real.rsaDecrypt(privateKey: privateKey, passphrase: passphrase, padding: brokenPadding(padding), ciphertext: ciphertext)
    }
    func cbcEncrypt(key: Data, iv: Data, plaintext: Data) throws -> Data {
        try real.cbcEncrypt(key: key, iv: flaw == .cbcWithZeroIV ? Data(count: 16) : iv, plaintext: plaintext)
    }
    func sealEnvelope(key: Data, plaintext: Data, iv: Data?) throws -> Data {
        guard flaw == .cbcWithZeroIV else { return try real.sealEnvelope(key: key, plaintext: plaintext, iv: iv) }
        // Encrypts under a zero IV but announces a random one, as a buggy client would.
        let ciphertext = try real.cbcEncrypt(key: key, iv: Data(count: 16), plaintext: plaintext)
        return CBCEnvelope(ciphertext: ciphertext, iv: iv ?? AESCBC.randomIV()).jsonData
    }
    func aeadSeal(_ algorithm: AEADAlgorithm, key: Data, plaintext: Data, nonce: Data?, aad: Data?) throws -> Data {
        try real.aeadSeal(algorithm, key: key, plaintext: plaintext, nonce: nonce, aad: flaw == .gcmDropsAAD ? nil : aad)
    }
    func aeadOpen(_ algorithm: AEADAlgorithm, key: Data, combined: Data, aad: Data?) throws -> Data {
        try real.aeadOpen(algorithm, key: key, combined: combined, aad: flaw == .gcmDropsAAD ? nil : aad)
    }

    private func brokenPadding(_ padding: RSAEncryptionPadding) -> RSAEncryptionPadding {
        guard flaw == .oaepSHA256WithMGF1SHA1, padding == .oaepSHA256 else { return padding }
        return .oaep(hash: .sha256, mgf1: .sha1)
    }
}
