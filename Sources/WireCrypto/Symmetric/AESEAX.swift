import Foundation

/// AES-EAX (Bellare, Rogaway and Wagner, "The EAX Mode of Operation", FSE 2004): CTR for secrecy and
/// OMAC (CMAC) over the nonce, the header and the ciphertext for authenticity. PyCryptodome's
/// `AES.new(key, AES.MODE_EAX)` — the mode its documentation's first example uses — is this, with a
/// 16-byte nonce and a 16-byte tag by default. Neither OpenSSL nor CryptoKit has it, so it is
/// composed here from OpenSSL's CTR and `AESCMAC`.
public enum AESEAX {
    public static let tagBytes = 16

    /// `(ciphertext, tag)`; any nonce length but 0 (the paper allows any; PyCryptodome, at least 1 byte).
    public static func seal(_ plaintext: Data, key: Data, nonce: Data, header: Data = Data()) throws -> (ciphertext: Data, tag: Data) {
        guard !nonce.isEmpty else { throw WireCryptoError.incorrectParameterSize(what: "EAX nonce", length: 0, expected: "at least 1 byte") }
        let nonceMAC = try omac(0, nonce, key: key)
        let ciphertext = try counterMode(plaintext, key: key, counter: nonceMAC)
        let tag = zip3(nonceMAC, try omac(1, header, key: key), try omac(2, ciphertext, key: key))
        return (ciphertext, tag)
    }

    /// The plaintext, or `authenticationFailure` when the tag (all 16 bytes) does not verify; the
    /// comparison looks at every byte whatever the first difference.
    public static func open(_ ciphertext: Data, key: Data, nonce: Data, tag: Data, header: Data = Data()) throws -> Data {
        guard !nonce.isEmpty else { throw WireCryptoError.incorrectParameterSize(what: "EAX nonce", length: 0, expected: "at least 1 byte") }
        let nonceMAC = try omac(0, nonce, key: key)
        let expected = zip3(nonceMAC, try omac(1, header, key: key), try omac(2, ciphertext, key: key))
        guard tag.count == tagBytes, zip(expected, tag).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else { throw WireCryptoError.authenticationFailure }
        return try counterMode(ciphertext, key: key, counter: nonceMAC)
    }

    /// OMAC^t(M) = CMAC(K, [t]₁₂₈ ‖ M): the tweak t as a whole block, then the data (the paper, §3).
    static func omac(_ tweak: UInt8, _ data: Data, key: Data) throws -> Data {
        try AESCMAC.authenticationCode(key: key, message: Data(count: 15) + Data([tweak]) + data)
    }

    /// CTR from the 128-bit counter block N′, incremented whole (the paper's CTR; OpenSSL's too).
    static func counterMode(_ input: Data, key: Data, counter: Data) throws -> Data {
        try AESCipherContext.process(input, mode: .ctr, encrypt: true, key: key, iv: counter)
    }

    static func zip3(_ a: Data, _ b: Data, _ c: Data) -> Data {
        Data((0..<tagBytes).map { a[a.startIndex + $0] ^ b[b.startIndex + $0] ^ c[c.startIndex + $0] })
    }
}
