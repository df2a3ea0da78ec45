// swift-tools-version:6.0
// crosscheck: a protocol conformance and interop harness for Swift clients of Python servers.
// No package dependencies: the toolchain plus system C libraries (OpenSSL 3, CPython 3.11, libcurl).
//
// This file is the architecture diagram (docs/ARCHITECTURE.md says it in prose). Each layer may
// import only layers above it in this file; C stays behind `internal import` in layers 1–2.
import PackageDescription

let package = Package(
    name: "crosscheck",
    products: [
        .executable(name: "crosscheck", targets: ["crosscheck"]),
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

        // Layer 2: Swift owners of C objects. WireCrypto is the Swift side's crypto over OpenSSL;
        // PythonBridge embeds CPython and runs PythonRef in-process.
        .target(name: "WireCrypto", dependencies: ["COpenSSL", "COpenSSLShims"]),
        .target(name: "PythonBridge", dependencies: ["CPython", "CPythonShims"]),

        // Layer 3: the protocols. WireProtocol: sans-I/O session machines (pure). Transport: the
        // operating system's I/O (TCP, name resolution, TLS, HTTP, pinned HTTPS) and the driver
        // that runs a session machine over a socket.
        .target(name: "WireProtocol", dependencies: ["WireCrypto"]),
        .target(name: "Transport", dependencies: ["WireProtocol", "WireCrypto", "COpenSSL", "COpenSSLShims", "CCurl", "CCurlShims"]),

        // Layer 4: the conformance core: checks, expectations, the implementations under test (crypto
        // peers, their protocol machines and aes-https roles), runner, suite context, the
        // error-equivalence map.
        .target(name: "Conformance", dependencies: ["WireCrypto", "PythonBridge", "WireProtocol"]),

        // Layer 5: one module per capability, each on the core only (and on the layers below).
        .target(name: "RoundTrip", dependencies: ["Conformance", "WireCrypto"]),
        .target(name: "Vectors", dependencies: ["Conformance", "WireCrypto"]),
        .target(name: "Sessions", dependencies: ["Conformance", "WireCrypto", "PythonBridge", "WireProtocol", "Transport"]),
        .target(name: "Frames", dependencies: ["Conformance", "WireCrypto", "WireProtocol"]),
        .target(name: "Fuzzing", dependencies: ["Conformance", "Frames", "WireCrypto", "PythonBridge", "WireProtocol", "Transport"]),
        .target(name: "Remote", dependencies: ["Conformance", "WireCrypto", "PythonBridge", "WireProtocol", "Transport"]),

        // Layer 6: reports (JUnit XML, terminal summaries); knows nothing of checks.
        .target(name: "Reports", dependencies: []),

        // Layer 7: the thin command line and the tools beside it. CommandLineKit: options declared
        // once, with parsing, help and validation derived from the declaration.
        .target(name: "CommandLineKit", dependencies: []),
        .executableTarget(name: "crosscheck", dependencies: [
            "Conformance", "RoundTrip", "Vectors", "Sessions", "Frames", "Fuzzing", "Remote", "Reports", "Transport",
            "WireCrypto", "WireProtocol", "PythonBridge", "CommandLineKit",
        ]),
        .executableTarget(name: "crosscheck-bench", dependencies: ["Conformance", "Sessions", "WireCrypto", "PythonBridge"]),
        // libFuzzer targets, built by `make libfuzzer TARGET=…` with --sanitize=fuzzer,address: the
        // Swift parsers one family at a time (no Python), and the differential target (the fuzz oracle).
        .target(name: "FuzzTargets", dependencies: ["WireProtocol", "WireCrypto"]),
        .executableTarget(name: "crosscheck-fuzz", dependencies: ["FuzzTargets"]),
        .executableTarget(name: "crosscheck-fuzz-differential", dependencies: ["Fuzzing", "Conformance"]),

        .testTarget(name: "WireCryptoTests", dependencies: ["WireCrypto"]),
        .testTarget(name: "PythonBridgeTests", dependencies: ["PythonBridge"]),
        .testTarget(name: "WireProtocolTests", dependencies: ["WireProtocol", "WireCrypto"]),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "WireProtocol", "WireCrypto"]),
        .testTarget(name: "ConformanceTests", dependencies: [
            "Conformance", "RoundTrip", "Vectors", "Sessions", "Frames", "Fuzzing", "WireCrypto", "PythonBridge", "WireProtocol",
        ]),
        .testTarget(name: "ReportsTests", dependencies: ["Reports"]),
        .testTarget(name: "CommandLineKitTests", dependencies: ["CommandLineKit"]),
        .testTarget(name: "CLITests", dependencies: []),
    ]
)
