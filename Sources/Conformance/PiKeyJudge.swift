import Foundation
import PythonBridge

/// What the Pi verifies and derives for an app under test: the signatures the app made, with the
/// public key it exported, and the key it agreed with the Pi (ECDH or X25519, then the app's
/// declared derivation). PythonRef's `signatures.py` and `key_agreement.py` (pyca). Not part of
/// `CryptoPeer`: these judge the app only; the Swift side has no counterpart to compare with.
public protocol PiKeyJudge: Sendable {
    /// True when `signature` is `algorithm` (AppUnderTest's `MessageSigning` names) over `message`.
    func verifySignature(algorithm: String, publicKey: Data, message: Data, signature: Data) throws -> Bool
    /// The public key as SubjectPublicKeyInfo PEM and the signature as DER: what `openssl dgst -verify` reads.
    func opensslSignatureInputs(algorithm: String, publicKey: Data, signature: Data) throws -> (publicKeyPEM: Data, signatureDER: Data)
    /// A fresh key pair for `curve` ("p256", "p384", "p521", "x25519"): PKCS#8 DER private, public in `format`.
    func agreementKeyPair(curve: String, format: String) throws -> (privateKey: Data, publicKey: Data)
    /// The key derived from our private key and the peer's public key with `kdf` ("hkdf-sha256",
    /// "x963-sha256", …, or "raw": the shared secret itself).
    func agreementDerive(curve: String, privateKey: Data, peerPublicKey: Data, kdf: String, salt: Data, info: Data, length: Int) throws -> Data
    /// HMAC (RFC 2104) of `message` under `key` with `hash` ("SHA1", "SHA256", "SHA512", …): what
    /// the Pi computes to check a request the app signed with a shared secret.
    func hmac(hash: String, key: Data, message: Data) throws -> Data
}

extension PythonPeer: PiKeyJudge {
    public func verifySignature(algorithm: String, publicKey: Data, message: Data, signature: Data) throws -> Bool {
        let answer = try handle("signature.verify", ["alg": .string(algorithm), "public_key": .bytes(publicKey), "message": .bytes(message),
                                                     "signature": .bytes(signature)])
        guard case let .bool(valid) = answer else { throw PeerFailure(.internal, "pythonref answered \(answer) where true or false was expected") }
        return valid
    }

    public func opensslSignatureInputs(algorithm: String, publicKey: Data, signature: Data) throws -> (publicKeyPEM: Data, signatureDER: Data) {
        let answer = try handle("signature.openssl_inputs", ["alg": .string(algorithm), "public_key": .bytes(publicKey), "signature": .bytes(signature)])
        guard let pem = answer["public_pem"]?.bytesValue, let der = answer["signature_der"]?.bytesValue else {
            throw PeerFailure(.internal, "pythonref answered \(answer) where a PEM key and a DER signature were expected")
        }
        return (pem, der)
    }

    public func agreementKeyPair(curve: String, format: String) throws -> (privateKey: Data, publicKey: Data) {
        let answer = try handle("agreement.generate", ["curve": .string(curve), "format": .string(format)])
        guard let privateKey = answer["private"]?.bytesValue, let publicKey = answer["public"]?.bytesValue else {
            throw PeerFailure(.internal, "pythonref answered \(answer) where a key pair was expected")
        }
        return (privateKey, publicKey)
    }

    public func agreementDerive(curve: String, privateKey: Data, peerPublicKey: Data, kdf: String, salt: Data, info: Data, length: Int) throws -> Data {
        let answer = try handle("agreement.derive", ["curve": .string(curve), "private_key": .bytes(privateKey), "peer_public_key": .bytes(peerPublicKey),
                                                     "kdf": .string(kdf), "salt": .bytes(salt), "info": .bytes(info), "length": .int(length)])
        guard let key = answer.bytesValue else { throw PeerFailure(.internal, "pythonref answered \(answer) where a key was expected") }
        return key
    }
}

extension PythonPeer {
    public func hmac(hash: String, key: Data, message: Data) throws -> Data {
        let answer = try handle("hmac.compute", ["hash": .string(hash), "key": .bytes(key), "message": .bytes(message)])
        guard let mac = answer.bytesValue else { throw PeerFailure(.internal, "pythonref answered \(answer) where an HMAC was expected") }
        return mac
    }
}

extension SuiteContext {
    /// The Pi's judge of what an app signs and agrees: the Python peer (through any planted
    /// wrapper), or nil when the run has none.
    public var piKeyJudge: PiKeyJudge? {
        var peer: CryptoPeer = python
        while true {
            if let judge = peer as? PiKeyJudge { return judge }
            guard let wrapper = peer as? DelegatingPeer else { return nil }
            peer = wrapper.real
        }
    }
}
