import Foundation
import Conformance
import WireCrypto

/// What an aes-https server handed out during a run, for the reuse checks: response IVs must be
/// fresh (a repeat, or the request's own IV sent back, fails: CBC under a repeated IV shows which
/// messages share a prefix), each login should get its own `encryptionKey` (one key for every
/// session is an audit weakness), and tokens should be long and unpredictable (audit).
final class ReuseLedger {
    struct Exchange {
        let requestIV: Data
        let responseIV: Data
        let step: String
    }

    struct Login {
        let token: String
        let encryptionKey: String
        let step: String
    }

    private(set) var exchanges: [Exchange] = []
    private(set) var logins: [Login] = []

    func recordExchange(requestIV: Data, responseIV: Data, step: String) {
        exchanges.append(Exchange(requestIV: requestIV, responseIV: responseIV, step: step))
    }

    func recordLogin(token: String, encryptionKey: String, step: String) {
        logins.append(Login(token: token, encryptionKey: encryptionKey, step: step))
    }

    /// The verdict on response IVs: a failure when one repeats or echoes the request's (the
    /// request IVs are fresh, so an echo shows up as an echo and never as a repeat).
    func ivOutcome() -> CheckOutcome {
        guard exchanges.count >= 2 else {
            return .skipped(reason: "not run: fewer than two encrypted responses came back (\(exchanges.count)), so response IVs cannot be compared")
        }
        var problems: [String] = []
        let echoed = exchanges.filter { $0.requestIV == $0.responseIV }
        if let example = echoed.first {
            problems.append("IV echoed: \(echoed.count) of \(exchanges.count) responses reuse the request's own IV (e.g. \(example.responseIV.hexString) in \(example.step)) — a response needs its own fresh random IV")
        }
        let repeated = Dictionary(grouping: exchanges, by: \.responseIV).filter { $0.value.count > 1 }
        if let (iv, group) = repeated.max(by: { $0.value.count < $1.value.count }) {
            problems.append("IV repeated: the response IV \(iv.hexString) came back in \(group.count) of \(exchanges.count) responses (\(Set(group.map(\.step)).sorted().joined(separator: ", "))) — CBC under a repeated IV shows which messages share a first block")
        }
        guard !problems.isEmpty else { return .passed }
        let table = exchanges.map { "\($0.step): request IV \($0.requestIV.hexString) → response IV \($0.responseIV.hexString)" }.joined(separator: "\n")
        return .failed(message: problems.joined(separator: "; "), details: table)
    }

    /// `encryptionKey` reused across logins (audit).
    func keyFinding() -> (weak: Bool, message: String) {
        let keys = logins.map(\.encryptionKey)
        let distinct = Set(keys).count
        if distinct < keys.count {
            return (true, "encryptionKey reused: \(keys.count) logins got \(distinct == 1 ? "the same key" : "only \(distinct) different keys") — one key for every session means one leaked key exposes them all; hand every login a fresh random key")
        }
        return (false, "every login got its own encryptionKey (\(keys.count) logins)")
    }

    /// Token length and an estimate of its entropy across the logins (audit): the positions that
    /// vary between tokens times the bits per character of the smallest usual alphabet holding
    /// every character seen. Below 64 bits (OWASP's minimum for a session identifier), a counter,
    /// or one token for two logins is a weak token.
    func tokenFinding() -> (weak: Bool, message: String) {
        let tokens = logins.map(\.token)
        guard tokens.count >= 2 else { return (false, "tokens: fewer than two logins to compare") }
        let examples = tokens.prefix(3).map { "\"\($0.prefix(40))\"" }.joined(separator: ", ")
        if Set(tokens).count < tokens.count {
            return (true, "weak token: \(tokens.count) logins got only \(Set(tokens).count) different tokens (\(examples))")
        }
        let numbers = tokens.compactMap { UInt64($0) }
        if numbers.count == tokens.count, let low = numbers.min(), let high = numbers.max(), high - low < UInt64(1000 * tokens.count) {
            return (true, "weak token: the tokens are a counter (\(examples), …): the next session's token is guessable")
        }
        let estimate = TokenEntropy(tokens)
        let description = "\(estimate.lengths) characters of a \(estimate.alphabet.name) alphabet (\(String(format: "%.1f", estimate.alphabet.bitsPerCharacter)) bits each), \(estimate.varyingPositions) positions varying across \(tokens.count) logins: about \(Int(estimate.bits)) bits"
        if estimate.bits < TokenEntropy.minimumBits {
            return (true, "weak token: \(description), below the \(Int(TokenEntropy.minimumBits)) bits a session identifier needs (OWASP) — e.g. \(examples)")
        }
        return (false, "tokens: \(description)")
    }
}

/// A rough upper bound on a token's entropy from a few samples: it cannot tell a random token from
/// a well-disguised predictable one, but short, narrow or mostly constant tokens show.
struct TokenEntropy {
    static let minimumBits = 64.0

    struct Alphabet {
        let name: String
        let characters: Set<Character>
        var bitsPerCharacter: Double { log2(Double(characters.count)) }
    }

    static let alphabets: [Alphabet] = {
        let digits = "0123456789", lower = "abcdefghijklmnopqrstuvwxyz", upper = lower.uppercased()
        return [
            Alphabet(name: "decimal", characters: Set(digits)),
            Alphabet(name: "lowercase hex", characters: Set(digits + "abcdef")),
            Alphabet(name: "uppercase hex", characters: Set(digits + "ABCDEF")),
            Alphabet(name: "lowercase alphanumeric", characters: Set(digits + lower)),
            Alphabet(name: "uppercase alphanumeric", characters: Set(digits + upper)),
            Alphabet(name: "alphanumeric", characters: Set(digits + lower + upper)),
            Alphabet(name: "base64url", characters: Set(digits + lower + upper + "-_")),
            Alphabet(name: "base64", characters: Set(digits + lower + upper + "+/=")),
            Alphabet(name: "printable ASCII", characters: Set((0x20...0x7e).map { Character(UnicodeScalar(UInt8($0))) })),
        ]
    }()

    let alphabet: Alphabet
    let varyingPositions: Int
    let lengths: String
    var bits: Double { Double(varyingPositions) * alphabet.bitsPerCharacter }

    init(_ tokens: [String]) {
        let seen = Set(tokens.joined())
        alphabet = Self.alphabets.first { seen.isSubset(of: $0.characters) }
            ?? Alphabet(name: "\(seen.count)-character", characters: seen)
        let characters = tokens.map(Array.init)
        let shortest = characters.map(\.count).min() ?? 0
        let longest = characters.map(\.count).max() ?? 0
        let varying = (0..<shortest).filter { index in Set(characters.map { $0[index] }).count > 1 }.count
        varyingPositions = varying + (longest - shortest)
        lengths = shortest == longest ? "\(shortest)" : "\(shortest)–\(longest)"
    }
}
