// Seed 001 (a Chinese article, "使用AES加密数据传输的iOS客户端实现方案"), the AES class, vendored:
// lines 31–32 of 001_cb7b47f01c2aa1bb.txt. The page lost the code's line breaks and indentation
// (the whole class is printed on one line, so each "//" comment swallows the rest of it); they
// are restored here and nothing else is reflowed. Tests/SeedAppsTests/VerbatimTests.swift checks
// that, with each line's leading whitespace removed and the lines joined, the non-glue text is
// Extracts/seed001-AES.swift.txt joined the same way, byte for byte, after the changes below.
// CHANGE: `var keyBytes = [UInt8](repeating: 0, count: keyLength)` → `var keyBytes = [CChar](repeating: 0, count: keyLength)` — String.getCString(_:maxLength:encoding:) fills an inout [CChar]; a [UInt8] buffer does not compile (on iOS either).
// Glue lines (ending in "// GLUE"): `import Foundation` and `import Security`. The page imports
// only CommonCrypto, which brings neither Data nor SecRandomCopyBytes, on iOS or here.
// String.getCString follows Apple's rule through AppleStringGlue.swift (see there).
// EXTRACT: seed001-AES.swift.txt FROM LINE 31
// MODE: verbatim-joined
// ---- end of header ----
import Foundation // GLUE
import Security // GLUE
import CommonCrypto
class AES {
    // 加密方法
    static func encrypt(data: Data, key: String) -> (Data, Data)? {
        return crypt(data: data, key: key, operation: CCOperation(kCCEncrypt))
    }
    // 解密方法
    static func decrypt(data: Data, key: String, iv: Data) -> Data? {
        return crypt(data: data, key: key, iv: iv, operation: CCOperation(kCCDecrypt)).map { $0.0 }
    }
    /**
    通用加密解密方法
    - Parameters:
    - data: 需要加密或解密的数据
    - key: 用于加密或解密的密钥
    - iv: 初始化向量。如果为空，则在加密时生成一个新的IV。在解密时需要传入之前生成的IV。
    - operation: 加密或解密操作（kCCEncrypt 或 kCCDecrypt）
    - Returns: 返回一个元组，包含加密或解密后的数据，以及用于加密的IV。如果操作失败，返回nil。
    */
    private static func crypt(data: Data, key: String, iv: Data? = nil, operation: CCOperation) -> (Data, Data)? {
        // 确定AES密钥长度为128位（16字节）
        let keyLength = kCCKeySizeAES128
        var keyBytes = [CChar](repeating: 0, count: keyLength)
        // 将密钥字符串转换为字节数组，并确保其长度为16字节
        key.getCString(&keyBytes, maxLength: keyLength + 1, encoding: .utf8)
        // 初始化向量（IV）的字节数组
        var ivBytes: [UInt8]
        if let iv = iv {
            // 如果传入了IV，使用传入的IV
            ivBytes = [UInt8](iv)
        } else {
            // 如果没有传入IV，在加密时生成一个随机的IV
            let ivSize = kCCBlockSizeAES128
            ivBytes = [UInt8](repeating: 0, count: ivSize)
            _ = SecRandomCopyBytes(kSecRandomDefault, ivSize, &ivBytes)
        }
        // 输入数据的长度
        let dataLength = data.count
        // 输出缓冲区大小应为数据长度加上一个AES块的大小
        let bufferSize = dataLength + kCCBlockSizeAES128
        var buffer = [UInt8](repeating: 0, count: bufferSize)
        // 存储实际加密或解密后的字节数
        var numBytesCrypted: size_t = 0
        // 调用CCCrypt函数执行加密或解密操作
        let cryptStatus = CCCrypt(operation,                  // 指定加密或解密操作
            CCAlgorithm(kCCAlgorithmAES128),  // 使用AES-128加密算法
            CCOptions(kCCOptionPKCS7Padding), // 使用PKCS7填充
            keyBytes,                   // 密钥字节数组
            keyLength,                  // 密钥长度
            ivBytes,                    // 初始化向量（IV）
            [UInt8](data),              // 输入数据字节数组
            dataLength,                 // 输入数据长度
            &buffer,                    // 输出缓冲区
            bufferSize,                 // 输出缓冲区大小
            &numBytesCrypted            // 实际加密或解密后的字节数
        )
        // 检查加密或解密操作是否成功
        if cryptStatus == kCCSuccess {
            // 返回加密或解密后的数据，以及用于加密的IV
            let cryptData = Data(bytes: buffer, count: numBytesCrypted)
            return (cryptData, Data(ivBytes))
        }
        // 如果操作失败，返回nil
        return nil
    }
}
