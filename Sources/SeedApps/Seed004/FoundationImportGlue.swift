// GLUE for seed 004 (the whole file). Apple's FileManager.createFile(atPath:contents:attributes:)
// comes from Objective-C, so ignoring its Bool result is not a warning there; swift-corelibs-
// foundation declares it in Swift without @discardableResult, so the seed's two calls would warn
// here. This overload, with the exact argument types the seed passes, is chosen for those calls
// and forwards to Foundation's method unchanged (Optional arguments select Foundation's).
import Foundation

extension FileManager {
    @discardableResult
    func createFile(atPath path: String, contents data: Data, attributes attr: [FileAttributeKey: Any]) -> Bool {
        createFile(atPath: path, contents: Optional(data), attributes: Optional(attr))
    }
}
