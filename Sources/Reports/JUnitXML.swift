import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Writes and reads JUnit XML that validates against the Apache Ant schema in
/// Vectors/junit/JUnit.xsd (`xmllint --noout --schema Vectors/junit/JUnit.xsd report.xml`).
///
/// What is written, in schema order:
///
///     <testsuites>
///       <testsuite name package id timestamp hostname tests failures errors skipped time>
///         <properties> <property name value/>* </properties>
///         <testcase name classname time> [<failure message type>details</failure>
///                                        | <error message type>details</error>
///                                        | <skipped message/>] </testcase>*
///         <system-out>...</system-out>
///         <system-err>...</system-err>
///       </testsuite>*
///     </testsuites>
///
/// Per-case properties: the Ant schema has no place for data inside `<testcase>` besides its
/// name and one failure/error/skipped element (no properties, no system-out). Writing them as
/// suite properties (`testcase[<index>:<name>].<property>`, as earlier versions did) buried a
/// Wycheproof report under thousands of them. So they are written as one block at the end of the
/// suite's `<system-out>`, after the suite's own output and a newline:
///
///     --- testcase properties (crosscheck) ---
///     testcase 3 rsa_pss_sign
///       key_bits = 2048
///       salt =
///     --- end of testcase properties ---
///
/// `testcase <index> <name>` names the case by its 0-based position and name; each property
/// follows on its own line, indented by two spaces, as `<name> = <value>`. In names and values a
/// backslash is written `\\`, a line feed `\n`, a carriage return `\r`; a property name's `=`
/// is written `\e`, so the first `=` on the line separates name from value. `read` moves the
/// properties back to their cases when every index and name matches; otherwise the block stays
/// ordinary suite output. Reports in the earlier form (suite properties named
/// `testcase[<index>:<name>].<property>`) are still read back onto their cases.
///
/// Text: every string goes through an XML 1.0 filter first (see `JUnitFormat.xmlSafe`): control
/// characters other than tab, LF and CR, and U+FFFE/U+FFFF, become visible escapes such as `\x07`.
/// Attributes the schema requires to be non-empty tokens get a stand-in when empty: a suite name
/// or property name becomes "(unnamed)", a hostname "localhost" (what the schema asks for when
/// it is unknown). Times are seconds: a suite's with three decimals, a testcase's to the microsecond
/// (at least three decimals); timestamps are UTC to the second.
public enum JUnitXML {

    /// The XML declaration at the top of `data`; FoundationXML on Linux always adds
    /// `standalone="no"` and a lower-case encoding name, so `data` puts this one in its place.
    static let declaration = #"<?xml version="1.0" encoding="UTF-8"?>"#

    static let unnamed = "(unnamed)"
    static let unknownHost = "localhost"

    // MARK: Writing

    /// The report as an XML tree, ready to serialise or to inspect.
    public static func document(_ report: JUnitReport) -> XMLDocument {
        let root = XMLElement(name: "testsuites")
        for (id, suite) in report.suites.enumerated() {
            root.addChild(element(for: suite, id: id))
        }
        let document = XMLDocument(rootElement: root)
        document.version = "1.0"
        document.characterEncoding = "UTF-8"
        return document
    }

    /// The report as pretty-printed UTF-8 XML beginning with
    /// `<?xml version="1.0" encoding="UTF-8"?>` and ending with a newline.
    public static func data(_ report: JUnitReport) -> Data {
        let serialised = document(report).xmlData(options: [.nodePrettyPrint])
        var body = serialised[...]
        if body.starts(with: Data("<?xml".utf8)), let end = body.range(of: Data("?>".utf8)) {
            body = body[end.upperBound...]
        }
        while let first = body.first, first == UInt8(ascii: "\n") || first == UInt8(ascii: "\r") {
            body = body.dropFirst()
        }
        var out = Data(declaration.utf8)
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: body)
        if out.last != UInt8(ascii: "\n") { out.append(UInt8(ascii: "\n")) }
        return out
    }

    /// Writes the report atomically: the bytes go to a temporary file in the target's directory,
    /// which is flushed to disk and then renamed over `url`, so readers see either the old file
    /// or the complete new one. Missing parent directories are created.
    /// - Throws: `ReportError.cannotWrite` naming the path and the reason.
    public static func write(_ report: JUnitReport, to url: URL) throws {
        try AtomicFile.write(data(report), to: url)
    }

    static func element(for suite: JUnitSuite, id: Int) -> XMLElement {
        let element = XMLElement(name: "testsuite")
        set(element, "name", JUnitFormat.nonEmptyToken(suite.name, fallback: unnamed))
        set(element, "package", JUnitFormat.xmlSafe(suite.package))
        set(element, "id", String(id))
        set(element, "timestamp", JUnitFormat.formatTimestamp(suite.timestamp))
        set(element, "hostname", JUnitFormat.nonEmptyToken(suite.hostname, fallback: unknownHost))
        set(element, "tests", String(suite.tests))
        set(element, "failures", String(suite.failures))
        set(element, "errors", String(suite.errors))
        set(element, "skipped", String(suite.skipped))
        set(element, "time", JUnitFormat.formatTime(suite.time))

        let properties = XMLElement(name: "properties")
        for property in suite.properties {
            properties.addChild(propertyElement(name: property.name, value: property.value))
        }
        element.addChild(properties)

        for testCase in suite.cases {
            element.addChild(self.element(for: testCase))
        }

        element.addChild(textElement("system-out", CasePropertyBlock.append(to: suite.systemOut, cases: suite.cases)))
        element.addChild(textElement("system-err", suite.systemErr))
        return element
    }

    static func element(for testCase: JUnitCase) -> XMLElement {
        let element = XMLElement(name: "testcase")
        set(element, "name", JUnitFormat.xmlSafe(testCase.name))
        set(element, "classname", JUnitFormat.xmlSafe(testCase.classname))
        set(element, "time", JUnitFormat.formatCaseTime(testCase.time))
        switch testCase.outcome {
        case .passed:
            break
        case .failed(let message, let type, let details):
            element.addChild(outcomeElement("failure", message: message, type: type, details: details))
        case .error(let message, let type, let details):
            element.addChild(outcomeElement("error", message: message, type: type, details: details))
        case .skipped(let message):
            element.addChild(outcomeElement("skipped", message: message, type: nil, details: ""))
        }
        return element
    }

    static func outcomeElement(_ name: String, message: String, type: String?, details: String) -> XMLElement {
        let element = textElement(name, details)
        set(element, "message", JUnitFormat.xmlSafe(message))
        if let type { set(element, "type", JUnitFormat.xmlSafe(type)) }
        return element
    }

    static func propertyElement(name: String, value: String) -> XMLElement {
        let element = XMLElement(name: "property")
        set(element, "name", JUnitFormat.nonEmptyToken(name, fallback: unnamed))
        set(element, "value", JUnitFormat.xmlSafe(value))
        return element
    }

    /// An element whose content is `text` as a single text node (escaped by the serialiser).
    static func textElement(_ name: String, _ text: String) -> XMLElement {
        let element = XMLElement(name: name)
        if !text.isEmpty {
            // swiftlint:disable:next force_cast
            element.addChild(XMLNode.text(withStringValue: JUnitFormat.xmlSafe(text)) as! XMLNode)
        }
        return element
    }

    static func set(_ element: XMLElement, _ name: String, _ value: String) {
        // swiftlint:disable:next force_cast
        element.addAttribute(XMLNode.attribute(withName: name, stringValue: value) as! XMLNode)
    }

    /// The case index and property name encoded in a suite property's name in the earlier form
    /// `testcase[<index>:<name>].<property>`, if it is a case property of one of `cases`.
    static func caseProperty(_ name: String, cases: [JUnitCase]) -> (index: Int, property: String)? {
        // Works on UTF-8 bytes: every delimiter is ASCII, so grapheme clustering cannot blur them.
        let bytes = Array(name.utf8)
        let prefix = Array("testcase[".utf8)
        guard bytes.starts(with: prefix) else { return nil }
        var position = prefix.count
        var index = 0
        let digitsStart = position
        while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
            index = index &* 10 &+ Int(bytes[position] - UInt8(ascii: "0"))
            position += 1
            if position - digitsStart > 9 { return nil }
        }
        guard position > digitsStart, position < bytes.count, bytes[position] == UInt8(ascii: ":"),
              index < cases.count else { return nil }
        position += 1
        let marker = Array(cases[index].name.utf8) + Array("].".utf8)
        guard bytes[position...].starts(with: marker) else { return nil }
        return (index, String(decoding: bytes[(position + marker.count)...], as: UTF8.self))
    }

    // MARK: Reading

    /// Reads a JUnit file: a `<testsuites>` document as written by `write`, or a single
    /// `<testsuite>` document as many other tools write. The counts in the file are not trusted;
    /// they are recomputed from the cases. Attributes this module always writes but other tools
    /// may leave out get neutral values (empty strings, time 0, timestamp 1970-01-01T00:00:00).
    /// - Throws: `ReportError.cannotRead` if the file cannot be read, `ReportError.malformed` if
    ///   it is not well-formed XML or not a JUnit report.
    public static func read(from url: URL) throws -> JUnitReport {
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ReportError.cannotRead(path: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else {
            throw ReportError.cannotRead(path: path, reason: "it is a directory, not a file")
        }
        let bytes: Data
        do {
            bytes = try Data(contentsOf: url)
        } catch {
            throw ReportError.cannotRead(path: path, reason: error.localizedDescription)
        }
        return try parse(bytes, path: path)
    }

    /// Parses JUnit XML held in memory; `path` is only used in error messages.
    public static func parse(_ bytes: Data, path: String = "<data>") throws -> JUnitReport {
        // FoundationXML's XMLDocument parses in libxml2's recovery mode: on some broken input it
        // prints to stderr, builds a partial tree or even crashes instead of throwing. So the
        // bytes are checked for well-formedness with the streaming parser first.
        if let problem = WellFormedness.check(bytes) {
            throw ReportError.malformed(path: path, reason: "it is not well-formed XML (\(problem))")
        }
        let document: XMLDocument
        do {
            document = try XMLDocument(data: bytes, options: [.nodePreserveWhitespace, .nodeLoadExternalEntitiesNever])
        } catch {
            throw ReportError.malformed(path: path, reason: "it is not well-formed XML (\(error.localizedDescription))")
        }
        guard let root = document.rootElement() else {
            throw ReportError.malformed(path: path, reason: "the document has no root element")
        }
        switch root.name {
        case "testsuites":
            let suites = try root.elements(forName: "testsuite").map { try suite(from: $0, path: path) }
            return JUnitReport(suites: suites)
        case "testsuite":
            return JUnitReport(suites: [try suite(from: root, path: path)])
        default:
            throw ReportError.malformed(
                path: path,
                reason: "the root element is <\(root.name ?? "")>, expected <testsuites> or <testsuite>")
        }
    }

    static func suite(from element: XMLElement, path: String) throws -> JUnitSuite {
        let name = attribute(element, "name") ?? ""
        let timestamp: Date
        if let text = attribute(element, "timestamp") {
            guard let date = JUnitFormat.parseTimestamp(text) else {
                throw ReportError.malformed(
                    path: path,
                    reason: "testsuite \"\(name)\" has timestamp \"\(text)\"; expected ISO 8601 like 2026-11-30T06:10:00")
            }
            timestamp = date
        } else {
            timestamp = Date(timeIntervalSince1970: 0)
        }

        var properties: [JUnitProperty] = []
        for container in element.elements(forName: "properties") {
            for property in container.elements(forName: "property") {
                guard let propertyName = attribute(property, "name") else {
                    throw ReportError.malformed(
                        path: path, reason: "a property of testsuite \"\(name)\" has no name attribute")
                }
                // Some tools put the value in the element's text instead of a value attribute.
                let value = attribute(property, "value") ?? property.stringValue ?? ""
                properties.append(JUnitProperty(name: propertyName, value: value))
            }
        }

        var cases = try element.elements(forName: "testcase").map { try testCase(from: $0, suite: name, path: path) }
        var systemOut = element.elements(forName: "system-out").first?.stringValue ?? ""
        if let (output, caseProperties) = CasePropertyBlock.split(systemOut, cases: cases) {
            systemOut = output
            for (index, properties) in caseProperties { cases[index].properties += properties }
        }

        var suiteProperties: [JUnitProperty] = []
        for property in properties {
            if let (index, caseProperty) = caseProperty(property.name, cases: cases) {
                cases[index].properties.append(JUnitProperty(name: caseProperty, value: property.value))
            } else {
                suiteProperties.append(property)
            }
        }

        return JUnitSuite(
            name: name,
            package: attribute(element, "package") ?? "",
            timestamp: timestamp,
            hostname: attribute(element, "hostname") ?? "",
            properties: suiteProperties,
            cases: cases,
            systemOut: systemOut,
            systemErr: element.elements(forName: "system-err").first?.stringValue ?? "")
    }

    static func testCase(from element: XMLElement, suite: String, path: String) throws -> JUnitCase {
        let name = attribute(element, "name") ?? ""
        var time: TimeInterval = 0
        if let text = attribute(element, "time") {
            guard let value = JUnitFormat.parseTime(text) else {
                throw ReportError.malformed(
                    path: path,
                    reason: "testcase \"\(name)\" in testsuite \"\(suite)\" has time \"\(text)\"; expected seconds like 1.250")
            }
            time = value
        }

        var outcome = JUnitCase.Outcome.passed
        let children = (element.children ?? []).compactMap { $0 as? XMLElement }
        if let first = children.first(where: { ["failure", "error", "skipped"].contains($0.name ?? "") }) {
            let message = attribute(first, "message") ?? ""
            let type = attribute(first, "type") ?? ""
            let details = first.stringValue ?? ""
            switch first.name {
            case "failure": outcome = .failed(message: message, type: type, details: details)
            case "error": outcome = .error(message: message, type: type, details: details)
            default: outcome = .skipped(message: attribute(first, "message") ?? details)
            }
        }

        return JUnitCase(
            name: name,
            classname: attribute(element, "classname") ?? "",
            time: time,
            outcome: outcome)
    }

    static func attribute(_ element: XMLElement, _ name: String) -> String? {
        element.attribute(forName: name)?.stringValue
    }
}

/// Well-formedness check with the streaming `XMLParser`, which reports errors reliably.
final class WellFormedness: NSObject, XMLParserDelegate {
    private var sawElement = false

    /// nil when `bytes` hold a well-formed document with a root element, else what is wrong.
    static func check(_ bytes: Data) -> String? {
        let checker = WellFormedness()
        let parser = XMLParser(data: bytes)
        parser.shouldResolveExternalEntities = false
        parser.delegate = checker
        let succeeded = parser.parse()
        if let error = parser.parserError {
            let code = (error as NSError).code
            let name = XMLParser.ErrorCode(rawValue: code).map { " \($0)" } ?? ""
            return "parser error \(code)\(name) near line \(parser.lineNumber), column \(parser.columnNumber)"
        }
        if !succeeded { return "the XML parser gave up" }
        if !checker.sawElement { return "the file has no XML element in it" }
        return nil
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        sawElement = true
    }
}
