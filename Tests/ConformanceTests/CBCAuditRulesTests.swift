import Foundation
@testable import Remote
import Conformance
import WireCrypto
import XCTest

/// The aes-https audit's rules on their own (issue 36): unpredictable response IVs (NIST SP
/// 800-38A, appendix C), the masking of what varies between repeats of one request, and the
/// oracle's label. Every rule is shown to fail what it must and to pass random IVs / real noise.
final class CBCAuditRulesTests: XCTestCase {
    let key = Data((0..<32).map { UInt8($0) })

    func ledger(_ ivs: [Data], ciphertexts: [Data]? = nil) -> ReuseLedger {
        let ledger = ReuseLedger()
        for (index, iv) in ivs.enumerated() {
            ledger.recordExchange(requestIV: AESCBC.randomIV(), responseIV: iv,
                                  responseCiphertext: ciphertexts?[index] ?? AESCBC.randomIV() + AESCBC.randomIV(), key: key, step: "step\(index)")
        }
        return ledger
    }

    func message(_ ledger: ReuseLedger) -> String? {
        if case .failed(let message, _) = ledger.ivOutcome() { return message }
        return nil
    }

    func testRandomIVsPass() {
        for _ in 0..<50 {
            let outcome = ledger((0..<12).map { _ in AESCBC.randomIV() }).ivOutcome()
            XCTAssertEqual(outcome, .passed)
        }
    }

    func testChainedIVFails() {
        var ciphertexts: [Data] = [], ivs: [Data] = [AESCBC.randomIV()]
        for index in 0..<6 {
            ciphertexts.append(AESCBC.randomIV() + AESCBC.randomIV())
            if index < 5 { ivs.append(ciphertexts[index].suffix(16)) }
        }
        let text = message(ledger(ivs, ciphertexts: Array(ciphertexts.prefix(6))))
        XCTAssertTrue(text?.contains("IV predictable: 5 of 5 response IVs are the previous response's last ciphertext block") ?? false, text ?? "passed")
    }

    func testCounterTimestampLowEntropyAndKeyFail() {
        let start = AESCBC.randomIV()
        var counter = [start]
        for _ in 0..<5 {
            var next = Array(counter.last!)
            var index = 15
            while true { next[index] &+= 1; if next[index] != 0 || index == 0 { break }; index -= 1 }
            counter.append(Data(next))
        }
        XCTAssertTrue(message(ledger(counter))?.contains("counter's next value (big-endian") ?? false, message(ledger(counter)) ?? "passed")

        let now = UInt32(Date().timeIntervalSince1970)
        let clocked = (0..<5).map { offset in
            Data((now + UInt32(offset)).bigEndianBytes) + Data((0..<12).map { _ in UInt8.random(in: 0...255) })
        }
        XCTAssertTrue(message(ledger(clocked))?.contains("hold the current time") ?? false, message(ledger(clocked)) ?? "passed")

        let lowEntropy = [AESCBC.randomIV(), Data([1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 0, 0, 0, 0]), AESCBC.randomIV()]
        XCTAssertTrue(message(ledger(lowEntropy))?.contains("distinct byte values") ?? false)

        let keyed = [AESCBC.randomIV(), key.prefix(16), AESCBC.randomIV()]
        XCTAssertTrue(message(ledger(keyed))?.contains("the response IV is the session key") ?? false)
    }

    func testIdenticalResponsesToIdenticalRequestsFailAsRepeatedIVs() {
        let iv = AESCBC.randomIV()
        let text = message(ledger([AESCBC.randomIV(), iv, iv]))
        XCTAssertTrue(text?.contains("IV repeated") ?? false, text ?? "passed")
    }

    /// The zoo's static-iv and iv-echo get their own finding only.
    func testOneFixedIVIsRepeatedNotPredictable_andAnEchoOfOneRequestTwiceIsAnEchoOnly() {
        let fixed = AESCBC.randomIV()
        let repeated = message(ledger(Array(repeating: fixed, count: 10))) ?? "passed"
        XCTAssertTrue(repeated.hasPrefix("IV repeated"), repeated)
        XCTAssertFalse(repeated.contains("IV predictable"), repeated)

        // The zoo's static-iv once drew an IV whose bytes 8–11 read as today: one IV is no clock.
        var clockLike = Array(AESCBC.randomIV())
        clockLike.replaceSubrange(8..<12, with: UInt32(Date().timeIntervalSince1970).bigEndianBytes)
        let once = message(ledger(Array(repeating: Data(clockLike), count: 10))) ?? "passed"
        XCTAssertFalse(once.contains("IV predictable"), once)

        let echo = ReuseLedger()
        let twice = AESCBC.randomIV()
        for iv in [AESCBC.randomIV(), AESCBC.randomIV(), twice, twice] {
            echo.recordExchange(requestIV: iv, responseIV: iv, responseCiphertext: AESCBC.randomIV(), key: key, step: "echo")
        }
        let echoed = message(echo) ?? "passed"
        XCTAssertTrue(echoed.hasPrefix("IV echoed: 4 of 4"), echoed)
        XCTAssertFalse(echoed.contains("IV repeated"), echoed)
    }

    func testMaskHidesARequestIdButNotACause() {
        func body(_ cause: String) -> Data { Data("{\"error\":\"bad request\",\"cause\":\"\(cause)\",\"request_id\":\"\(UUID().uuidString)\",\"time\":\(Date().timeIntervalSince1970 + Double.random(in: 0...9))}".utf8) }
        let padding = [body("padding"), body("padding"), body("padding")]
        let json = [body("json"), body("json"), body("json")]
        let mask = ResponseMask(groups: [padding, json])
        XCTAssertEqual(Set(padding.map(mask.apply)).count, 1, "a request id and a time vary within a class: masked")
        XCTAssertNotEqual(mask.apply(padding[0]), mask.apply(json[0]), "the cause does not vary within a class: kept")
        // The same in plain text.
        func text(_ cause: String) -> Data { Data("refused (\(cause)) id=\(UUID().uuidString) at \(Int.random(in: 1000...9999))".utf8) }
        let textMask = ResponseMask(groups: [[text("padding"), text("padding")], [text("json"), text("json")]])
        XCTAssertNotEqual(textMask.apply(text("padding")), textMask.apply(text("json")))
        XCTAssertEqual(String(decoding: textMask.apply(Data("refused (json) id=A at 1".utf8)), as: UTF8.self), "refused (json) <varies> at <varies>")
    }

    /// A word that changes between repeats may be the leak: it is not masked.
    func testMaskLeavesAChangingWordAlone() {
        let flaky = [Data("{\"error\":\"bad padding\"}".utf8), Data("{\"error\":\"bad request\"}".utf8)]
        let mask = ResponseMask(groups: [flaky])
        XCTAssertTrue(mask.isEmpty)
        XCTAssertNotEqual(mask.apply(flaky[0]), mask.apply(flaky[1]))
        let text = ResponseMask(groups: [[Data("refused: padding".utf8), Data("refused: request".utf8)]])
        XCTAssertTrue(text.isEmpty)
    }

    func testALateDifferenceIsShownWhereItIs() {
        let head = String(repeating: "x", count: 60)
        XCTAssertEqual(CBCOracleAudit.lateDifference(Data((head + "padding").utf8), Data((head + "content").utf8)),
                       "the bodies first differ at byte 60: \"…xxxxxxxxpadding…\" vs \"…xxxxxxxxcontent…\"")
        XCTAssertNil(CBCOracleAudit.lateDifference(Data("bad padding".utf8), Data("bad json".utf8)), "an early difference is in the signature already")
    }

    func testOracleKindSeparatesPaddingFromFormat() {
        let classes = CBCOracleAudit.classes.map(\.oracle)
        func analysis(_ answer: (OracleClass) -> String) -> OracleAnalysis {
            OracleAnalysis(classes: classes, samples: Dictionary(uniqueKeysWithValues: classes.map { cls in
                (cls.name, (0..<3).map { _ in OracleSample(signature: cls.name == "good" ? "200" : answer(cls), accepted: cls.name == "good", latency: nil) })
            }))
        }
        XCTAssertEqual(CBCOracleAudit.oracleKind(analysis { $0.name == "bad-padding-over-16" ? "400 B" : "400 A" }), .padding)
        XCTAssertEqual(CBCOracleAudit.oracleKind(analysis { $0.name == "garbled-valid-padding" ? "500" : "400 A" }), .padding)
        XCTAssertEqual(CBCOracleAudit.oracleKind(analysis { $0.name == "json-not-an-object" ? "422" : "400 A" }), .format)
        XCTAssertNil(CBCOracleAudit.oracleKind(analysis { _ in "400 A" }))
    }
}

private extension UInt32 {
    var bigEndianBytes: [UInt8] { [UInt8(self >> 24), UInt8(self >> 16 & 0xff), UInt8(self >> 8 & 0xff), UInt8(self & 0xff)] }
}
