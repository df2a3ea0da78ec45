import Foundation
import AppUnderTest
import Conformance
import WireCrypto

/// `roundtrip.app_to_app`: what an app does with a secret it keeps to itself, where no key crosses
/// for PythonRef to use. `SelfContainedSealing`: the app opens what it sealed, also after later
/// calls (a key made afresh inside each call cannot: the real-world flaw of a helper whose
/// `encrypt(_:)` runs `SymmetricKey(size: .bits256)`), two seals differ, tampered boxes are refused
/// (each with the untampered box as a control), and the box's shape is a CryptoKit combined box.
/// `PasswordStore`: the round trip, update, delete, duplicates and missing items as the app
/// documents them, and, for an app in its container, the keychain item itself (the in-memory
/// keychain's record, not the app's word).
enum AppWithinChecks {
    static let suite = "roundtrip.app_to_app"
    static let relation = "app_to_app"

    // MARK: SelfContainedSealing

    /// What a box is, judged from its length against the plaintext's: a CryptoKit combined box
    /// (12-byte nonce ‖ ciphertext ‖ 16-byte tag), raw or as base64 text, or something else.
    enum BoxShape: Equatable {
        case combined
        case combinedBase64
        case other

        init(_ box: Data, plaintextLength: Int) {
            if box.count == plaintextLength + 28 {
                self = .combined
            } else if let decoded = Self.base64(box), decoded.count == plaintextLength + 28 {
                self = .combinedBase64
            } else {
                self = .other
            }
        }

        static func base64(_ box: Data) -> Data? {
            let text = String(decoding: box, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? nil : Data(base64Encoded: text)
        }

        /// The box's bytes (base64 decoded), to tamper with or compare nonces.
        func bytes(_ box: Data) -> Data { self == .combinedBase64 ? Self.base64(box) ?? box : box }
        /// Bytes back in the app's form.
        func wrap(_ bytes: Data) -> Data { self == .combinedBase64 ? Data(bytes.base64EncodedString().utf8) : bytes }

        var description: String {
            switch self {
            case .combined: return "a CryptoKit combined box (12-byte nonce ‖ ciphertext ‖ 16-byte tag)"
            case .combinedBase64: return "a CryptoKit combined box (12-byte nonce ‖ ciphertext ‖ 16-byte tag) as base64 text"
            case .other: return "not a CryptoKit combined box"
            }
        }
    }

    /// Printable text of `count` characters from the run's seed: such helpers take strings.
    static func text(_ context: SuiteContext, _ count: Int, for name: String) -> Data {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .".utf8)
        return Data(context.bytes(count, for: name).map { alphabet[Int($0) % alphabet.count] })
    }

    static let keyPerCallHint = "an app that makes its key inside each call (SymmetricKey(size: .bits256) in its seal or open function) "
        + "can never open what it sealed: make the key once, keep it (the keychain), and use it in both"

    static func addSelfContainedSealing(_ context: SuiteContext, _ app: AppSubject, _ within: inout Lists) {
        guard let declared = app.read(SelfContainedSealing.self, { $0.boxAlgorithm }) else { return }
        guard ["aes-gcm", "chachapoly", ""].contains(declared) else {
            within.unknown("sealed", "self-sealed", "the app's boxAlgorithm '\(declared)' is neither aes-gcm, chachapoly nor \"\" (another format)")
            return
        }
        let id = app.identifier
        for length in [1, 16, 31, 1027, 65536] {
            let plaintext = text(context, length, for: "\(id).self-sealed.len\(length)")
            within.add("sealed", "self-sealed.len\(length).seal-then-open") {
                let box = try selfSeal(app, plaintext)
                let opened = try selfOpen(app, box) { "\(id) could not open the box it had just sealed (\(plaintext.count) bytes of plaintext): \($0); " + keyPerCallHint }
                try Expect.equalBytes(opened, plaintext, "\(id) opened its own box")
                return .passed
            }
        }
        within.add("sealed", "self-sealed.earlier-box-opens-after-later-calls") {
            let first = text(context, 40, for: "\(id).self-sealed.first")
            let box = try selfSeal(app, first)
            for index in 0..<3 { _ = try selfSeal(app, text(context, 20, for: "\(id).self-sealed.later\(index)")) }
            let opened = try selfOpen(app, box) { "\(id) could not open a box it sealed three seals earlier (\($0)): its key does not outlive the call that sealed; " + keyPerCallHint }
            try Expect.equalBytes(opened, first, "\(id) opened the box it sealed three seals earlier")
            return .passed
        }
        within.add("sealed", "self-sealed.fresh-nonce-per-seal") {
            let plaintext = Data("the same plaintext twice".utf8)
            let first = try selfSeal(app, plaintext), second = try selfSeal(app, plaintext)
            let shape = BoxShape(first, plaintextLength: plaintext.count)
            if shape != .other {
                let (a, b) = (shape.bytes(first).prefix(12), shape.bytes(second).prefix(12))
                guard a != b else {
                    throw CheckFailure("\(id) sealed the same plaintext twice with the same nonce \(a.hexString): "
                                       + "a nonce repeated under one key loses GCM's and ChaChaPoly's confidentiality and authenticity")
                }
            }
            guard first != second else {
                throw CheckFailure("\(id) sealed the same plaintext twice to the same \(first.count)-byte box: a constant nonce or IV, or none",
                                   details: Expect.preview(first))
            }
            return .passed
        }
        // Tampers on the box's bytes (base64 text is decoded first and encoded again), each after
        // the untampered box opened (the control: a refusal means nothing from an app that opens nothing).
        let tampers: [(String, @Sendable (Data) -> Data)] = [
            ("flipped-first-byte", { var c = $0; c[c.startIndex] ^= 0x01; return c }),
            ("flipped-middle-byte", { var c = $0; c[c.startIndex + c.count / 2] ^= 0x80; return c }),
            ("flipped-last-byte", { var c = $0; c[c.endIndex - 1] ^= 0x01; return c }),
            ("truncated-by-one", { $0.dropLast() }),
        ]
        for (name, tamper) in tampers {
            within.add("sealed", "self-sealed.rejects-\(name)") {
                let plaintext = text(context, 64, for: "\(id).self-sealed.tamper")
                let box = try selfSeal(app, plaintext)
                let control = try selfOpen(app, box) { "control: \(id) could not open its own untampered box (\($0)), so refusing a tampered one says nothing; " + keyPerCallHint }
                try Expect.equalBytes(control, plaintext, "control: \(id) opened its own untampered box")
                let shape = BoxShape(box, plaintextLength: plaintext.count)
                let tampered = shape.wrap(tamper(shape.bytes(box)))
                try AppExpect.refuses(app, "its own box with a \(name.replacingOccurrences(of: "-", with: " "))") {
                    try app.with(SelfContainedSealing.self) { try $0.open(tampered) }
                }
                return .passed
            }
        }
        within.add("sealed", "self-sealed.format") {
            let shapes = try [1, 17, 33].map { length -> (Int, Int, BoxShape) in
                let box = try selfSeal(app, text(context, length, for: "\(id).self-sealed.format\(length)"))
                return (length, box.count, BoxShape(box, plaintextLength: length))
            }
            let lengths = shapes.map { "\($0.1) bytes for \($0.0)" }.joined(separator: ", ")
            let recognised = Set(shapes.map(\.2)).count == 1 ? shapes[0].2 : .other
            if declared.isEmpty {
                return .skipped(reason: "format: \(recognised.description) (\(lengths) bytes of plaintext)"
                                + (recognised == .other ? "" : "; declare boxAlgorithm aes-gcm or chachapoly to have it checked as one"))
            }
            guard recognised != .other else {
                throw CheckFailure("\(id) declares \(declared), but its boxes are not CryptoKit combined boxes (12-byte nonce ‖ ciphertext ‖ 16-byte tag, "
                                   + "28 bytes over the plaintext, raw or base64): \(lengths) bytes of plaintext")
            }
            return .passed
        }
    }

    static func selfSeal(_ app: AppSubject, _ plaintext: Data) throws -> Data {
        try AppExpect.succeeds(app, "seal \(plaintext.count) bytes with its own key") { try app.with(SelfContainedSealing.self) { try $0.seal(plaintext) } }
    }

    /// The app opens `box`; its refusal is a failure worded by `failure` (given the app's error),
    /// with what the app printed meanwhile.
    static func selfOpen(_ app: AppSubject, _ box: Data, failure: (Error) -> String) throws -> Data {
        let console = app.consoleMark
        do { return try app.with(SelfContainedSealing.self) { try $0.open(box) } } catch let unreachable as AppUnreachable { throw unreachable } catch {
            throw CheckFailure(failure(error), details: AppExpect.printed(app, since: console))
        }
    }

    // MARK: PasswordStore

    static func addPasswordStore(_ context: SuiteContext, _ app: AppSubject, _ within: inout Lists) {
        guard let (itemClass, onDuplicate, onMissing) = app.read(PasswordStore.self, { ($0.passwordItemClass, $0.passwordOnDuplicate, $0.passwordOnMissing) }) else {
            return
        }
        guard let keychainClass = ["generic": "kSecClassGenericPassword", "internet": "kSecClassInternetPassword"][itemClass],
              ["replaces", "fails"].contains(onDuplicate), ["nil", "fails"].contains(onMissing) else {
            within.unknown("keychain", "password", "the app's password store declares itemClass '\(itemClass)' (generic or internet), "
                           + "onDuplicate '\(onDuplicate)' (replaces or fails), onMissing '\(onMissing)' (nil or fails)")
            return
        }
        let id = app.identifier
        let password = { @Sendable (label: String) -> String in "pw-" + String(decoding: text(context, 24, for: "\(id).password.\(label)"), as: UTF8.self) }
        let account = { @Sendable (label: String) in "crosscheck.\(id).\(label)@example.com" }
        let passwords = [("ascii", password("ascii")), ("non-ascii", "pässwörd-ünïcødé-🔑-" + password("non-ascii")),
                         ("200-characters", String(repeating: password("long"), count: 8).prefix(200).description)]
        for (label, secret) in passwords {
            within.add("keychain", "password.\(itemClass).save-and-read.\(label)") {
                let name = account("save-\(label)")
                try clear(app, name)
                try save(app, secret, name)
                try Expect.equal(try read(app, name), secret, "the password \(id) read back")
                try inKeychain(app, keychainClass, holds: secret, account: name)
                return .passed
            }
        }
        within.add("keychain", "password.\(itemClass).update-replaces") {
            let name = account("update"), (old, new) = (password("update-old"), password("update-new"))
            try clear(app, name)
            try save(app, old, name)
            try AppExpect.succeeds(app, "update the password of \(name)") { try app.with(PasswordStore.self) { try $0.updatePassword(new, account: name) } }
            let read = try read(app, name)
            if read == old { throw CheckFailure("\(id) read back the old password after updatePassword: its update did nothing (a SecItemUpdate query that matches no item, or a status it ignores)") }
            try Expect.equal(read, new, "the password \(id) read after updating it")
            try inKeychain(app, keychainClass, holds: new, account: name, notHolding: old)
            return .passed
        }
        within.add("keychain", "password.\(itemClass).delete-removes") {
            let name = account("delete"), secret = password("delete")
            try clear(app, name)
            try save(app, secret, name)
            try AppExpect.succeeds(app, "delete the password of \(name)") { try app.with(PasswordStore.self) { try $0.deletePassword(account: name) } }
            try expectMissing(app, name, onMissing, after: "deleting it")
            try notInKeychain(app, secret)
            return .passed
        }
        within.add("keychain", "password.\(itemClass).save-over-existing-\(onDuplicate)") {
            let name = account("duplicate"), (first, second) = (password("duplicate-first"), password("duplicate-second"))
            try clear(app, name)
            try save(app, first, name)
            if onDuplicate == "replaces" {
                try save(app, second, name)
                try Expect.equal(try read(app, name), second, "the password \(id) read after saving a second over the first (it documents: replaces)")
            } else {
                do { try app.with(PasswordStore.self) { try $0.savePassword(second, account: name) } } catch let unreachable as AppUnreachable { throw unreachable } catch {
                    try Expect.equal(try read(app, name), first, "the password \(id) read after refusing a second save (it documents: fails)")
                    return .passed
                }
                throw CheckFailure("\(id) documents that saving over an existing password fails (errSecDuplicateItem), but the second save succeeded")
            }
            return .passed
        }
        within.add("keychain", "password.\(itemClass).read-of-an-account-never-saved") {
            try expectMissing(app, account("never-saved"), onMissing, after: "nothing was saved")
            return .passed
        }
        within.add("keychain", "password.\(itemClass).delete-of-an-account-never-saved") {
            let name = account("never-saved-delete")
            do { try app.with(PasswordStore.self) { try $0.deletePassword(account: name) } } catch let unreachable as AppUnreachable { throw unreachable } catch {
                guard onMissing == "fails" else {
                    throw CheckFailure("\(id) documents errSecItemNotFound as no error (onMissing: nil), but deleting an account never saved failed: \(error)")
                }
                return .passed
            }
            if onMissing == "fails" { throw CheckFailure("\(id) documents a missing item as an error (onMissing: fails), but deleting an account never saved succeeded") }
            return .passed
        }
        within.add("keychain", "password.\(itemClass).accounts-are-kept-apart") {
            let (alice, bob) = (account("alice"), account("bob"))
            let (a, b) = (password("alice"), password("bob"))
            try clear(app, alice)
            try clear(app, bob)
            try save(app, a, alice)
            try save(app, b, bob)
            try Expect.equal(try read(app, alice), a, "the password \(id) read for \(alice) after saving another for \(bob) (a query without kSecAttrAccount matches every account)")
            try Expect.equal(try read(app, bob), b, "the password \(id) read for \(bob)")
            return .passed
        }
    }

    /// Deletes whatever an earlier check left under `account` (a missing item is fine either way).
    static func clear(_ app: AppSubject, _ account: String) throws {
        do { try app.with(PasswordStore.self) { try $0.deletePassword(account: account) } } catch let unreachable as AppUnreachable { throw unreachable } catch {}
    }

    static func save(_ app: AppSubject, _ password: String, _ account: String) throws {
        try AppExpect.succeeds(app, "save a password for \(account)") { try app.with(PasswordStore.self) { try $0.savePassword(password, account: account) } }
    }

    static func read(_ app: AppSubject, _ account: String) throws -> String {
        let read = try AppExpect.succeeds(app, "read the password of \(account)") { try app.with(PasswordStore.self) { try $0.readPassword(account: account) } }
        guard let read else { throw CheckFailure("\(app.identifier) read no password (nil) for \(account), where it had saved one") }
        return read
    }

    static func expectMissing(_ app: AppSubject, _ account: String, _ onMissing: String, after: String) throws {
        let read: String?
        do { read = try app.with(PasswordStore.self) { try $0.readPassword(account: account) } } catch let unreachable as AppUnreachable { throw unreachable } catch {
            guard onMissing == "fails" else {
                throw CheckFailure("\(app.identifier) documents errSecItemNotFound as nil (onMissing: nil), but reading \(account) after \(after) failed: \(error)")
            }
            return
        }
        if let read { throw CheckFailure("\(app.identifier) still read a password (\(read.count) characters) for \(account) after \(after)") }
        if onMissing == "fails" { throw CheckFailure("\(app.identifier) documents a missing item as an error (onMissing: fails), but reading \(account) after \(after) gave nil") }
    }

    /// For an app in its container: the in-memory keychain's own record says an item of the
    /// declared class holds the password (and no longer the old one).
    static func inKeychain(_ app: AppSubject, _ keychainClass: String, holds password: String, account: String, notHolding old: String? = nil) throws {
        guard let items = try keychainItems(app) else { return }
        let value = Data(password.utf8)
        guard items.contains(where: { $0.itemClass == keychainClass && $0.value == value }) else {
            let classes = items.filter { $0.value == value }.map(\.itemClass)
            throw CheckFailure("\(app.identifier) reads the password of \(account) back, but no \(keychainClass) item in its keychain holds it"
                               + (classes.isEmpty ? ": it keeps it elsewhere (the audit suite says where)" : " (a \(classes.joined(separator: ", ")) item does)"))
        }
        if let old, items.contains(where: { $0.value == Data(old.utf8) }) {
            throw CheckFailure("\(app.identifier)'s keychain still holds the old password of \(account) after the update")
        }
    }

    static func notInKeychain(_ app: AppSubject, _ password: String) throws {
        guard let items = try keychainItems(app) else { return }
        if let item = items.first(where: { $0.value == Data(password.utf8) }) {
            throw CheckFailure("\(app.identifier) reads nothing back, but a \(item.itemClass) item in its keychain still holds the deleted password")
        }
    }

    static func keychainItems(_ app: AppSubject) throws -> [KeychainItemRecord]? {
        guard app.has((any KeyStorageInspection).self) else { return nil }
        return try app.with((any KeyStorageInspection).self) { try $0.storageFacts().keychainItems }
    }
}
