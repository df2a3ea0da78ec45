import Foundation
import XCTest
import Reports

final class AtomicWriteTests: TemporaryDirectoryTestCase {

    func testWriteCreatesParentDirectoriesAndValidates() throws {
        try requireXmllint()
        let file = directory.appendingPathComponent("a/b/c/report.xml")
        try JUnitXML.write(Fixtures.report(), to: file)
        XCTAssertEqual(try Data(contentsOf: file), JUnitXML.data(Fixtures.report()))
        XCTAssertEqual(try contents(of: file.deletingLastPathComponent()), ["report.xml"])
        let result = try Fixtures.validate(file)
        XCTAssertEqual(result.status, 0, result.output)
    }

    func testWriteReplacesExistingFileAndLeavesNoTemporaryFiles() throws {
        let file = directory.appendingPathComponent("report.xml")
        try Data(String(repeating: "old contents, much longer than nothing\n", count: 2000).utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file.path)
        let neighbour = directory.appendingPathComponent("other.txt")
        try Data("untouched".utf8).write(to: neighbour)

        try JUnitXML.write(Fixtures.report(), to: file)
        XCTAssertEqual(try Data(contentsOf: file), JUnitXML.data(Fixtures.report()))
        XCTAssertEqual(try JUnitXML.read(from: file), Fixtures.report())

        let smaller = JUnitReport(suites: [Fixtures.emptySuite()])
        try JUnitXML.write(smaller, to: file)
        XCTAssertEqual(try Data(contentsOf: file), JUnitXML.data(smaller), "no tail of the old file survives")

        XCTAssertEqual(try contents(of: directory), ["other.txt", "report.xml"], "no temporary files left")
        XCTAssertEqual(try Data(contentsOf: neighbour), Data("untouched".utf8))
        let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
        XCTAssertEqual(permissions?.intValue, 0o640, "the replaced file's permissions are kept")
    }

    func testReplacementIsANewInode() throws {
        // rename(2) swaps the directory entry: a handle opened on the old file still sees the old
        // bytes, which is what "readers never see a half-written report" relies on.
        let file = directory.appendingPathComponent("report.xml")
        try Data("old".utf8).write(to: file)
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        try JUnitXML.write(Fixtures.report(), to: file)
        XCTAssertEqual(try handle.readToEnd(), Data("old".utf8))
        XCTAssertEqual(try JUnitXML.read(from: file), Fixtures.report())
    }

    func testWriteUnderARegularFileThrowsWithThePath() throws {
        let blocker = directory.appendingPathComponent("not-a-directory")
        try Data("file".utf8).write(to: blocker)
        let file = blocker.appendingPathComponent("sub/report.xml")
        XCTAssertThrowsError(try JUnitXML.write(Fixtures.report(), to: file)) { error in
            guard case .cannotWrite(let path, let reason)? = error as? ReportError else {
                return XCTFail("expected ReportError.cannotWrite, got \(error)")
            }
            XCTAssertEqual(path, file.path)
            XCTAssertTrue(reason.contains(blocker.path), reason)
            let message = "\(error)"
            XCTAssertTrue(message.contains(file.path), message)
            XCTAssertTrue(message.contains("choose another output path"), message)
            XCTAssertEqual(error.localizedDescription, message)
        }
        XCTAssertEqual(try Data(contentsOf: blocker), Data("file".utf8))
        XCTAssertEqual(try contents(of: directory), ["not-a-directory"])
    }

    func testWriteOverADirectoryThrows() throws {
        let target = directory.appendingPathComponent("report.xml")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        XCTAssertThrowsError(try JUnitXML.write(Fixtures.report(), to: target)) { error in
            guard case .cannotWrite(let path, _)? = error as? ReportError else {
                return XCTFail("expected ReportError.cannotWrite, got \(error)")
            }
            XCTAssertEqual(path, target.path)
        }
        XCTAssertEqual(try contents(of: directory), ["report.xml"])
    }

    func testWriteIntoReadOnlyDirectoryThrowsAndLeavesNothing() throws {
        guard getuid() != 0 else { throw XCTSkip("root ignores directory permissions") }
        let locked = directory.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path) }
        let file = locked.appendingPathComponent("report.xml")
        XCTAssertThrowsError(try JUnitXML.write(Fixtures.report(), to: file)) { error in
            XCTAssertEqual((error as? ReportError)?.path, file.path)
        }
        XCTAssertEqual(try contents(of: locked), [])
    }
}
