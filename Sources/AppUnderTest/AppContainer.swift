import Foundation
// KeychainItemRecord (StorageFacts.keychainItems) is StorageRecords' type, re-exported: it is part of this module's API.
@_exported import StorageRecords

/// An app's container: the scratch home its own process runs in, with the folders an iOS app
/// has, so what the app writes is observable and crosscheck's own home stays clean. The host's
/// environment points Foundation there: on Linux `FileManager`'s Documents and `NSHomeDirectory()`
/// follow CFFIXED_USER_HOME, Caches follows XDG_CACHE_HOME, Application Support XDG_DATA_HOME,
/// `NSTemporaryDirectory()` TMPDIR, and `UserDefaults.standard` keeps its plist
/// (`<executable>.plist`) in XDG_CONFIG_HOME, here Library/Preferences as on iOS.
public struct AppContainer: Sendable, Equatable {
    /// The folder that holds the container and the app's console log.
    public let folder: URL
    /// What the app ships (files or folders): its executable and its resources, where the
    /// key-storage audit looks for hard-coded keys. Empty: not known (no `bundle` testcase).
    public var bundle: [URL] = []
    /// The app's home.
    public var home: URL { folder.appendingPathComponent("home") }
    public var documents: URL { home.appendingPathComponent("Documents") }
    public var caches: URL { home.appendingPathComponent("Library/Caches") }
    public var preferences: URL { home.appendingPathComponent("Library/Preferences") }
    public var applicationSupport: URL { home.appendingPathComponent("Library/Application Support") }
    public var tmp: URL { home.appendingPathComponent("tmp") }
    /// What the app's process printed (its stderr), kept outside its home.
    public var console: URL { folder.appendingPathComponent("console.log") }
    /// What its Security calls did that their results hide (SecurityEventLog), kept outside its home.
    public var securityEvents: URL { folder.appendingPathComponent("security-events.log") }

    public init(folder: URL) { self.folder = folder.standardizedFileURL }

    /// A fresh container in `folder`: whatever a previous run left there is removed first.
    public static func fresh(in folder: URL) throws -> AppContainer {
        let container = AppContainer(folder: folder)
        let manager = FileManager.default
        if manager.fileExists(atPath: container.folder.path) { try manager.removeItem(at: container.folder) }
        for directory in [container.documents, container.caches, container.preferences, container.applicationSupport, container.tmp] {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        for log in [container.console, container.securityEvents] where !manager.createFile(atPath: log.path, contents: nil) {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: log.path])
        }
        return container
    }

    /// The environment of the app's process: this process's, with its home and folders moved here.
    public func environment(from base: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        var environment = base
        environment["HOME"] = home.path
        environment["CFFIXED_USER_HOME"] = home.path
        environment["XDG_CONFIG_HOME"] = preferences.path
        environment["XDG_CACHE_HOME"] = caches.path
        environment["XDG_DATA_HOME"] = applicationSupport.path
        environment["TMPDIR"] = tmp.path + "/"
        environment[SecurityEventLog.environmentVariable] = securityEvents.path
        return environment
    }

    /// The path of `url` inside the home, as the audit names places ("Documents/key.txt").
    public func relativePath(_ url: URL) -> String {
        let path = url.standardizedFileURL.path, root = home.path + "/"
        return path.hasPrefix(root) ? String(path.dropFirst(root.count)) : path
    }
}

/// A key that crossed between crosscheck and the app: handed to it, or got from it.
public struct KeyMaterial: Equatable, Sendable {
    public let bytes: Data
    /// What it is, for a finding: "the key given to keychain.store", "the private key from rsa-own-key.encrypt".
    public let what: String
    public init(_ bytes: Data, _ what: String) { self.bytes = bytes; self.what = what }
}

/// What the app's process reports about where it keeps things.
public struct StorageFacts: Equatable, Sendable {
    public let keychainItems: [KeychainItemRecord]
    /// Private keys the app exported (SecKeyCopyExternalRepresentation).
    public let exportedPrivateKeys: [Data]
    /// How the simulated user answers the app's prompts in its process (`--app-user`).
    public let simulatedUser: String
    /// How many times the app's process called `LAContext.evaluatePolicy`.
    public let policyEvaluations: Int
    public init(keychainItems: [KeychainItemRecord], exportedPrivateKeys: [Data], simulatedUser: String = "present", policyEvaluations: Int = 0) {
        self.keychainItems = keychainItems; self.exportedPrivateKeys = exportedPrivateKeys; self.simulatedUser = simulatedUser
        self.policyEvaluations = policyEvaluations
    }
}

/// An app in a container of its own, as the key-storage audit reads it. Not an adapter's
/// capability: crosscheck's proxy for a hosted app adopts it when it gave the app a container.
public protocol KeyStorageInspection {
    var container: AppContainer { get }
    /// Every key that crossed between crosscheck and the app so far.
    var keyMaterial: [KeyMaterial] { get }
    /// Asks the app's process to write its defaults to disk (iOS does so by itself) and to report
    /// its keychain items and exported private keys.
    func storageFacts() throws -> StorageFacts
}
