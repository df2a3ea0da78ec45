// swift-tools-version:6.0
// crosscheck: a protocol conformance and interop harness for Swift clients of Python servers.
// No package dependencies: the toolchain plus system C libraries (OpenSSL 3, CPython 3.11).
import PackageDescription

let package = Package(
    name: "crosscheck",
    products: [
        .executable(name: "crosscheck", targets: ["crosscheck"]),
    ],
    targets: [
        // Layer 0: C modules from the system (headers found through pkg-config).
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CPython", pkgConfig: "python3-embed",
                       providers: [.apt(["python3-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        // Layer 1: C functions for what Swift cannot call directly (macros, variadics, globals).
        .target(name: "CShims", dependencies: ["COpenSSL", "CPython", "CCurl"]),
        // Layer 2: Swift owners of C objects and the crypto the Swift client does.
        .target(name: "WireCrypto", dependencies: ["COpenSSL", "CShims"]),
        .target(name: "PythonBridge", dependencies: ["CPython", "CShims"]),
        // Layer 3: protocol state machines (pure, no I/O) and the I/O that drives them.
        .target(name: "WireProtocol", dependencies: ["WireCrypto"]),
        .target(name: "Transport", dependencies: ["COpenSSL", "CCurl", "CShims"]),
        // Layer 4: cases, suites and the runner; implementations under test.
        .target(name: "Conformance", dependencies: ["WireCrypto", "PythonBridge", "WireProtocol", "Transport"]),
        // Layer 5: JUnit XML and terminal summaries.
        .target(name: "Reports", dependencies: []),
        // Layer 6: the thin command line.
        .executableTarget(name: "crosscheck", dependencies: ["Conformance", "Reports"]),
        .executableTarget(name: "crosscheck-bench", dependencies: ["Conformance"]),
        // libFuzzer target over the Swift parsers: built by `make libfuzzer` with --sanitize=fuzzer,address.
        .executableTarget(name: "crosscheck-fuzz", dependencies: ["WireProtocol", "WireCrypto"]),

        .testTarget(name: "WireCryptoTests", dependencies: ["WireCrypto"]),
        .testTarget(name: "PythonBridgeTests", dependencies: ["PythonBridge"]),
        .testTarget(name: "WireProtocolTests", dependencies: ["WireProtocol", "WireCrypto"]),
        .testTarget(name: "TransportTests", dependencies: ["Transport"]),
        .testTarget(name: "ConformanceTests", dependencies: ["Conformance", "WireCrypto"]),
        .testTarget(name: "ReportsTests", dependencies: ["Reports"]),
        .testTarget(name: "CLITests", dependencies: []),
    ]
)

// MARK: - Issue 10: Apple's frameworks over OpenSSL, and the seed apps as the app under test.
// Library products named as Apple's frameworks, so Swift written for iOS compiles here with its
// imports unchanged (as swift-corelibs-foundation provides Foundation on Linux). This block only
// adds products and targets; nothing above depends on it. docs/APPLE-MODULES.md describes it.
let swift5: [SwiftSetting] = [.swiftLanguageMode(.v5)]
package.products += [
    .library(name: "CryptoKit", targets: ["CryptoKit"]),
    .library(name: "CommonCrypto", targets: ["CommonCrypto"]),
    .library(name: "Security", targets: ["Security"]),
    .library(name: "AppUnderTest", targets: ["AppUnderTest"]),
    .library(name: "SeedApps", targets: ["SeedApps"]),
]
package.targets += [
    .target(name: "CryptoKit", dependencies: ["WireCrypto"]),
    .target(name: "CommonCrypto", dependencies: ["WireCrypto"]),
    .target(name: "Security", dependencies: ["WireCrypto"]),
    // What the suites see of an app: capability protocols an adapter maps the app's code onto.
    .target(name: "AppUnderTest", dependencies: []),
    // The seed apps, compiled as app code is (Swift 5 mode), each with its adapter. UIKit and
    // AFNetworking are glue modules holding only the names the seeds use.
    .target(name: "UIKit", dependencies: ["Security"], path: "Sources/SeedApps/Glue/UIKit", swiftSettings: swift5),
    .target(name: "AFNetworking", dependencies: [], path: "Sources/SeedApps/Glue/AFNetworking", swiftSettings: swift5),
    .target(name: "Seed000App", dependencies: ["UIKit", "Security", "AppUnderTest"], path: "Sources/SeedApps/Seed000", swiftSettings: swift5),
    .target(name: "Seed001App", dependencies: ["CommonCrypto", "Security", "AFNetworking", "AppUnderTest"], path: "Sources/SeedApps/Seed001", swiftSettings: swift5),
    .target(name: "Seed002App", dependencies: ["Security", "AppUnderTest"], path: "Sources/SeedApps/Seed002", swiftSettings: swift5),
    .target(name: "Seed003App", dependencies: ["CryptoKit", "Security", "AppUnderTest"], path: "Sources/SeedApps/Seed003", swiftSettings: swift5),
    .target(name: "Seed004App", dependencies: ["CryptoKit", "AppUnderTest"], path: "Sources/SeedApps/Seed004", swiftSettings: swift5),
    .target(name: "SeedApps", dependencies: ["AppUnderTest", "Seed000App", "Seed001App", "Seed002App", "Seed003App", "Seed004App"],
            path: "Sources/SeedApps/Registry"),
    .testTarget(name: "CryptoKitTests", dependencies: ["CryptoKit", "WireCrypto"]),
    .testTarget(name: "CommonCryptoTests", dependencies: ["CommonCrypto", "WireCrypto"]),
    .testTarget(name: "SecurityTests", dependencies: ["Security", "WireCrypto"]),
    .testTarget(name: "SeedAppsTests", dependencies: ["SeedApps", "AppUnderTest", "Seed000App", "Seed001App", "Seed002App",
                                                     "Seed003App", "Seed004App", "Security", "WireCrypto"],
                exclude: ["Extracts"]),
]
