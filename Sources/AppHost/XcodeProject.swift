import Foundation

/// The files of one target of an Xcode project, read from its `project.pbxproj` (an OpenStep
/// property list, which Foundation reads on Linux too). The chain Xcode keeps: the project's
/// `PBXNativeTarget` (by name) → its `PBXSourcesBuildPhase` and `PBXResourcesBuildPhase` → their
/// `PBXBuildFile`s → each one's `PBXFileReference`, whose path is relative to its `sourceTree`:
/// `<group>` (the enclosing `PBXGroup`s' paths, from the project's main group), `SOURCE_ROOT` (the
/// folder holding the `.xcodeproj`) or `<absolute>`. Xcode 16's folders (a target's
/// `fileSystemSynchronizedGroups`, `PBXFileSystemSynchronizedRootGroup`) contribute every file under
/// them. Paths come back relative to the folder holding the `.xcodeproj`.
public struct XcodeProject {
    public let bundle: URL
    /// The folder holding the `.xcodeproj`: SOURCE_ROOT.
    public var root: URL { bundle.deletingLastPathComponent() }
    let objects: [String: [String: Any]]
    let rootObject: String

    public struct Target: Sendable, Equatable {
        public let name: String
        public let productType: String
        /// Swift files of its Sources phase, relative to `root`.
        public var swiftFiles: [String]
        /// Files of its Resources phase (and non-source files of synchronized folders), relative to `root`.
        public var resources: [String]
        /// Files of its Sources phase that are not Swift (Objective-C, C), which crosscheck cannot build.
        public var otherSources: [String]
    }

    public init(bundle: URL) throws {
        self.bundle = bundle.standardizedFileURL
        let file = bundle.appendingPathComponent("project.pbxproj")
        guard let data = FileManager.default.contents(atPath: file.path) else { throw XcodeProjectError("cannot read \(file.path)") }
        let plist: Any
        do { plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) } catch {
            throw XcodeProjectError("\(file.path) is not a property list Xcode writes: \(error)")
        }
        guard let top = plist as? [String: Any], let objects = top["objects"] as? [String: Any], let rootObject = top["rootObject"] as? String else {
            throw XcodeProjectError("\(file.path) has no objects or rootObject")
        }
        self.objects = objects.compactMapValues { $0 as? [String: Any] }
        self.rootObject = rootObject
    }

    func strings(_ object: [String: Any]?, _ key: String) -> [String] { object?[key] as? [String] ?? [] }

    /// The targets, in the project's order.
    public func targets() -> [Target] {
        strings(objects[rootObject], "targets").compactMap { id in
            guard let target = objects[id], target["isa"] as? String == "PBXNativeTarget" else { return nil }
            return read(target)
        }
    }

    /// The target called `name`, or (nil) the one app target when there is exactly one.
    public func target(_ name: String?) throws -> Target {
        let all = targets()
        if let name {
            guard let target = all.first(where: { $0.name == name }) else {
                throw XcodeProjectError("\(bundle.lastPathComponent) has no target '\(name)'; its targets: \(all.map(\.name).joined(separator: ", "))")
            }
            return target
        }
        let apps = all.filter { $0.productType == "com.apple.product-type.application" }
        if apps.count == 1 { return apps[0] }
        throw XcodeProjectError("\(bundle.lastPathComponent) has \(apps.count) app targets (\(all.map(\.name).joined(separator: ", "))): name one with --app-target NAME")
    }

    func read(_ target: [String: Any]) -> Target {
        var result = Target(name: target["name"] as? String ?? "", productType: target["productType"] as? String ?? "", swiftFiles: [], resources: [], otherSources: [])
        let paths = filePaths()
        for phaseID in strings(target, "buildPhases") {
            guard let phase = objects[phaseID], let isa = phase["isa"] as? String,
                  isa == "PBXSourcesBuildPhase" || isa == "PBXResourcesBuildPhase" else { continue }
            for buildFileID in strings(phase, "files") {
                guard let reference = objects[buildFileID]?["fileRef"] as? String, let path = paths[reference] else { continue }
                if isa == "PBXResourcesBuildPhase" { result.resources.append(path) } else if path.hasSuffix(".swift") { result.swiftFiles.append(path) } else { result.otherSources.append(path) }
            }
        }
        for groupID in strings(target, "fileSystemSynchronizedGroups") {
            guard let path = paths[groupID] else { continue }
            for file in Self.files(under: root.appendingPathComponent(path)) {
                let relative = path.isEmpty ? file : path + "/" + file
                if file.hasSuffix(".swift") { result.swiftFiles.append(relative) } else if !file.hasSuffix(".h") && !file.hasSuffix(".plist") { result.resources.append(relative) }
            }
        }
        return result
    }

    /// Every file reference and group, by id: its path relative to `root` (standardized).
    func filePaths() -> [String: String] {
        var parent: [String: String] = [:]
        for (id, object) in objects where ["PBXGroup", "PBXVariantGroup", "PBXFileSystemSynchronizedRootGroup"].contains(object["isa"] as? String ?? "") {
            for child in strings(object, "children") { parent[child] = id }
        }
        var cache: [String: String] = [:]
        func path(_ id: String, depth: Int = 0) -> String? {
            if let known = cache[id] { return known }
            guard depth < 64, let object = objects[id] else { return nil }
            let own = object["path"] as? String ?? ""
            let base: String?
            switch object["sourceTree"] as? String ?? "<group>" {
            case "<group>": base = parent[id].map { path($0, depth: depth + 1) } ?? ""
            case "SOURCE_ROOT": base = ""
            case "<absolute>": base = nil
            default: return nil  // BUILT_PRODUCTS_DIR, SDKROOT, …: not in the tree
            }
            let joined: String
            if let base { joined = base.isEmpty ? own : (own.isEmpty ? base : base + "/" + own) } else {
                joined = own.hasPrefix(root.path + "/") ? String(own.dropFirst(root.path.count + 1)) : own
            }
            let standardized = Self.standardize(joined)
            cache[id] = standardized
            return standardized
        }
        var out: [String: String] = [:]
        for (id, object) in objects where ["PBXFileReference", "PBXGroup", "PBXFileSystemSynchronizedRootGroup", "PBXVariantGroup"].contains(object["isa"] as? String ?? "") {
            if let value = path(id) { out[id] = value }
        }
        return out
    }

    static func standardize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." { parts.removeLast(); continue }
            parts.append(part)
        }
        return parts.joined(separator: "/")
    }

    /// Files under `folder`, relative to it, hidden ones skipped.
    static func files(under folder: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles]) else { return [] }
        let base = folder.standardizedFileURL.path
        return enumerator.compactMap { $0 as? URL }
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .map { String($0.standardizedFileURL.path.dropFirst(base.count).drop { $0 == "/" }) }
            .sorted()
    }

    /// The `.xcodeproj` at `url`, or the one inside the folder `url` (nil when there is none; an error for several).
    public static func find(at url: URL) throws -> URL? {
        if url.pathExtension == "xcodeproj" { return url }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        let projects = names.filter { $0.hasSuffix(".xcodeproj") }.sorted()
        if projects.count > 1 { throw XcodeProjectError("\(url.path) holds \(projects.count) Xcode projects (\(projects.joined(separator: ", "))): give one as --app DIR/NAME.xcodeproj") }
        return projects.first.map { url.appendingPathComponent($0) }
    }
}

public struct XcodeProjectError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
