// swift-tools-version:6.0
// crosscheck: a protocol conformance and interop harness for Swift clients of Python servers.
// No package dependencies: the toolchain plus system C libraries (OpenSSL 3, CPython 3.11, libcurl).
//
// This file is the architecture diagram (docs/ARCHITECTURE.md says it in prose). Each layer may
// import only layers above it in this file; C stays behind `internal import` in layers 1–2.
import PackageDescription

/// App code (the seed apps, a team's app) is written in Swift 5 mode.
let swift5: [SwiftSetting] = [.swiftLanguageMode(.v5)]

let package = Package(
    name: "crosscheck",
    products: [
        .executable(name: "crosscheck", targets: ["crosscheck"]),
        // For a team's own package: its app code imports these as it would on iOS.
        .library(name: "CryptoKit", targets: ["CryptoKit"]),
        .library(name: "CommonCrypto", targets: ["CommonCrypto"]),
        .library(name: "Security", targets: ["Security"]),
        .library(name: "LocalAuthentication", targets: ["LocalAuthentication"]),
        // What `import Foundation` brings on iOS (Security, URLSession's delegate types): a target
        // that `@_exported import`s it once sees them in every file (docs/APPLE-MODULES.md).
        .library(name: "AppleImplicitImports", targets: ["AppleImplicitImports"]),
        .library(name: "AppUnderTest", targets: ["AppUnderTest"]),
        // What a team's app package builds against to run under `crosscheck run --app DIR`.
        .library(name: "AppHost", targets: ["AppHost"]),
    ],
    targets: [
        // Layer 0: C libraries from the system (headers found through pkg-config).
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CPython", pkgConfig: "python3-embed", providers: [.apt(["python3-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // Layer 1: one shim per C library, for what Swift cannot call (macros, variadics, C globals).
        .target(name: "COpenSSLShims", dependencies: ["COpenSSL"]),
        .target(name: "CPythonShims", dependencies: ["CPython"]),
        .target(name: "CCurlShims", dependencies: ["CCurl"]),

        // Layer 1½: the strict readers of the protocol's text formats (base64, JSON); Foundation only.
        .target(name: "StrictFormats"),
        // What an app's process records about where it keeps things (a keychain item as stored), shared
        // by Security's in-memory keychain and AppUnderTest's storage facts; Foundation only.
        .target(name: "StorageRecords"),

        // Layer 2: Swift owners of C objects. WireCrypto is the Swift side's crypto over OpenSSL;
        // PythonBridge embeds CPython and runs PythonRef in-process.
        .target(name: "WireCrypto", dependencies: ["StrictFormats", "COpenSSL", "COpenSSLShims"]),
        .target(name: "PythonBridge", dependencies: ["CPython", "CPythonShims"]),
        // Apple's frameworks re-provided over WireCrypto under Apple's names (as swift-corelibs-
        // foundation provides Foundation on Linux), so Swift written for iOS compiles unchanged.
        // docs/APPLE-MODULES.md lists what they cover and where they differ from Apple's.
        .target(name: "CryptoKit", dependencies: ["WireCrypto"]),
        .target(name: "CommonCrypto", dependencies: ["WireCrypto"]),
        .target(name: "Security", dependencies: ["WireCrypto", "StorageRecords"]),
        .target(name: "AppleImplicitImports", dependencies: ["Security"]),
        // The device owner's authentication (LAContext), answered by Security's simulated user.
        .target(name: "LocalAuthentication", dependencies: ["Security"]),

        // Layer 3: the protocols. WireProtocol: sans-I/O session machines (pure). Transport: the
        // operating system's I/O (TCP, name resolution, TLS, HTTP, pinned HTTPS) and the driver
        // that runs a session machine over a socket.
        .target(name: "WireProtocol", dependencies: ["StrictFormats", "WireCrypto"]),
        .target(name: "Transport", dependencies: ["WireProtocol", "WireCrypto", "COpenSSL", "COpenSSLShims", "CCurl", "CCurlShims"]),

        // Layer 4: the conformance core: checks, expectations, the implementations under test (crypto
        // peers, their protocol machines and aes-https roles), runner, suite context, the
        // error-equivalence map.
        .target(name: "Conformance", dependencies: ["StrictFormats", "WireCrypto", "PythonBridge", "WireProtocol"]),

        // Layer 5: one module per capability, each on the core only (and on the layers below).
        .target(name: "RoundTrip", dependencies: ["Conformance", "WireCrypto"]),
        .target(name: "Vectors", dependencies: ["Conformance", "WireCrypto"]),
        .target(name: "Sessions", dependencies: ["StrictFormats", "Conformance", "WireCrypto", "PythonBridge", "WireProtocol", "Transport"]),
        .target(name: "Frames", dependencies: ["Conformance", "WireCrypto", "WireProtocol"]),
        .target(name: "Fuzzing", dependencies: ["StrictFormats", "Conformance", "Frames", "WireCrypto", "PythonBridge", "WireProtocol", "Transport"]),
        .target(name: "Remote", dependencies: ["StrictFormats", "Conformance", "WireCrypto", "PythonBridge", "WireProtocol", "Transport"]),
        .target(name: "Described", dependencies: ["StrictFormats", "Conformance", "WireCrypto", "PythonBridge", "WireProtocol", "Transport"]),
        // `crosscheck ats`: would iOS's App Transport Security allow a connection to this server?
        .target(name: "ATS", dependencies: ["Conformance", "WireCrypto", "Transport"]),
        // A team's own Python server (`run --server`), served in-process as a Transport.InProcessServer.
        .target(name: "TeamServer", dependencies: ["PythonBridge", "Transport"]),
        // The app under test (a seed app, or a team's) as a fourth implementation in the suites; it
        // sees apps only through AppUnderTest's protocols (the CLI makes them and passes them in).
        .target(name: "AppChecks", dependencies: ["Conformance", "AppUnderTest", "WireCrypto", "WireProtocol", "Transport"]),

        // The app under test: capability protocols an app's adapter implements (no harness
        // dependency), and the seed apps' own code compiled as app code is (Swift 5 mode), each with
        // its adapter. UIKit and AFNetworking are glue holding only the names the seeds use.
        .target(name: "AppUnderTest", dependencies: ["StorageRecords"]),
        // An app in a process of its own: the host loop, the proxy, the package builder (`--app DIR`).
        .target(name: "AppHost", dependencies: ["AppUnderTest", "Security", "LocalAuthentication"]),
        .target(name: "UIKit", dependencies: ["Security"], path: "Sources/SeedApps/Glue/UIKit", swiftSettings: swift5),
        .target(name: "AFNetworking", dependencies: [], path: "Sources/SeedApps/Glue/AFNetworking", swiftSettings: swift5),
        .target(name: "Seed000App", dependencies: ["AppleImplicitImports", "UIKit", "Security", "AppUnderTest"], path: "Sources/SeedApps/Seed000", swiftSettings: swift5),
        .target(name: "Seed001App", dependencies: ["AppleImplicitImports", "CommonCrypto", "Security", "AFNetworking", "AppUnderTest"], path: "Sources/SeedApps/Seed001",
                swiftSettings: swift5),
        .target(name: "Seed002App", dependencies: ["AppleImplicitImports", "Security", "AppUnderTest"], path: "Sources/SeedApps/Seed002", swiftSettings: swift5),
        .target(name: "Seed003App", dependencies: ["AppleImplicitImports", "CryptoKit", "Security", "AppUnderTest"], path: "Sources/SeedApps/Seed003", swiftSettings: swift5),
        .target(name: "Seed004App", dependencies: ["AppleImplicitImports", "CryptoKit", "AppUnderTest"], path: "Sources/SeedApps/Seed004", swiftSettings: swift5),
        .target(name: "SeedApps", dependencies: ["AppUnderTest", "Seed000App", "Seed001App", "Seed002App", "Seed003App", "Seed004App"],
                path: "Sources/SeedApps/Registry"),

        // Layer 6: reports (JUnit XML, terminal summaries); knows nothing of checks.
        .target(name: "Reports", dependencies: []),

        // Layer 7: the thin command line and the tools beside it. CommandLineKit: options declared
        // once, with parsing, help and validation derived from the declaration.
        .target(name: "CommandLineKit", dependencies: []),
        .executableTarget(name: "crosscheck", dependencies: [
            "Conformance", "RoundTrip", "Vectors", "Sessions", "Frames", "Fuzzing", "Remote", "ATS", "AppChecks", "Reports", "Transport",
            "WireCrypto", "WireProtocol", "PythonBridge", "CommandLineKit", "AppUnderTest", "AppHost", "SeedApps", "TeamServer", "Described",
        ]),
        .executableTarget(name: "crosscheck-bench", dependencies: ["Conformance", "Sessions", "WireCrypto", "CryptoKit", "CommonCrypto", "PythonBridge",
                                                                   "Remote", "TeamServer", "Transport", "Described", "WireProtocol", "Frames", "Fuzzing"]),
        // libFuzzer targets, built by `make libfuzzer TARGET=…` with --sanitize=fuzzer,address: the
        // Swift parsers one family at a time (no Python), and the differential target (the fuzz oracle).
        .target(name: "FuzzTargets", dependencies: ["StrictFormats", "WireProtocol", "WireCrypto"]),
        .executableTarget(name: "crosscheck-fuzz", dependencies: ["FuzzTargets"]),
        .executableTarget(name: "crosscheck-fuzz-differential", dependencies: ["Fuzzing", "Conformance"]),
        // Test apps for the key-storage audit, each run as a team's app is (its own process and
        // container, over the host protocol): `planted-storage-apps NAME` (Tests/PlantedStorageApps).
        .executableTarget(name: "planted-storage-apps", dependencies: ["AppHost", "AppUnderTest", "Security", "CryptoKit", "LocalAuthentication"],
                          path: "Tests/PlantedStorageApps", swiftSettings: swift5),

        // Helpers the test targets share (hex, scratch directories, the python3 and openssl peers).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "WireCryptoTests", dependencies: ["StrictFormats", "WireCrypto", "COpenSSL"]),
        .testTarget(name: "PythonBridgeTests", dependencies: ["PythonBridge"]),
        .testTarget(name: "WireProtocolTests", dependencies: ["StrictFormats", "WireProtocol", "WireCrypto"]),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "WireProtocol", "WireCrypto"]),
        .testTarget(name: "ConformanceTests", dependencies: [
            "Conformance", "RoundTrip", "Vectors", "Sessions", "Frames", "Fuzzing", "WireCrypto", "PythonBridge", "WireProtocol", "TeamServer", "Transport", "Remote", "Described",
        ]),
        .testTarget(name: "ReportsTests", dependencies: ["Reports", "TestSupport"]),
        .testTarget(name: "CommandLineKitTests", dependencies: ["CommandLineKit"]),
        .testTarget(name: "CryptoKitTests", dependencies: ["CryptoKit", "WireCrypto", "TestSupport"]),
        .testTarget(name: "CommonCryptoTests", dependencies: ["CommonCrypto", "WireCrypto", "TestSupport"]),
        .testTarget(name: "SecurityTests", dependencies: ["Security", "WireCrypto", "TestSupport", "AppleImplicitImports", "LocalAuthentication"]),
        .testTarget(name: "SeedAppsTests", dependencies: ["SeedApps", "AppUnderTest", "WireProtocol", "Seed000App", "Seed001App", "Seed002App",
                                                         "Seed003App", "Seed004App", "Security", "WireCrypto", "TestSupport"],
                    exclude: ["Extracts"]),
        .testTarget(name: "AppChecksTests", dependencies: ["AppChecks", "AppUnderTest", "AppHost", "SeedApps", "Conformance", "Sessions", "WireCrypto",
                                                          "PythonBridge", "WireProtocol", "CryptoKit", "Security", "CommonCrypto", "TestSupport"],
                    swiftSettings: swift5),
        .testTarget(name: "CLITests", dependencies: ["TestSupport"], exclude: ["cli_test_server.py", "line_hello_server.py"]),
    ]
)
