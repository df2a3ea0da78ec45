import Foundation
import Conformance
import StrictFormats
import WireProtocol

/// Mutations of one message, field by field where the message has fields: a JSON body's fields
/// (dropped, retyped, their encoded bytes flipped or cut), a request's headers, and for bytes on
/// a socket the bytes themselves (a flipped bit, cut short, one byte more, empty). Both engines
/// are given the same mutated bytes, so what matters is that each mutation is one a peer could
/// send, not that it is clever.
enum MessageMutator {
    struct Mutation {
        let name: String
        let message: DescribedMessage
    }

    static func mutations(of message: DescribedMessage, count: Int, generator: inout SeededGenerator) -> [Mutation] {
        var found: [Mutation] = []
        switch message {
        case let .bytes(data):
            if let object = try? StrictJSON.parse(data), case .object = object {
                found += json(object, generator: &generator).map { Mutation(name: $0.name, message: .bytes($0.body)) }
            }
            found += bytes(data, generator: &generator).map { Mutation(name: $0.name, message: .bytes($0.body)) }
        case let .request(method, path, headers, body):
            for name in headers.keys.sorted() {
                var fewer = headers
                fewer[name] = nil
                found.append(Mutation(name: "header \(name) left out", message: .request(method: method, path: path, headers: fewer, body: body)))
                var changed = headers
                changed[name] = (headers[name] ?? "") + "x"
                found.append(Mutation(name: "header \(name) changed", message: .request(method: method, path: path, headers: changed, body: body)))
            }
            found += mutatedBodies(body, generator: &generator).map { Mutation(name: $0.name, message: .request(method: method, path: path, headers: headers, body: $0.body)) }
        case let .response(status, headers, body):
            found += mutatedBodies(body, generator: &generator).map { Mutation(name: $0.name, message: .response(status: status, headers: headers, body: $0.body)) }
        }
        // Field mutations first (they are few and each says something); then as many byte ones as asked.
        return Array(found.prefix(max(count, 0)))
    }

    private static func mutatedBodies(_ data: Data, generator: inout SeededGenerator) -> [(name: String, body: Data)] {
        if let object = try? StrictJSON.parse(data), case .object = object {
            return json(object, generator: &generator) + bytes(data, generator: &generator).prefix(3)
        }
        return bytes(data, generator: &generator)
    }

    /// Each field of a JSON object: left out, a number instead, and for a string holding base64 or
    /// hex, its decoded bytes with one bit flipped, one byte fewer, or none.
    private static func json(_ object: JSONValue, generator: inout SeededGenerator) -> [(name: String, body: Data)] {
        guard case let .object(members) = object else { return [] }
        var found: [(name: String, body: Data)] = []
        func with(_ name: String, _ value: JSONValue?) -> Data {
            var changed = members
            changed[name] = value
            return Data(JSONValue.object(changed).canonicalText.utf8)
        }
        for name in members.keys.sorted() {
            found.append(("field \(name) left out", with(name, nil)))
            found.append(("field \(name) a number", with(name, .number("7"))))
            guard case let .string(text)? = members[name] else { continue }
            let decoded: (Data, (Data) -> String)?
            if let raw = Data(base64Encoded: text), !text.isEmpty {
                decoded = (raw, { $0.base64EncodedString() })
            } else if text.count % 2 == 0, !text.isEmpty, let raw = hexBytes(text) {
                decoded = (raw, { $0.map { String(format: "%02x", $0) }.joined() })
            } else {
                decoded = nil
            }
            if let (raw, encode) = decoded, !raw.isEmpty {
                var flipped = raw
                let index = Int(generator.next() % UInt64(raw.count))
                flipped[flipped.startIndex + index] ^= UInt8(1 << (generator.next() % 8))
                found.append(("field \(name): bit flipped in byte \(index)", with(name, .string(encode(flipped)))))
                found.append(("field \(name): last byte cut", with(name, .string(encode(raw.dropLast())))))
                found.append(("field \(name): first block cut", with(name, .string(encode(raw.dropFirst(min(16, raw.count)))))))
            }
            found.append(("field \(name) empty", with(name, .string(""))))
        }
        return found
    }

    /// Bytes: a bit flipped (near the end, where ciphertexts and tags are, and at random), the last
    /// byte cut, one byte more, half of it, nothing.
    private static func bytes(_ data: Data, generator: inout SeededGenerator) -> [(name: String, body: Data)] {
        var found: [(name: String, body: Data)] = []
        if !data.isEmpty {
            for index in [data.count - 1, Int(generator.next() % UInt64(data.count)), Int(generator.next() % UInt64(data.count))] {
                var flipped = data
                flipped[flipped.startIndex + index] ^= UInt8(1 << (generator.next() % 8))
                found.append(("bit flipped in byte \(index)", flipped))
            }
            found.append(("last byte cut", data.dropLast()))
            found.append(("cut to half", data.prefix(data.count / 2)))
        }
        found.append(("one byte more", data + Data([UInt8(truncatingIfNeeded: generator.next())])))
        found.append(("empty", Data()))
        return found
    }

    private static func hexBytes(_ text: String) -> Data? {
        var data = Data()
        var high: UInt8?
        for character in text.utf8 {
            guard let value = HexDigit.value(character) else { return nil }
            if let first = high { data.append(first << 4 | value); high = nil } else { high = value }
        }
        return data
    }
}
