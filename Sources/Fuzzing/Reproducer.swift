import Foundation
import Conformance
import Frames

/// A saved failure: enough to run the one frame again, alone (`crosscheck replay FILE`).
/// `frame` and `setting` are the input itself; when they are missing (a crash file written from a
/// signal handler), the frame is regenerated from `seed`, `family` and `ordinal`.
public struct FuzzReproducer: Codable, Sendable, Equatable {
    public static let formatName = "crosscheck-fuzz-reproducer/1"

    public var format = FuzzReproducer.formatName
    /// `disagreement`, `crash` or `hang`.
    public var kind: String
    public var family: FrameFamily
    public var mutator: String?
    public var seed: UInt64
    /// The frame's number within its family for this seed (`FrameGenerator.frame(_:ordinal:)`).
    public var ordinal: Int
    /// The frame's bytes, base64.
    public var frame: String?
    public var setting: [String: String]?
    public var tail: FrameTail?
    /// `inprocess`, or the `HOST:PORT` the frame was sent to.
    public var target: String
    /// The planted flaw the Swift side ran with (`PlantedFlaw`), if any.
    public var plant: String?
    /// The verdicts when the failure was found, one line each.
    public var swift: String?
    public var python: String?
    public var note: String?

    public init(kind: String, frame: FuzzFrame?, family: FrameFamily, seed: UInt64, ordinal: Int, target: String = "inprocess",
                plant: PlantedFlaw? = nil, swift: FuzzVerdict? = nil, python: FuzzVerdict? = nil, note: String? = nil) {
        self.kind = kind
        self.family = family
        self.mutator = frame?.mutator
        self.seed = seed
        self.ordinal = ordinal
        self.frame = frame?.bytes.base64EncodedString()
        self.setting = frame?.setting.fields
        self.tail = frame?.tail
        self.target = target
        self.plant = plant?.rawValue
        self.swift = swift.map { $0.line + ($0.note.isEmpty ? "" : " — \($0.note.prefix(300))") }
        self.python = python.map { $0.line + ($0.note.isEmpty ? "" : " — \($0.note.prefix(300))") }
        self.note = note
    }

    /// The frame, from the file or regenerated from the seed.
    public func fuzzFrame(corpus: @autoclosure () throws -> FuzzCorpus) throws -> FuzzFrame {
        if let frame, let bytes = Data(base64Encoded: frame) {
            return FuzzFrame(family: family, mutator: mutator ?? "replayed", bytes: bytes, setting: FuzzSetting(setting ?? [:]), tail: tail)
        }
        return FrameGenerator(corpus: try corpus(), seed: seed).frame(family, ordinal: ordinal)
    }

    public var plantedFlaw: PlantedFlaw? { plant.flatMap(PlantedFlaw.init(rawValue:)) }

    public static func load(_ url: URL) throws -> FuzzReproducer {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ReproducerError(path: url.path, problem: "no such file, or not readable")
        }
        let reproducer: FuzzReproducer
        do { reproducer = try JSONDecoder().decode(FuzzReproducer.self, from: data) } catch let error as DecodingError {
            throw ReproducerError(path: url.path, problem: "not a fuzz reproducer (\(Self.plainWords(error)))")
        }
        guard reproducer.format == formatName else {
            throw ReproducerError(path: url.path, problem: "format '\(reproducer.format)', but this crosscheck reads '\(formatName)'")
        }
        return reproducer
    }

    /// A decoding failure in words, without Swift's coding-path internals.
    static func plainWords(_ error: DecodingError) -> String {
        func field(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return path.isEmpty ? "the file" : "'\(path)'"
        }
        switch error {
        case let .dataCorrupted(context) where context.codingPath.isEmpty: return "not JSON"
        case let .dataCorrupted(context): return "\(field(context)) has a value it cannot take"
        case let .keyNotFound(key, context):
            return "field '\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))' is missing"
        case let .typeMismatch(type, context): return "\(field(context)) is not \(type == String.self ? "text" : "a \(type)")"
        case let .valueNotFound(_, context): return "\(field(context)) is null"
        @unknown default: return "unreadable JSON"
        }
    }

    public func write(to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(self).write(to: url, options: .atomic)
    }
}

/// A reproducer file that cannot be used, and why.
public struct ReproducerError: Error, Equatable, CustomStringConvertible {
    public let path: String
    public let problem: String
    public var description: String {
        "\(path): \(problem); a reproducer is a JSON file written by 'crosscheck fuzz' into reports/fuzz-failures/"
    }
}
