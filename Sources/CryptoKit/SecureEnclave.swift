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
        public enum Signing {}
        public enum KeyAgreement {}
    }
}

/// Not Apple API: an enclave key's P-256 key and its sealed blob.
public struct _SecureEnclaveKeyBox: Sendable {
    let key: _ECPrivateKeyBox
    let dataRepresentation: Data
}

/// Not Apple API: a P-256 key inside the (software) enclave (`SecureEnclave.P256.Signing.PrivateKey`,
/// `SecureEnclave.P256.KeyAgreement.PrivateKey`); its API is this protocol's extension. Signing and
/// agreeing run through the ordinary P256 key types, so there is one implementation of each.
public protocol _SecureEnclavePrivateKey: Sendable {
    associatedtype PublicKey: _NISTPublicKey where PublicKey._Curve == _P256Curve
    var _box: _SecureEnclaveKeyBox { get }
    init(_box: _SecureEnclaveKeyBox)
}

extension _SecureEnclavePrivateKey {
    public init<AccessControl: AnyObject>(compactRepresentable: Bool = true, accessControl: AccessControl,
                                          authenticationContext: AnyObject? = nil) throws {
        try self.init(compactRepresentable: compactRepresentable)
    }

    public init(compactRepresentable: Bool = true) throws {
        let key = P256.Signing.PrivateKey(compactRepresentable: compactRepresentable)
        self.init(_box: _SecureEnclaveKeyBox(key: key._box, dataRepresentation: try SoftwareEnclave.seal(key.rawRepresentation)))
    }

    /// Loads a key this machine's enclave sealed; another machine's blob, or changed bytes, is
    /// `CryptoKitError.authenticationFailure`.
    public init<Bytes: ContiguousBytes>(dataRepresentation: Bytes, authenticationContext: AnyObject? = nil) throws {
        let blob = dataRepresentation.withUnsafeBytes { Data($0) }
        let key = try P256.Signing.PrivateKey(rawRepresentation: try SoftwareEnclave.open(blob))
        self.init(_box: _SecureEnclaveKeyBox(key: key._box, dataRepresentation: blob))
    }

    /// The key sealed for this machine's enclave.
    public var dataRepresentation: Data { _box.dataRepresentation }

    public var publicKey: PublicKey { PublicKey(_box: _ECPublicKeyBox(key: _box.key.key.publicKey)) }
}

// Inside SecureEnclave.P256, `P256` is the enclave namespace: the module name reaches CryptoKit.P256.
extension SecureEnclave.P256.Signing {
    public struct PrivateKey: _SecureEnclavePrivateKey {
        public typealias PublicKey = CryptoKit.P256.Signing.PublicKey
        public let _box: _SecureEnclaveKeyBox
        public init(_box: _SecureEnclaveKeyBox) { self._box = _box }

        private var key: CryptoKit.P256.Signing.PrivateKey { CryptoKit.P256.Signing.PrivateKey(_box: _box.key) }

        public func signature<D: DataProtocol>(for data: D) throws -> CryptoKit.P256.Signing.ECDSASignature { try key.signature(for: data) }
        public func signature<D: Digest>(for digest: D) throws -> CryptoKit.P256.Signing.ECDSASignature { try key.signature(for: digest) }
    }
}

extension SecureEnclave.P256.KeyAgreement {
    public struct PrivateKey: _SecureEnclavePrivateKey, DiffieHellmanKeyAgreement {
        public typealias PublicKey = CryptoKit.P256.KeyAgreement.PublicKey
        public let _box: _SecureEnclaveKeyBox
        public init(_box: _SecureEnclaveKeyBox) { self._box = _box }

        public func sharedSecretFromKeyAgreement(with publicKeyShare: CryptoKit.P256.KeyAgreement.PublicKey) throws -> SharedSecret {
            try CryptoKit.P256.KeyAgreement.PrivateKey(_box: _box.key).sharedSecretFromKeyAgreement(with: publicKeyShare)
        }
    }
}
