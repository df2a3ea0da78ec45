import Foundation
internal import WireCrypto

// Secure Enclave keys (kSecAttrTokenID: kSecAttrTokenIDSecureEnclave) on a software enclave. As on
// a device: P-256 only (kSecAttrKeyTypeECSECPrimeRandom, 256 bits; any other type or size is
// errSecParam), and the private key never leaves: SecKeyCopyExternalRepresentation fails with
// errSecUnimplemented ("the operation fails if the key is … bound to the Secure Enclave", Apple's
// SecKeyCopyExternalRepresentation documentation; -4 is the status Apple's forums show for keys
// that cannot be exported), SecKeyCopyAttributes has no kSecValueData, and a keychain item holds no
// key bytes. Signatures, key agreement and ECIES are the EC ones (SecKeyEC.swift,
// SecKeyExchange.swift, SecECIES.swift) on the key inside, and each private-key use asks the
// simulated user when the key has an access control (SecAccessControl.swift). What differs: the
// key is in this process's memory, not in separate hardware (docs/APPLE-MODULES.md).

extension SecKey {
    /// Made by the (software) Secure Enclave: kSecAttrTokenID says so.
    var isSecureEnclaveKey: Bool {
        stringAttribute(extraAttributes[kSecAttrTokenID as String]) == kSecAttrTokenIDSecureEnclave as String
    }

    /// Why this key's private half cannot be exported, or nil when it can.
    var exportRefusal: SecFailure? {
        guard isSecureEnclaveKey, isPrivate else { return nil }
        return SecFailure(errSecUnimplemented, "export not implemented for a key bound to the Secure Enclave (kSecAttrTokenIDSecureEnclave): its private key never leaves the enclave")
    }
}

/// What SecKeyCreateRandomKey says about kSecAttrTokenID before generating: nil to go ahead (the
/// Secure Enclave with a P-256 EC key), else the failure a device reports.
func tokenRefusal(_ token: String, _ top: [String: Any]) -> SecFailure? {
    guard token == kSecAttrTokenIDSecureEnclave as String else {
        return SecFailure(errSecParam, "kSecAttrTokenID \(token): the only token here is the Secure Enclave (kSecAttrTokenIDSecureEnclave)")
    }
    guard let type = stringOrNumberAttribute(top[kSecAttrKeyType as String]), isECKeyType(type) else {
        return SecFailure(errSecParam, "the Secure Enclave makes only EC keys (kSecAttrKeyTypeECSECPrimeRandom)")
    }
    guard integerAttribute(top[kSecAttrKeySizeInBits as String]) == 256 else {
        return SecFailure(errSecParam, "the Secure Enclave makes only 256-bit (P-256) keys")
    }
    return nil
}
