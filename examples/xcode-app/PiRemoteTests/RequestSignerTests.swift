import XCTest
@testable import PiRemote

final class RequestSignerTests: XCTestCase {
    func testSignatureIsHex() {
        XCTAssertEqual(RequestSigner.sign(method: "GET", path: "/", timestamp: "0", body: "", secretHex: "00").count, 64)
    }
}
