import Foundation
import CommonCrypto

/// Signs API requests to the Pi: HMAC-SHA256 of "METHOD\npath\ntimestamp\nbody" with the shared
/// secret the Pi gave at pairing (hex), sent as the X-Signature header in hex.
enum RequestSigner {
    static func sign(method: String, path: String, timestamp: String, body: String, secretHex: String) -> String {
        let message = "\(method)\n\(path)\n\(timestamp)\n\(body)"
        let key = dataFromHex(secretHex)
        var digest = [UInt8](repeating: 0, count: Int(CC_SHA256_DIGEST_LENGTH))
        key.withUnsafeBytes { keyBytes in
            message.withCString { messageBytes in
                CCHmac(CCHmacAlgorithm(kCCHmacAlgSHA256), keyBytes.baseAddress, key.count, messageBytes, strlen(messageBytes), &digest)
            }
        }
        return digest.map { String(format: "%02x", $0) }.joined()
    }

    private static func dataFromHex(_ hex: String) -> Data {
        var data = Data()
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            if let byte = UInt8(hex[index..<next], radix: 16) { data.append(byte) }
            index = next
        }
        return data
    }
}
