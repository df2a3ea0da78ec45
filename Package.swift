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
        // Layer 1: C functions for what Swift cannot call directly (macros, variadics, globals).
        .target(name: "CShims", dependencies: ["COpenSSL", "CPython"]),
        // Layer 2: Swift owners of C objects and the crypto the Swift client does.
        .target(name: "WireCrypto", dependencies: ["COpenSSL", "CShims"]),
        .target(name: "PythonBridge", dependencies: ["CPython", "CShims"]),
        // Layer 3: cases, suites and the runner; implementations under test.
        .target(name: "Conformance", dependencies: ["WireCrypto", "PythonBridge"]),
        // Layer 4: JUnit XML and terminal summaries.
        .target(name: "Reports", dependencies: []),
        // Layer 5: the thin command line.
        .executableTarget(name: "crosscheck", dependencies: ["Conformance", "Reports"]),
        .executableTarget(name: "crosscheck-bench", dependencies: ["Conformance"]),

        .testTarget(name: "WireCryptoTests", dependencies: ["WireCrypto"]),
        .testTarget(name: "PythonBridgeTests", dependencies: ["PythonBridge"]),
        .testTarget(name: "ConformanceTests", dependencies: ["Conformance", "WireCrypto"]),
        .testTarget(name: "ReportsTests", dependencies: ["Reports"]),
        .testTarget(name: "CLITests", dependencies: []),
    ]
)
