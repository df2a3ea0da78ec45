// The adapter for seed 001 (not seed code): the app's two serializers as an aes-https client.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AppUnderTest

public final class Seed001Adapter: AppUnderTest, AESEnvelopeClient {
    public let identifier = "seed-001"
    public let summary = "seed 001: aes-https client, CommonCrypto AES-128-CBC envelope in AFNetworking serializers"
    /// What the app's code does with the key string: its UTF-8 bytes in a 16-byte zeroed buffer.
    public let keyDerivation = "utf8-zeropad16"

    public init() {}

    public func requestBody(parameters: [String: Any], encryptionKey: String) throws -> Data {
        let serializer = EncryptedJSONRequestSerializer()
        serializer.encryptionKey = encryptionKey
        let request = URLRequest(url: URL(string: "https://localhost:8443/secure-data")!)
        let serialized = serializer.request(bySerializingRequest: request, withParameters: parameters, error: nil)
        guard let body = serialized.httpBody else {
            throw AppFailure("requestBody", "the app set no body (its AES.encrypt returned nil or JSON serialization failed)")
        }
        return body
    }

    public func responseObject(body: Data, encryptionKey: String) throws -> Any {
        let serializer = EncryptedJSONResponseSerializer()
        serializer.encryptionKey = encryptionKey
        let response = URLResponse(url: URL(string: "https://localhost:8443/secure-data")!, mimeType: "application/json",
                                   expectedContentLength: body.count, textEncodingName: nil)
        var error: NSError?
        if let object = serializer.responseObject(for: response, data: body, error: &error) { return object }
        throw AppFailure("responseObject", error.map { "\($0)" } ?? "the app returned nil (the envelope did not decrypt to JSON)")
    }
}
