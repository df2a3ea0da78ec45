// What `import Foundation` brings into a Swift file of an iOS app, and Foundation on Linux does not.
//
// On iOS, Foundation's headers import Security and CoreFoundation, and URLSession with its delegate
// types is in Foundation itself; so app files that import only Foundation use `SecItemAdd`,
// `kSecClass`, `OSStatus`, `CFDictionary`, `SecTrust`, `URLSessionDelegate`,
// `URLAuthenticationChallenge` and `URLCredential(trust:)`. On Linux, URLSession is in
// FoundationNetworking and Security is this package's module. A target that re-exports this module
// once (`@_exported import AppleImplicitImports` in any one of its files) sees those names in every
// file, as an iOS target does. `crosscheck run --app DIR` writes that file into the package it
// builds; a team's own SwiftPM package adds it to its app target (docs/REFERENCE.md, "Bring your own app").
//
// Foundation is re-exported too: an iOS target with a bridging header (React Native, any mixed
// Objective-C app) sees Foundation in every Swift file, even one that imports nothing.
// CommonCrypto and CryptoKit are not here: on iOS a file imports them itself.
@_exported import Foundation
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
@_exported import Security
