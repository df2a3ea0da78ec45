// The access-control audit: an app that says it keeps a secret behind the user (kSecAttrAccessControl:
// biometry, passcode, user presence) must store it so, and must not hand it out when the user
// does not authenticate. Two testcases per app with `ProtectedSecretStorage`, in `audit.<app>`:
// `<app>.access-control.declared-flags` (the stored item carries every flag the app declares, read
// from its keychain through `KeyStorageInspection`) and `<app>.access-control.user-refusal` (with
// crosscheck's simulated user answering present, cancel and absent in turn, through
// `SimulatedUserPrompts`: the secret comes back only for present). Failures, not weaknesses: the
// app does not do what it declares.
import Foundation
import AppUnderTest
import Conformance

public enum AccessControlAudit {
    public static let classname = "crosscheck.audit.access-control"
    /// The flags that make the keychain ask the user (Security's SecAccessControlCreateFlags names).
    static let userConstraints: Set<String> = ["userPresence", "biometryAny", "biometryCurrentSet", "devicePasscode", "watch", "applicationPassword"]

    public static func checks(_ context: SuiteContext, apps: [AppSubject]) -> [Check] {
        apps.filter { $0.has((any ProtectedSecretStorage).self) }.flatMap { app in
            let id = app.identifier
            let secret = context.bytes(24, for: "\(id).access-control.secret")
            let name = "crosscheck.audit.access-control"
            func check(_ relation: String, _ body: @escaping @Sendable () throws -> CheckOutcome) -> Check {
                Check(suite: "\(KeyStorageAudit.suiteName).\(id)", classname: classname, name: "\(id).access-control.\(relation)", body: body)
            }
            return [
                check("declared-flags") {
                    let declared: [String]
                    switch try store(app, secret, name) { case let .success(flags): declared = flags; case let .failure(failed): return failed.outcome }
                    guard app.has((any KeyStorageInspection).self) else {
                        return .skipped(reason: "not applicable: the app's keychain can be read only when it runs in a container of its own")
                    }
                    let facts = try app.with((any KeyStorageInspection).self) { try $0.storageFacts() }
                    return verdict(declared: declared, items: facts.keychainItems.filter { $0.value == secret })
                },
                check("user-refusal") {
                    let declared: [String]
                    switch try store(app, secret, name) { case let .success(flags): declared = flags; case let .failure(failed): return failed.outcome }
                    guard !userConstraints.isDisjoint(with: declared) else {
                        return .skipped(reason: "not applicable: the app declares no flag that asks the user (\(declared.joined(separator: "|")))")
                    }
                    guard app.has((any SimulatedUserPrompts).self) else {
                        return .skipped(reason: "not applicable: the simulated user is chosen per read only for an app in a process of its own")
                    }
                    let refusal = try app.with((any SimulatedUserPrompts).self) { prompts in
                        try refusalVerdict(declared: declared, secret: secret) { user in try prompts.readProtectedSecret(name: name, answeredBy: user) }
                    }
                    guard refusal == .passed, app.has((any KeyStorageInspection).self) else { return refusal }
                    let facts = try app.with((any KeyStorageInspection).self) { try $0.storageFacts() }
                    return gateVerdict(declared: declared, facts: facts, secret: secret)
                },
            ]
        }
    }

    struct StoreFailed: Error { let outcome: CheckOutcome }

    /// Gives the app the secret to keep; its declared flags, or the failed outcome when the app
    /// could not keep it (a Security call that fails as on a device: an enclave key exported…).
    static func store(_ app: AppSubject, _ secret: Data, _ name: String) throws -> Result<[String], StoreFailed> {
        do {
            return .success(try app.with((any ProtectedSecretStorage).self) { storage -> [String] in
                try storage.storeProtectedSecret(secret, name: name)
                return storage.declaredAccessControl
            })
        } catch let unreachable as AppUnreachable { throw unreachable } catch {
            return .failure(StoreFailed(outcome: .failed(message: "the app could not keep the secret it was given: \(error)", details: "")))
        }
    }

    /// The item must hold kSecAttrAccessControl whose flags mean at least what the declared ones
    /// mean (compared by meaning, not by name: `.userPresence` is `biometryAny | or | devicePasscode`).
    static func verdict(declared: [String], items: [KeychainItemRecord]) -> CheckOutcome {
        guard let item = items.first else {
            return .failed(message: "the app declares \(declared.joined(separator: "|")) but the secret it was given is in no keychain item", details: "")
        }
        guard let control = item.requested["kSecAttrAccessControl"] else {
            return .failed(message: "the app declares \(declared.joined(separator: "|")) but stored the secret without kSecAttrAccessControl (as \(item.accessible))", details: "")
        }
        // "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, biometryAny|devicePasscode|or"
        let stored = control.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces).split(separator: "|").map(String.init) } ?? []
        if let weaker = weakening(declared: declared, stored: stored) {
            return .failed(message: "the app declares \(declared.joined(separator: "|")) but stored the secret with kSecAttrAccessControl \(control): \(weaker)", details: "")
        }
        return .passed
    }

    /// The flags' meaning: the ways a user may open the item, each a set of factors all required.
    /// Apple's SecAccessControlCreateFlags: `userPresence` is "either biometry or passcode"
    /// (biometryAny or devicePasscode); `.or` lets any one constraint open the item, `.and` (and no
    /// conjunction) needs them all; `biometryCurrentSet` is biometryAny that a change of the
    /// enrolled fingers or faces invalidates, so it is at least as strong.
    static func alternatives(_ flags: [String]) -> [Set<String>] {
        let constraints = flags.filter { userConstraints.contains($0) }
        if constraints.isEmpty { return [[]] }
        let expanded: [[Set<String>]] = constraints.map { $0 == "userPresence" ? [["biometryAny"], ["devicePasscode"]] : [[$0]] }
        if flags.contains("or") { return expanded.flatMap { $0 } }
        // All constraints: one way from each, combined (userPresence keeps its own either/or).
        return expanded.reduce([Set<String>()]) { partial, options in partial.flatMap { way in options.map { way.union($0) } } }
    }

    /// `way` needs every factor `required` needs (biometryCurrentSet stands for biometryAny).
    static func satisfies(_ way: Set<String>, _ required: Set<String>) -> Bool {
        required.allSatisfy { way.contains($0) || ($0 == "biometryAny" && way.contains("biometryCurrentSet")) }
    }

    /// Why the stored flags open the item more easily than the declared ones (nil: they do not):
    /// every way to open the stored item must need at least what some declared way needs; other
    /// flags (privateKeyUsage) must be there by name.
    static func weakening(declared: [String], stored: [String]) -> String? {
        let others = declared.filter { !userConstraints.contains($0) && $0 != "or" && $0 != "and" && !stored.contains($0) }
        if !others.isEmpty { return "\(others.joined(separator: ", ")) missing" }
        let wanted = alternatives(declared)
        let easier = alternatives(stored).filter { way in !wanted.contains { satisfies(way, $0) } }
        guard !easier.isEmpty else { return nil }
        let ways = easier.map { $0.isEmpty ? "no authentication at all" : $0.sorted().joined(separator: " and ") }
        return "it opens with \(ways.joined(separator: "; or with ")), which the declared flags do not allow"
    }

    /// The app refused the secret to a user who did not authenticate — but if it asked
    /// `LAContext.evaluatePolicy` and the secret's item carries no user constraint, the answer of
    /// evaluatePolicy was the only gate: a hooked evaluatePolicy (Frida, objection) returns true and
    /// the keychain hands the secret out. OWASP MASTG-TEST-0266…0271 (event-bound vs
    /// keychain-bound local authentication): bind the secret with kSecAttrAccessControl instead.
    static func gateVerdict(declared: [String], facts: StorageFacts, secret: Data) -> CheckOutcome {
        guard facts.policyEvaluations > 0, let item = facts.keychainItems.first(where: { $0.value == secret }) else { return .passed }
        let control = item.requested["kSecAttrAccessControl"] ?? ""
        let flags = control.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces).split(separator: "|").map(String.init) } ?? []
        guard userConstraints.isDisjoint(with: flags) else { return .passed }
        return .failed(message: "the app declares \(declared.joined(separator: "|")) but the only gate is LAContext.evaluatePolicy (called \(facts.policyEvaluations) time\(facts.policyEvaluations == 1 ? "" : "s")): the secret's keychain item (as \(item.accessible)) asks the user for nothing, so a hooked evaluatePolicy hands it out (MASTG-TEST-0266…0271); bind it with kSecAttrAccessControl", details: "")
    }

    /// The secret comes back when the simulated user authenticates, and only then.
    static func refusalVerdict(declared: [String], secret: Data, read: (String) throws -> Data) throws -> CheckOutcome {
        do {
            let data = try read("present")
            guard data == secret else { return .failed(message: "with the user present the app read back other bytes than the secret it stored", details: "") }
        } catch let unreachable as AppUnreachable { throw unreachable } catch {
            return .failed(message: "with the user present (authenticated) the app could not read its secret: \(error)", details: "")
        }
        for user in ["cancel", "absent"] {
            do {
                _ = try read(user)
                let answer = user == "cancel" ? "canceled the prompt (errSecUserCanceled)" : "failed to authenticate (errSecAuthFailed)"
                return .failed(message: "the app declares \(declared.joined(separator: "|")) but handed out its secret when the user \(answer)", details: "")
            } catch let unreachable as AppUnreachable { throw unreachable } catch {}
        }
        return .passed
    }
}
