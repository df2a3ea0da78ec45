import Foundation
import XCTest
import Conformance

/// Issue 33: an installed crosscheck (PREFIX/bin/crosscheck) finds its data in PREFIX/share/crosscheck.
final class ProjectFilesTests: XCTestCase {
    func testInstalledLayout_isFoundFromTheExecutable_evenThroughPATH() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("prefix-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let share = prefix.appendingPathComponent("share/crosscheck")
        try FileManager.default.createDirectory(at: share.appendingPathComponent("PythonRef/pythonref"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: share.appendingPathComponent("Vectors/tls"), withIntermediateDirectories: true)
        try Data().write(to: share.appendingPathComponent("PythonRef/pythonref/__init__.py"))
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("bin"), withIntermediateDirectories: true)
        let binary = prefix.appendingPathComponent("bin/crosscheck")
        try Data("#!/bin/sh\n".utf8).write(to: binary)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: binary.path)

        for (argument, path) in [(binary.path, "/usr/bin"), ("crosscheck", "/usr/bin:" + prefix.appendingPathComponent("bin").path)] {
            let files = ProjectFiles.locate(environment: ["PATH": path], executable: argument)
            XCTAssertEqual(files.pythonRef.resolvingSymlinksInPath().path, share.appendingPathComponent("PythonRef").resolvingSymlinksInPath().path, argument)
            XCTAssertEqual(files.vectors.resolvingSymlinksInPath().path, share.appendingPathComponent("Vectors").resolvingSymlinksInPath().path, argument)
        }
        // The environment still wins over the installed copy.
        XCTAssertEqual(ProjectFiles.locate(environment: ["CROSSCHECK_VECTORS": "/elsewhere"], executable: binary.path).vectors.path, "/elsewhere")
    }
}
