import Foundation
import Conformance

/// A minimal DER writer for the key structures mutators rebuild (SPKI, PKCS#1 RSAPublicKey).
enum FuzzDER {
    static let rsaEncryptionOID = Data([0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01])
    static let rsaPSSOID = Data([0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a])
    static let null = Data([0x05, 0x00])

    static func length(_ count: Int) -> Data {
        if count < 0x80 { return Data([UInt8(count)]) }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 { bytes.insert(UInt8(rest & 0xff), at: 0); rest >>= 8 }
        return Data([0x80 | UInt8(bytes.count)] + bytes)
    }

    static func tlv(_ tag: UInt8, _ content: Data) -> Data { Data([tag]) + length(content.count) + content }
    static func sequence(_ parts: Data...) -> Data { tlv(0x30, parts.reduce(Data(), +)) }
    static func bitString(_ content: Data) -> Data { tlv(0x03, Data([0x00]) + content) }

    /// A non-negative INTEGER from big-endian magnitude bytes (minimal, with a 00 if the top bit is set).
    static func unsignedInteger(_ magnitude: Data) -> Data {
        var bytes = Data(magnitude.drop { $0 == 0 })
        if bytes.isEmpty { bytes = Data([0x00]) } else if bytes.first! & 0x80 != 0 { bytes.insert(0x00, at: 0) }
        return tlv(0x02, bytes)
    }

    static func integer(_ value: Int) -> Data {
        var bytes: [UInt8] = []
        var rest = value
        while true {  // two's complement, minimal: stop once the sign bit of the top byte is right
            bytes.insert(UInt8(truncatingIfNeeded: rest), at: 0)
            rest >>= 8
            if (rest == 0 && bytes[0] & 0x80 == 0) || (rest == -1 && bytes[0] & 0x80 != 0) { break }
        }
        return tlv(0x02, Data(bytes))
    }

    static func pkcs1PublicKey(modulus: Data, exponent: Data) -> Data {
        sequence(unsignedInteger(modulus), unsignedInteger(exponent))
    }

    static func spki(pkcs1: Data, algorithm: Data = sequence(rsaEncryptionOID, null)) -> Data {
        sequence(algorithm, bitString(pkcs1))
    }
}
