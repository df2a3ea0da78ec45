import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest
@testable import Reports

final class JUnitXMLTests: TemporaryDirectoryTestCase {

    private func parsed(_ report: JUnitReport) throws -> XMLDocument {
        try XMLDocument(data: JUnitXML.data(report), options: [.nodePreserveWhitespace])
    }

    private func suites(_ document: XMLDocument) -> [XMLElement] {
        document.rootElement()?.elements(forName: "testsuite") ?? []
    }

    private func attribute(_ element: XMLElement, _ name: String) -> String? {
        element.attribute(forName: name)?.stringValue
    }

    // MARK: Structure and counts

    func testCountsAndAttributes() throws {
        let document = try parsed(Fixtures.report())
        XCTAssertEqual(document.rootElement()?.name, "testsuites")
        let suites = suites(document)
        XCTAssertEqual(suites.count, 2)

        let suite = suites[0]
        XCTAssertEqual(attribute(suite, "name"), "roundtrip.swift_to_python")
        XCTAssertEqual(attribute(suite, "package"), "crosscheck.roundtrip")
        XCTAssertEqual(attribute(suite, "id"), "0")
        XCTAssertEqual(attribute(suite, "timestamp"), "2026-11-30T06:10:00")
        XCTAssertEqual(attribute(suite, "hostname"), "ci-runner-7")
        XCTAssertEqual(attribute(suite, "tests"), "6")
        XCTAssertEqual(attribute(suite, "failures"), "1")
        XCTAssertEqual(attribute(suite, "errors"), "1")
        XCTAssertEqual(attribute(suite, "skipped"), "1")
        XCTAssertEqual(attribute(suite, "time"), "31.629")

        let empty = suites[1]
        XCTAssertEqual(attribute(empty, "id"), "1")
        XCTAssertEqual(attribute(empty, "tests"), "0")
        XCTAssertEqual(attribute(empty, "time"), "0.000")
        XCTAssertEqual(attribute(empty, "timestamp"), "2026-11-30T07:10:00")

        // Children in schema order: properties, testcase*, system-out, system-err.
        let names = (suite.children ?? []).compactMap { ($0 as? XMLElement)?.name }
        XCTAssertEqual(names, ["properties"] + Array(repeating: "testcase", count: 6) + ["system-out", "system-err"])
        XCTAssertEqual((empty.children ?? []).compactMap { ($0 as? XMLElement)?.name },
                       ["properties", "system-out", "system-err"])

        let cases = suite.elements(forName: "testcase")
        XCTAssertEqual(attribute(cases[0], "classname"), "crosscheck.aead.swift_to_python")
        XCTAssertEqual(attribute(cases[0], "time"), "0.125")
        XCTAssertEqual(cases[0].children?.count ?? 0, 0)
        XCTAssertEqual(attribute(cases[2], "name"), "sha256 <empty> & \"quoted\"")

        let failure = try XCTUnwrap(cases[3].elements(forName: "failure").first)
        XCTAssertEqual(attribute(failure, "message"), "signature does not verify on the Python side")
        XCTAssertEqual(attribute(failure, "type"), "SignatureMismatch")
        XCTAssertEqual(failure.stringValue, "expected: 3f a1 09\nactual:   3f a1 0a\n  at rsa_pss_sign\n")
        let error = try XCTUnwrap(cases[4].elements(forName: "error").first)
        XCTAssertEqual(attribute(error, "type"), "Timeout")
        XCTAssertEqual(attribute(cases[4], "time"), "30.000")
        let skipped = try XCTUnwrap(cases[5].elements(forName: "skipped").first)
        XCTAssertEqual(attribute(skipped, "message"), "OpenSSL build has no Ed448")
        for testCase in cases {
            let elements = (testCase.children ?? []).compactMap { $0 as? XMLElement }
            XCTAssertLessThanOrEqual(elements.count, 1, "a testcase holds at most one outcome")
        }

        // The suite's output, then the testcase properties (see the test below).
        XCTAssertTrue(suite.elements(forName: "system-out").first?.stringValue?
            .hasPrefix("started python server on port 50123\n  <ready>\n\n--- testcase properties") == true)
        XCTAssertEqual(suite.elements(forName: "system-err").first?.stringValue, "warning: slow host & busy CPU\n")
    }

    func testCasePropertiesGoToTheSuiteOutputNotToSuiteProperties() throws {
        let suite = try XCTUnwrap(suites(try parsed(Fixtures.report())).first)
        let properties = try XCTUnwrap(suite.elements(forName: "properties").first).elements(forName: "property")
        XCTAssertEqual(properties.map { attribute($0, "name") ?? "?" }, ["python.version", "openssl.version", "seed"],
                       "only the suite's own properties are suite properties")
        XCTAssertEqual(suite.elements(forName: "system-out").first?.stringValue, """
            started python server on port 50123
              <ready>

            --- testcase properties (crosscheck) ---
            testcase 1 chacha20_poly1305
              vector = rfc8439-2.8.2
            testcase 3 rsa_pss_sign
              key_bits = 2048
              salt =\u{20}
            testcase 5 ed448
              reason = provider missing
            --- end of testcase properties ---

            """)
    }

    func testReportsInTheEarlierFormReadCasePropertiesBack() throws {
        let xml = """
        <testsuites><testsuite name="s" package="p" id="0" timestamp="2026-11-30T06:10:00" hostname="h" tests="2" failures="0" errors="0" skipped="0" time="0">
        <properties><property name="seed" value="1"/><property name="testcase[1:b].weakness" value="small RSA"/></properties>
        <testcase name="a" classname="k" time="0"/><testcase name="b" classname="k" time="0"/>
        <system-out/><system-err/></testsuite></testsuites>
        """
        let suite = try XCTUnwrap(JUnitXML.parse(Data(xml.utf8)).suites.first)
        XCTAssertEqual(suite.properties, [JUnitProperty(name: "seed", value: "1")])
        XCTAssertEqual(suite.cases[1].properties, [JUnitProperty(name: "weakness", value: "small RSA")])
    }

    func testAPropertyBlockThatDoesNotMatchTheCasesStaysSuiteOutput() throws {
        for output in [
            "--- testcase properties (crosscheck) ---\ntestcase 0 other\n  x = 1\n--- end of testcase properties ---\n",
            "--- testcase properties (crosscheck) ---\ntestcase 5 only\n  x = 1\n--- end of testcase properties ---\n",
            "--- testcase properties (crosscheck) ---\ntestcase 0 only\nstray line\n--- end of testcase properties ---\n",
            "--- testcase properties (crosscheck) ---\ntestcase 0 only\n  x = 1\n",
            "text\n--- testcase properties (crosscheck) ---\ntestcase 0 only\n  x=1\n--- end of testcase properties ---\n",
        ] {
            let report = JUnitReport(suites: [JUnitSuite(name: "s", package: "p", timestamp: Fixtures.timestamp, hostname: "h",
                                                         cases: [JUnitCase(name: "only", classname: "k")], systemOut: output)])
            XCTAssertEqual(try JUnitXML.parse(JUnitXML.data(report)), report, output)
        }
    }

    func testAWycheproofSizedSuiteHasNoPerCaseSuiteProperties() throws {
        let cases = (0..<3000).map { JUnitCase(name: "aes_gcm_test.tc\($0) (invalid; ModifiedTag): Flipped bit \($0 % 128) in tag",
                                               classname: "crosscheck.sealed.wycheproof_to_swift",
                                               properties: [JUnitProperty(name: "outcome", value: "refused AuthenticationFailure")]) }
        let report = JUnitReport(suites: [JUnitSuite(name: "wycheproof.aes_gcm_test.swift", package: "crosscheck.wycheproof",
                                                     timestamp: Fixtures.timestamp, hostname: "h",
                                                     properties: [JUnitProperty(name: "crosscheck.seed", value: "1")], cases: cases)])
        let data = JUnitXML.data(report)
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertEqual(text.components(separatedBy: "<property ").count - 1, 1)
        XCTAssertEqual(try JUnitXML.parse(data), report)
    }

    func testDataStartsWithDeclarationAndIsPrettyPrinted() throws {
        let text = String(decoding: JUnitXML.data(Fixtures.report()), as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"), text)
        XCTAssertTrue(text.contains("\n  <testsuite "), "suites are indented")
        XCTAssertTrue(text.hasSuffix("</testsuites>\n"))
        XCTAssertEqual(text.components(separatedBy: "<?xml").count, 2, "exactly one declaration")
    }

    // MARK: Schema validation

    func testReportValidatesAgainstSchema() throws {
        try requireXmllint()
        let result = try Fixtures.validate(JUnitXML.data(Fixtures.report()), in: directory)
        XCTAssertEqual(result.status, 0, result.output)
    }

    func testEmptyReportValidates() throws {
        try requireXmllint()
        let result = try Fixtures.validate(JUnitXML.data(JUnitReport(suites: [])), in: directory)
        XCTAssertEqual(result.status, 0, result.output)
    }

    /// The validation tests mean something only if xmllint rejects what the schema forbids.
    func testSuiteWithoutHostnameFailsValidation() throws {
        try requireXmllint()
        let document = JUnitXML.document(Fixtures.report())
        let suite = try XCTUnwrap(suites(document).first)
        suite.removeAttribute(forName: "hostname")
        let result = try Fixtures.validate(document.xmlData(options: [.nodePrettyPrint]), in: directory)
        XCTAssertNotEqual(result.status, 0, "a testsuite without hostname must not validate")
        XCTAssertTrue(result.output.contains("hostname"), result.output)
    }

    func testHandBuiltInvalidDocumentsFailValidation() throws {
        try requireXmllint()
        func attribute(_ name: String, _ value: String) -> XMLNode {
            XMLNode.attribute(withName: name, stringValue: value) as! XMLNode
        }
        func suite(hostname: String?, timestamp: String = "2026-11-30T06:10:00",
                   children: [XMLElement]) -> XMLDocument {
            let suite = XMLElement(name: "testsuite")
            var attributes = [attribute("name", "s"), attribute("package", "p"), attribute("id", "0"),
                              attribute("timestamp", timestamp), attribute("tests", "1"),
                              attribute("failures", "0"), attribute("errors", "0"), attribute("time", "0.000")]
            if let hostname { attributes.append(attribute("hostname", hostname)) }
            suite.attributes = attributes
            for child in children { suite.addChild(child) }
            let root = XMLElement(name: "testsuites")
            root.addChild(suite)
            return XMLDocument(rootElement: root)
        }
        func testCase(_ outcomes: [String]) -> XMLElement {
            let element = XMLElement(name: "testcase")
            element.attributes = [attribute("name", "c"), attribute("classname", "k"), attribute("time", "0.000")]
            for outcome in outcomes {
                let child = XMLElement(name: outcome)
                if outcome != "skipped" { child.addAttribute(attribute("type", "T")) }
                element.addChild(child)
            }
            return element
        }
        let ordered = { (outcomes: [String]) in
            [XMLElement(name: "properties"), testCase(outcomes), XMLElement(name: "system-out"), XMLElement(name: "system-err")]
        }

        // The control: the same construction with everything in place is valid.
        let valid = try Fixtures.validate(suite(hostname: "h", children: ordered([])).xmlData, in: directory, name: "valid.xml")
        XCTAssertEqual(valid.status, 0, valid.output)

        let invalid: [(String, XMLDocument)] = [
            ("missing hostname", suite(hostname: nil, children: ordered([]))),
            ("timestamp with zone", suite(hostname: "h", timestamp: "2026-11-30T06:10:00Z", children: ordered([]))),
            ("two outcomes", suite(hostname: "h", children: ordered(["failure", "error"]))),
            ("system-out before testcase", suite(hostname: "h", children: [
                XMLElement(name: "properties"), XMLElement(name: "system-out"), testCase([]), XMLElement(name: "system-err"),
            ])),
            ("no properties", suite(hostname: "h", children: [testCase([]), XMLElement(name: "system-out"),
                                                              XMLElement(name: "system-err")])),
        ]
        for (label, document) in invalid {
            let result = try Fixtures.validate(document.xmlData, in: directory, name: "invalid.xml")
            XCTAssertNotEqual(result.status, 0, "\(label) should fail validation")
        }
    }

    func testControlCharactersAreSanitisedAndStillValidate() throws {
        try requireXmllint()
        let nasty = "bad\u{0}\u{7}\u{1B}[31mred\u{FFFE}\u{FFFF}\u{8}|\t\n\r|é😀\u{7F}\u{85}"
        let expected = "bad\\x00\\x07\\x1B[31mred\\uFFFE\\uFFFF\\x08|\t\n\r|é😀\u{7F}\u{85}"
        let report = JUnitReport(suites: [JUnitSuite(
            name: "suite\u{1}", package: "pkg\u{2}", timestamp: Fixtures.timestamp, hostname: "host\u{3}",
            properties: [JUnitProperty(name: "decoded\u{4}", value: nasty)],
            cases: [
                JUnitCase(name: "case\u{5}", classname: "k\u{6}", time: 0.001,
                          outcome: .failed(message: nasty, type: "Type\u{B}", details: nasty),
                          properties: [JUnitProperty(name: "raw\u{C}", value: nasty)]),
                JUnitCase(name: "skip", classname: "k", outcome: .skipped(message: nasty)),
                JUnitCase(name: "err", classname: "k", outcome: .error(message: "\u{1F}", type: "", details: "\u{0}")),
            ],
            systemOut: nasty, systemErr: nasty)])

        let data = JUnitXML.data(report)
        for forbidden: UInt8 in [0x00, 0x01, 0x07, 0x08, 0x0B, 0x0C, 0x1B, 0x1F] {
            XCTAssertFalse(data.contains(forbidden), "byte \(forbidden) must not reach the file")
        }
        let result = try Fixtures.validate(data, in: directory)
        XCTAssertEqual(result.status, 0, result.output)

        let back = try JUnitXML.parse(data)
        let suite = try XCTUnwrap(back.suites.first)
        XCTAssertEqual(suite.name, "suite\\x01")
        XCTAssertEqual(suite.package, "pkg\\x02")
        XCTAssertEqual(suite.hostname, "host\\x03")
        XCTAssertEqual(suite.properties, [JUnitProperty(name: "decoded\\x04", value: expected)])
        XCTAssertEqual(suite.systemOut, expected)
        XCTAssertEqual(suite.systemErr, expected)
        XCTAssertEqual(suite.cases[0].name, "case\\x05")
        XCTAssertEqual(suite.cases[0].classname, "k\\x06")
        XCTAssertEqual(suite.cases[0].outcome, .failed(message: expected, type: "Type\\x0B", details: expected))
        XCTAssertEqual(suite.cases[0].properties, [JUnitProperty(name: "raw\\x0C", value: expected)])
        XCTAssertEqual(suite.cases[1].outcome, .skipped(message: expected))
        XCTAssertEqual(suite.cases[2].outcome, .error(message: "\\x1F", type: "", details: "\\x00"))
    }

    func testEmptyRequiredTokensGetStandIns() throws {
        try requireXmllint()
        let report = JUnitReport(suites: [JUnitSuite(
            name: "", package: "", timestamp: Fixtures.timestamp, hostname: " \n",
            properties: [JUnitProperty(name: "", value: "v")],
            cases: [JUnitCase(name: "", classname: "", time: -5,
                              outcome: .failed(message: "", type: "", details: ""))])])
        let data = JUnitXML.data(report)
        let result = try Fixtures.validate(data, in: directory)
        XCTAssertEqual(result.status, 0, result.output)
        let suite = try XCTUnwrap(JUnitXML.parse(data).suites.first)
        XCTAssertEqual(suite.name, "(unnamed)")
        XCTAssertEqual(suite.hostname, "localhost")
        XCTAssertEqual(suite.properties.first?.name, "(unnamed)")
        XCTAssertEqual(suite.cases.first?.time, 0, "negative times are written as 0")
    }

    // MARK: Values

    func testTimeAndTimestampFormats() throws {
        XCTAssertEqual(JUnitFormat.formatTime(0), "0.000")
        XCTAssertEqual(JUnitFormat.formatTime(1.25), "1.250")
        XCTAssertEqual(JUnitFormat.formatTime(0.0004), "0.000")
        XCTAssertEqual(JUnitFormat.formatTime(0.0006), "0.001")
        XCTAssertEqual(JUnitFormat.formatTime(59.9996), "60.000")
        XCTAssertEqual(JUnitFormat.formatTime(12345.678), "12345.678")
        XCTAssertEqual(JUnitFormat.formatTime(-1), "0.000")
        XCTAssertEqual(JUnitFormat.formatTime(.nan), "0.000")
        XCTAssertEqual(JUnitFormat.formatTime(.infinity), "0.000")

        XCTAssertEqual(JUnitFormat.formatTimestamp(Fixtures.timestamp), "2026-11-30T06:10:00")
        XCTAssertEqual(JUnitFormat.formatTimestamp(Fixtures.timestamp.addingTimeInterval(0.999)), "2026-11-30T06:10:00")
        XCTAssertEqual(JUnitFormat.formatTimestamp(Date(timeIntervalSince1970: 0)), "1970-01-01T00:00:00")
        XCTAssertEqual(JUnitFormat.formatTimestamp(.distantFuture), "4001-01-01T00:00:00")
        XCTAssertEqual(JUnitFormat.formatTimestamp(Date(timeIntervalSince1970: 1e13)), "9999-12-31T23:59:59")
        XCTAssertEqual(JUnitFormat.formatTimestamp(Date(timeIntervalSince1970: .nan)), "1970-01-01T00:00:00")
        // Far past: clamped into the four-digit years the schema's pattern allows.
        let past = JUnitFormat.formatTimestamp(.distantPast)
        XCTAssertNotNil(past.range(of: #"^0001-01-0[0-9]T00:00:00$"#, options: .regularExpression), past)

        XCTAssertEqual(JUnitFormat.parseTimestamp("2026-11-30T06:10:00"), Fixtures.timestamp)
        XCTAssertEqual(JUnitFormat.parseTimestamp("2026-11-30T08:10:00+02:00"), Fixtures.timestamp)
        XCTAssertEqual(JUnitFormat.parseTimestamp("2026-11-30T06:10:00.000Z"), Fixtures.timestamp)
        XCTAssertNil(JUnitFormat.parseTimestamp("yesterday"))
    }

    // MARK: Reading

    func testRoundTripThroughFile() throws {
        let report = Fixtures.report()
        let file = directory.appendingPathComponent("round/trip.xml")
        try JUnitXML.write(report, to: file)
        let back = try JUnitXML.read(from: file)
        XCTAssertEqual(back, report)
        XCTAssertEqual(back.suites[0].cases[3].properties,
                       [JUnitProperty(name: "key_bits", value: "2048"), JUnitProperty(name: "salt", value: "")])
        XCTAssertEqual(JUnitXML.data(back), JUnitXML.data(report))
    }

    func testRoundTripKeepsAwkwardText() throws {
        let awkward = "  leading and trailing  \r\n\tcr lf & tab ]]> <![CDATA[x]]> &amp; 'single' \"double\"\n\n"
        let report = JUnitReport(suites: [JUnitSuite(
            name: "s p a c e d", package: "p", timestamp: Fixtures.timestamp, hostname: "h",
            properties: [JUnitProperty(name: "dup", value: "1"), JUnitProperty(name: "dup", value: "2"),
                         JUnitProperty(name: "multi\nline", value: awkward)],
            cases: [
                JUnitCase(name: "twin", classname: "k", time: 0.001, properties: [JUnitProperty(name: "n", value: "first")]),
                JUnitCase(name: "twin", classname: "k", time: 0.002, properties: [JUnitProperty(name: "n", value: "second")]),
                JUnitCase(name: "x].y", classname: "k", outcome: .error(message: awkward, type: awkward, details: awkward),
                          properties: [JUnitProperty(name: "a.b]c", value: awkward), JUnitProperty(name: "", value: "")]),
                JUnitCase(name: "\u{301}combining", classname: "k",
                          properties: [JUnitProperty(name: "\u{301}", value: "accent")]),
            ],
            systemOut: awkward, systemErr: " ")])
        let back = try JUnitXML.parse(JUnitXML.data(report))
        XCTAssertEqual(back, report)
    }

    func testSuitePropertyThatOnlyLooksLikeACasePropertyStaysOnTheSuite() throws {
        let report = JUnitReport(suites: [JUnitSuite(
            name: "s", package: "p", timestamp: Fixtures.timestamp, hostname: "h",
            properties: [JUnitProperty(name: "testcase[7:nope].x", value: "1"),
                         JUnitProperty(name: "testcase[0:other].x", value: "2"),
                         JUnitProperty(name: "testcase[x:only].x", value: "3")],
            cases: [JUnitCase(name: "only", classname: "k")])])
        XCTAssertEqual(try JUnitXML.parse(JUnitXML.data(report)), report)
    }

    func testReadsSingleSuiteDocumentsFromOtherTools() throws {
        let xml = """
        <?xml version="1.0" encoding="utf-8"?>
        <testsuite name="pytest" errors="0" failures="1" skipped="1" tests="3" time="0.5"
                   timestamp="2026-11-30T07:10:00.123456+01:00" hostname="box">
          <properties><property name="k">text value</property></properties>
          <testcase classname="tests.test_x" name="test_ok" time="0.1"/>
          <testcase classname="tests.test_x" name="test_bad" time="0.2">
            <failure message="assert 1 == 2">trace</failure>
            <system-out>case output is ignored</system-out>
          </testcase>
          <testcase classname="tests.test_x" name="test_skip" time="1e-3">
            <skipped type="pytest.skip">needs network</skipped>
          </testcase>
        </testsuite>
        """
        let report = try JUnitXML.parse(Data(xml.utf8))
        XCTAssertEqual(report.suites.count, 1)
        let suite = report.suites[0]
        XCTAssertEqual(suite.name, "pytest")
        XCTAssertEqual(suite.package, "")
        XCTAssertEqual(suite.timestamp.timeIntervalSince1970, Fixtures.timestamp.timeIntervalSince1970 + 0.123456, accuracy: 0.001)
        XCTAssertEqual(suite.properties, [JUnitProperty(name: "k", value: "text value")])
        XCTAssertEqual(suite.cases.map(\.outcome), [
            .passed,
            .failed(message: "assert 1 == 2", type: "", details: "trace"),
            .skipped(message: "needs network"),
        ])
        XCTAssertEqual(suite.cases[2].time, 0.001)
    }

    func testReadErrors() throws {
        let missing = directory.appendingPathComponent("missing.xml")
        XCTAssertThrowsError(try JUnitXML.read(from: missing)) { error in
            XCTAssertEqual(error as? ReportError, .cannotRead(path: missing.path, reason: "no such file"))
            XCTAssertTrue("\(error)".contains(missing.path))
        }
        XCTAssertThrowsError(try JUnitXML.read(from: directory)) { error in
            guard case .cannotRead(let path, _)? = error as? ReportError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, directory.path)
        }

        let cases: [(String, String)] = [
            ("truncated.xml", "<testsuites><testsuite name=\"a\">"),
            ("empty.xml", ""),
            ("comment.xml", "<!-- nothing -->"),
            ("trailing.xml", "<testsuites/><testsuites/>"),
            ("control.xml", "<testsuites><testsuite name=\"\u{7}\"/></testsuites>"),
            ("html.xml", "<html><body>502 Bad Gateway</body></html>"),
            ("badtime.xml", "<testsuite name=\"s\"><testcase name=\"c\" time=\"fast\"/></testsuite>"),
            ("badstamp.xml", "<testsuite name=\"s\" timestamp=\"Monday\"/>"),
        ]
        for (name, text) in cases {
            let file = directory.appendingPathComponent(name)
            try Data(text.utf8).write(to: file)
            XCTAssertThrowsError(try JUnitXML.read(from: file), name) { error in
                guard case .malformed(let path, let reason)? = error as? ReportError else {
                    return XCTFail("\(name): expected malformed, got \(error)")
                }
                XCTAssertEqual(path, file.path)
                XCTAssertFalse(reason.isEmpty)
                XCTAssertTrue("\(error)".contains(file.path))
            }
        }
    }

    // MARK: Merging

    func testMergeRenumbersIdsAndKeepsAllSuites() throws {
        try requireXmllint()
        let first = Fixtures.report()
        var secondSuite = Fixtures.roundtripSuite()
        secondSuite.name = "roundtrip.python_to_swift"
        let second = JUnitReport(suites: [secondSuite])
        let third = JUnitReport(suites: [])

        // Merge files written separately, as the CLI does, each numbered from 0.
        var read: [(source: String, report: JUnitReport)] = []
        for (index, report) in [first, second, third].enumerated() {
            let file = directory.appendingPathComponent("part\(index).xml")
            try JUnitXML.write(report, to: file)
            read.append((file.path, try JUnitXML.read(from: file)))
        }
        let merged = try ReportMerge.merge(read)
        XCTAssertEqual(merged.dropped, [])
        XCTAssertEqual(merged.report.suites.map(\.name),
                       ["roundtrip.swift_to_python", "bench.smoke", "roundtrip.python_to_swift"])
        XCTAssertEqual(merged.report.suites, first.suites + second.suites)
        XCTAssertEqual(merged.report.tests, 12)

        let data = JUnitXML.data(merged.report)
        let ids = suites(try XMLDocument(data: data)).map { attribute($0, "id") }
        XCTAssertEqual(ids, ["0", "1", "2"])
        let result = try Fixtures.validate(data, in: directory, name: "merged.xml")
        XCTAssertEqual(result.status, 0, result.output)

        XCTAssertEqual(try ReportMerge.merge([]).report, JUnitReport(suites: []))
    }

    func testMergingTheSameReportTwiceDropsTheCopyAndSaysSo() throws {
        let report = Fixtures.report()
        let merged = try ReportMerge.merge([("a.xml", report), ("b.xml", report)])
        XCTAssertEqual(merged.report, report, "no suite is counted twice")
        XCTAssertEqual(merged.report.tests, 6)
        XCTAssertEqual(merged.dropped, [
            "dropped suite roundtrip.swift_to_python from b.xml: identical to the one from a.xml",
            "dropped suite bench.smoke from b.xml: identical to the one from a.xml",
        ])
    }

    func testMergingTwoDifferentSuitesOfTheSameNameIsRefused() throws {
        var rerun = Fixtures.roundtripSuite()
        rerun.cases[3].outcome = .passed
        XCTAssertThrowsError(try ReportMerge.merge([("run1.xml", Fixtures.report()), ("run2.xml", JUnitReport(suites: [rerun]))])) { error in
            XCTAssertEqual(error as? ReportError,
                           .duplicateSuite(name: "roundtrip.swift_to_python", firstPath: "run1.xml", secondPath: "run2.xml"))
            let text = "\(error)"
            XCTAssertTrue(text.contains("count its testcases twice"), text)
            XCTAssertTrue(text.contains("crosscheck report --diff run1.xml run2.xml"), text)
        }
    }
}
