import Foundation
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// What `crosscheck remote` checks and how.
public struct RemoteOptions: Sendable {
    public enum Profile: String, Sendable, CaseIterable { case rsaSocket = "rsa-socket", aesHTTPS = "aes-https" }

    public var profile: Profile = .rsaSocket
    /// Which clients talk to the server: crosscheck's `reference` client (every check and audit),
    /// the `seed-app` (the seed apps as they ship), or both.
    public var clients: [ClientProfile] = ClientProfile.allCases
    public var directions: [RSASocket.Direction] = RSASocket.Direction.allCases
    /// nil: find the server's padding by trying each.
    public var padding: RSAEncryptionPadding?
    public var framing: Framing = .legacy
    /// Client key sizes for pi-to-phone (the server encrypts to each).
    public var keyBits: [Int] = [2048]
    /// Deadline for every connect, read and write.
    public var timeout: TimeInterval = 5
    /// Quiet time after which a legacy message is taken as complete.
    public var quietGap: TimeInterval = 0.3
    /// Report weak-but-conforming choices as failures instead of skipped audit findings.
    public var strict = false
    /// aes-https: the certificate the app bundles (required), the account, and the key mode (nil: infer).
    public var pin: String?
    public var username = "user"
    public var password = "password"
    public var keyMode: KeyDerivationMode?
    /// aes-https: the name to verify the certificate for, when --host is an address the certificate
    /// does not name (e.g. a Pi reached by IP with a certificate for raspberrypi.local).
    public var serverName: String?
    /// A certificate that is not the server's, to show the pinned client refuses it (seed 002).
    public var foreignCertificate: String?
    /// How many binary-safety conversations per probe.
    public var binaryProbes = 8
    /// Seed of every probe's bytes (padding, plaintexts): the same seed sends the same probes, so a
    /// run's verdicts repeat run after run.
    public var seed: UInt64 = 1
    /// Padding-oracle audit: how many times each class is sent in the main round (a confirmation
    /// round follows when classes differ).
    public var oracleRepeats = 3
    /// `--timing N`: N interleaved latency samples per oracle class and a signed-rank test in the
    /// audit; nil: no timing (it is never part of the verdict).
    public var timingSamples: Int?
    /// nil: the server is at the run's address, over the network. Set (`crosscheck run --server`):
    /// the checks get their connections and HTTP answers from this server in this process instead;
    /// the TLS steps are skipped (no TLS in-process) and every testcase is named after the server.
    public var inProcess: (any InProcessServer)?

    public init() {}
}

/// Why a remote run could not even start; each says what to do.
public enum RemoteError: Error, Equatable, CustomStringConvertible {
    case missingPin

    public var description: String {
        switch self {
        case .missingPin: return "aes-https needs --pin CERT: the certificate the app bundles (its DER or PEM, as a PEM file)"
        }
    }
}
