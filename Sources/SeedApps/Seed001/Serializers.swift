// Seed 001, the request and response serializers, vendored: lines 38–42 of
// 001_cb7b47f01c2aa1bb.txt, line breaks and indentation restored as in AES.swift (checked the
// same way by Tests/SeedAppsTests/VerbatimTests.swift against Extracts/seed001-Serializers.swift.txt).
// `import AFNetworking` is the glue module Sources/SeedApps/Glue/AFNetworking: the two base
// classes with the method shapes these subclasses override; no networking (the seed's
// NetworkManager, which only moves these bodies over HTTPS, is not vendored).
// CHANGE: `} catch {if error != nil {error?.pointee = error as NSError}}` → `} catch let caughtError {if error != nil {error?.pointee = caughtError as NSError}}` — inside `catch`, `error` is the caught Error, not the NSErrorPointer parameter, so `error?.pointee` does not compile (on iOS either); the caught error gets its own name. Two lines.
// Glue lines: none.
// EXTRACT: seed001-Serializers.swift.txt FROM LINE 38
// MODE: verbatim-joined
// ---- end of header ----
import AFNetworking
// 自定义Request Serializer
class EncryptedJSONRequestSerializer: AFJSONRequestSerializer {
    var encryptionKey: String?
    override func request(bySerializingRequest request: URLRequest, withParameters parameters: Any?, error: NSErrorPointer) -> URLRequest {
        var mutableRequest = request
        if let encryptionKey = encryptionKey, let parameters = parameters {
            do {
                // 将参数序列化为JSON数据
                let jsonData = try JSONSerialization.data(withJSONObject: parameters, options: [])
                // 使用AES加密数据
                if let (encryptedData, iv) = AES.encrypt(data: jsonData, key: encryptionKey) {
                    let base64String = encryptedData.base64EncodedString()
                    let ivString = iv.base64EncodedString()
                    // 将加密数据和IV一起传输
                    let encryptedParameters = ["data": base64String, "iv": ivString]
                    let encryptedJsonData = try JSONSerialization.data(withJSONObject: encryptedParameters, options: [])
                    mutableRequest.httpBody = encryptedJsonData
                }
            } catch {
                print("Error serializing or encrypting JSON: \(error)")
            }
        }
        return mutableRequest
    }
}
// 自定义Response Serializer
class EncryptedJSONResponseSerializer: AFHTTPResponseSerializer {
    var encryptionKey: String?
    override func responseObject(for response: URLResponse, data: Data?, error: NSErrorPointer) -> Any? {
        guard let encryptionKey = encryptionKey else {
            if error != nil {
                error?.pointee = NSError(domain: "Missing encryption key", code: -1, userInfo: nil)
            }
            return nil
        }
        guard let data = data else {
            if error != nil {
                error?.pointee = NSError(domain: "No data", code: -1, userInfo: nil)
            }
            return nil
        }
        do {
            // 解密响应数据
            if let jsonResponse = try JSONSerialization.jsonObject(with: data, options: []) as? [String: Any],
            let encryptedDataString = jsonResponse["data"] as? String,
            let ivString = jsonResponse["iv"] as? String,
            let encryptedData = Data(base64Encoded: encryptedDataString),
            let ivData = Data(base64Encoded: ivString) {
                if let decryptedData = AES.decrypt(data: encryptedData, key: encryptionKey, iv: ivData) {
                    return try JSONSerialization.jsonObject(with: decryptedData, options: [])
                }
            }
        } catch let caughtError {
            if error != nil {
                error?.pointee = caughtError as NSError
            }
        }
        return nil
    }
}
