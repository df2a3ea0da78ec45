import Foundation
internal import WireCrypto

// CryptoKit's Secure Enclave keys on the software enclave (WireCrypto's SoftwareEnclave): P-256
// signing and key agreement keys whose `dataRepresentation` is an opaque blob sealed with this
// machine's enclave key (a file in the app's home), which only this machine's enclave loads back —
// as a device's blob loads only on that device ("wrapped in a way such that it can only be
// unwrapped by this Secure Enclave", Apple DTS on the developer forums, thread 708749). The private
// key has no raw, X9.63, DER or PEM form here, as on a device. Differences (docs/APPLE-MODULES.md):
// the key lives in this process's memory; `accessControl` and `authenticationContext` are accepted
// and not enforced (CryptoKit has no Security here: use SecKeyCreateRandomKey with
// kSecAttrTokenIDSecureEnclave for keys the simulated user must unlock).

public enum SecureEnclave {
    /// True: the software enclave is always there.
    public static var isAvailable: Bool { true }

    public enum P256 {
        public enum Signing { public typealias PrivateKey = SecureEnclavePrivateKey<_SigningUse> }
        public enum KeyAgreement { public typealias PrivateKey = SecureEnclavePrivateKey<_KeyAgreementUse> }
    }
}

/// A P-256 key inside the (software) enclave: `SecureEnclave.P256.Signing.PrivateKey` and
/// `SecureEnclave.P256.KeyAgreement.PrivateKey` are this type for each use, as NISTCurves.swift does.
public struct SecureEnclavePrivateKey<Use: _KeyUse>: Sendable {
    let key: NISTPrivateKey<_P256Curve, Use>
    /// The key sealed for this machine's enclave.
    public let dataRepresentation: Data

    public init<AccessControl: AnyObject>(compactRepresentable: Bool = true, accessControl: AccessControl,
                                          authenticationContext: AnyObject? = nil) throws {
        try self.init(compactRepresentable: compactRepresentable)
    }

    public init(compactRepresentable: Bool = true) throws {
        key = NISTPrivateKey(compactRepresentable: compactRepresentable)
        dataRepresentation = try SoftwareEnclave.seal(key.rawRepresentation)
    }

    /// Loads a key this machine's enclave sealed; another machine's blob, or changed bytes, is
    /// `CryptoKitError.authenticationFailure`.
    public init<Bytes: ContiguousBytes>(dataRepresentation: Bytes, authenticationContext: AnyObject? = nil) throws {
        let blob = dataRepresentation.withUnsafeBytes { Data($0) }
        key = try NISTPrivateKey(rawRepresentation: try SoftwareEnclave.open(blob))
        self.dataRepresentation = blob
    }

    public var publicKey: NISTPublicKey<_P256Curve, Use> { key.publicKey }
}

extension SecureEnclavePrivateKey where Use == _SigningUse {
    public func signature<D: DataProtocol>(for data: D) throws -> NISTECDSASignature<_P256Curve> { try key.signature(for: data) }
    public func signature<D: Digest>(for digest: D) throws -> NISTECDSASignature<_P256Curve> { try key.signature(for: digest) }
}

extension SecureEnclavePrivateKey where Use == _KeyAgreementUse {
    public func sharedSecretFromKeyAgreement(with publicKeyShare: NISTPublicKey<_P256Curve, Use>) throws -> SharedSecret {
        try key.sharedSecretFromKeyAgreement(with: publicKeyShare)
    }
}
