// Not seed text. Seed 000 says "Download CryptoExportImportManager … Add CryptoExportImportManager.swift
// to the project" but does not print it, so this file is written here from the behaviour the seed
// relies on (docs/PROTOCOL.md, "Public key PEM as the iOS side sends it"): iOS's PKCS#1
// RSAPublicKey bytes wrapped in a SubjectPublicKeyInfo (rsaEncryption, NULL parameters), as PEM
// with the label PUBLIC KEY, base64 in 64-character lines each ending in "\n", and no newline
// after the END line. The method keeps the Swift 2 call shape the seed uses (an NSData, then
// keyType and keySize, which RSA does not need). For RSA keys of 1024 bits and more this gives
// the same bytes the original gives; the original miscounts the outer length for keys whose
// PKCS#1 form is under 128 bytes (about 900 bits), which iOS cannot generate anyway.
import Foundation

class CryptoExportImportManager {
    /// rsaEncryption (1.2.840.113549.1.1.1) with NULL parameters, as a DER AlgorithmIdentifier.
    private let rsaAlgorithmIdentifier: [UInt8] = [0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00]

    func exportRSAPublicKeyToPEM(_ rawPublicKeyBytes: NSData, keyType: String, keySize: Int) -> String {
        let bitString = [0x03] + derLength(rawPublicKeyBytes.length + 1) + [0x00] + [UInt8](rawPublicKeyBytes as Data)
        let body = rsaAlgorithmIdentifier + bitString
        let spki = [0x30] + derLength(body.count) + body
        return pem(Data(spki))
    }

    private func derLength(_ length: Int) -> [UInt8] {
        if length < 0x80 { return [UInt8(length)] }
        var bytes: [UInt8] = []
        var rest = length
        while rest > 0 { bytes.insert(UInt8(rest & 0xff), at: 0); rest >>= 8 }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    private func pem(_ der: Data) -> String {
        let base64 = der.base64EncodedString()
        var text = "-----BEGIN PUBLIC KEY-----\n"
        var index = base64.startIndex
        while index < base64.endIndex {
            let end = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
            text += base64[index..<end] + "\n"
            index = end
        }
        return text + "-----END PUBLIC KEY-----"
    }
}
