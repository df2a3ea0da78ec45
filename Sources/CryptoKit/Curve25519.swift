import Foundation
internal import WireCrypto

/// CryptoKit's Curve25519: Ed25519 signing (RFC 8032) and X25519 key agreement (RFC 7748), keys as
/// 32 raw bytes (Apple has no DER or PEM forms for them), over WireCrypto's X25519/Ed25519 keys.
public enum Curve25519 {
    public enum Signing {
        public struct PublicKey: Sendable {
            let wrapped: Ed25519PublicKey

            init(wrapping key: Ed25519PublicKey) { wrapped = key }

            public init<D: ContiguousBytes>(rawRepresentation data: D) throws {
                let bytes = contiguousData(data)
                guard bytes.count == 32 else { throw CryptoKitError.incorrectKeySize }
                wrapped = try asCryptoKit { try Ed25519PublicKey(rawRepresentation: bytes) }
            }

            public var rawRepresentation: Data { wrapped.rawRepresentation }

            /// True when `signature` (64 bytes) is this key's Ed25519 signature of `data`.
            public func isValidSignature<S: DataProtocol, D: DataProtocol>(_ signature: S, for data: D) -> Bool {
                wrapped.isValidSignature(Data(signature), for: Data(data))
            }
        }

        public struct PrivateKey: Sendable {
            let wrapped: Ed25519PrivateKey

            public init() {
                do { wrapped = try Ed25519PrivateKey() } catch { preconditionFailure("Ed25519 key generation failed: \(error)") }
            }

            /// The 32-byte seed (RFC 8032 §5.1.5).
            public init<D: ContiguousBytes>(rawRepresentation data: D) throws {
                let bytes = contiguousData(data)
                guard bytes.count == 32 else { throw CryptoKitError.incorrectKeySize }
                wrapped = try asCryptoKit { try Ed25519PrivateKey(rawRepresentation: bytes) }
            }

            public var rawRepresentation: Data { wrapped.rawRepresentation }

            public var publicKey: Curve25519.Signing.PublicKey {
                do { return PublicKey(wrapping: try wrapped.publicKey) } catch { preconditionFailure("Ed25519 public key: \(error)") }
            }

            /// The 64-byte Ed25519 signature of `data`. OpenSSL's is RFC 8032's deterministic one;
            /// Apple's CryptoKit adds randomness, so the bytes differ from an iPhone's while both verify.
            public func signature<D: DataProtocol>(for data: D) throws -> Data {
                try asCryptoKit { try wrapped.signature(for: Data(data)) }
            }
        }
    }

    public enum KeyAgreement {
        public struct PublicKey: Sendable {
            let wrapped: X25519PublicKey

            init(wrapping key: X25519PublicKey) { wrapped = key }

            public init<D: ContiguousBytes>(rawRepresentation data: D) throws {
                let bytes = contiguousData(data)
                guard bytes.count == 32 else { throw CryptoKitError.incorrectKeySize }
                wrapped = try asCryptoKit { try X25519PublicKey(rawRepresentation: bytes) }
            }

            public var rawRepresentation: Data { wrapped.rawRepresentation }
        }

        public struct PrivateKey: DiffieHellmanKeyAgreement, Sendable {
            let wrapped: X25519PrivateKey

            public init() {
                do { wrapped = try X25519PrivateKey() } catch { preconditionFailure("X25519 key generation failed: \(error)") }
            }

            public init<D: ContiguousBytes>(rawRepresentation data: D) throws {
                let bytes = contiguousData(data)
                guard bytes.count == 32 else { throw CryptoKitError.incorrectKeySize }
                wrapped = try asCryptoKit { try X25519PrivateKey(rawRepresentation: bytes) }
            }

            public var rawRepresentation: Data { wrapped.rawRepresentation }

            public var publicKey: Curve25519.KeyAgreement.PublicKey {
                do { return PublicKey(wrapping: try wrapped.publicKey) } catch { preconditionFailure("X25519 public key: \(error)") }
            }

            /// X25519(k, u) (RFC 7748 §6.1); a low-order peer key (an all-zero result) throws.
            public func sharedSecretFromKeyAgreement(with publicKeyShare: Curve25519.KeyAgreement.PublicKey) throws -> SharedSecret {
                SharedSecret(bytes: [UInt8](try asCryptoKit { try wrapped.sharedSecret(with: publicKeyShare.wrapped) }))
            }
        }
    }
}
