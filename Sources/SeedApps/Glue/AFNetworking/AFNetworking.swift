// GLUE for seed 001, not AFNetworking: the two base classes the seed's serializers subclass,
// with the method shapes the seed overrides, and nothing else. The seed file says
// `import AFNetworking`, which on iOS also brings Foundation; this module re-exports it (and
// FoundationNetworking, where Linux keeps URLRequest). Foundation on Linux has no
// NSErrorPointer (it is Objective-C's NSError **); a plain pointer plays its part here.
@_exported import Foundation
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif

public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?

open class AFJSONRequestSerializer {
    public init() {}
    /// The base serializer leaves the request as it is; the seed's subclass sets the body.
    open func request(bySerializingRequest request: URLRequest, withParameters parameters: Any?, error: NSErrorPointer) -> URLRequest {
        request
    }
}

open class AFHTTPResponseSerializer {
    public init() {}
    /// The base serializer hands back the body as it is; the seed's subclass decrypts it.
    open func responseObject(for response: URLResponse, data: Data?, error: NSErrorPointer) -> Any? {
        data
    }
}
