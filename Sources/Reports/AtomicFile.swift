import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Atomic replacement of a file with POSIX calls: write a temporary file next to the target,
/// fsync it, rename(2) it over the target, fsync the directory. A reader (or a CI job picking
/// up the report) sees the old file or the complete new one, never a partial write. On any
/// failure the temporary file is removed and `ReportError.cannotWrite` is thrown.
enum AtomicFile {

    static func write(_ data: Data, to url: URL) throws {
        guard url.isFileURL else {
            throw ReportError.cannotWrite(path: url.absoluteString, reason: "it is not a file URL")
        }
        let target = url.standardizedFileURL.path
        let directory = (target as NSString).deletingLastPathComponent
        let baseName = (target as NSString).lastPathComponent
        func fail(_ reason: String) -> ReportError { .cannotWrite(path: target, reason: reason) }

        guard !baseName.isEmpty, baseName != "/" else { throw fail("the path names a directory, not a file") }
        try makeDirectories(directory.isEmpty ? "." : directory, for: target)

        // Same permissions as the file being replaced, or 0644 minus the umask for a new one.
        var existing = stat()
        var mode: mode_t
        if stat(target, &existing) == 0 {
            if (existing.st_mode & S_IFMT) == S_IFDIR { throw fail("it is an existing directory") }
            mode = existing.st_mode & 0o7777
        } else {
            let mask = umask(0)
            _ = umask(mask)
            mode = 0o644 & ~mask
        }

        let temporary = (directory.isEmpty ? "" : directory + "/")
            + ".\(baseName).\(getpid()).\(UUID().uuidString.prefix(8)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw fail("cannot create a temporary file in \(directory): \(lastError())")
        }
        var closed = false
        var renamed = false
        defer {
            if !closed { _ = close(fd) }
            if !renamed { _ = unlink(temporary) }
        }

        _ = fchmod(fd, mode)

        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let written = posixWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw fail("writing \(temporary) failed: \(lastError())")
                }
                offset += written
            }
        }
        guard fsync(fd) == 0 || errno == EINVAL || errno == EROFS else {
            throw fail("flushing \(temporary) to disk failed: \(lastError())")
        }
        closed = true
        guard close(fd) == 0 else { throw fail("closing \(temporary) failed: \(lastError())") }
        guard rename(temporary, target) == 0 else {
            throw fail("renaming \(temporary) over it failed: \(lastError())")
        }
        renamed = true

        // Make the rename itself durable; not all file systems allow this, so errors are ignored.
        let directoryFD = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            _ = close(directoryFD)
        }
    }

    /// `mkdir -p directory`, reporting the first component that cannot be created.
    static func makeDirectories(_ directory: String, for target: String) throws {
        var info = stat()
        if stat(directory, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw ReportError.cannotWrite(path: target, reason: "\(directory) exists but is not a directory")
            }
            return
        }
        var current = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + component
            if stat(current, &info) == 0 {
                guard (info.st_mode & S_IFMT) == S_IFDIR else {
                    throw ReportError.cannotWrite(
                        path: target, reason: "cannot create directory \(directory): \(current) is not a directory")
                }
                continue
            }
            if mkdir(current, 0o777) != 0 && errno != EEXIST {
                throw ReportError.cannotWrite(
                    path: target, reason: "cannot create directory \(current): \(lastError())")
            }
        }
    }

    static func lastError() -> String {
        String(cString: strerror(errno))
    }
}

private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(fd, buffer, count)
    #elseif canImport(Musl)
    return Musl.write(fd, buffer, count)
    #else
    return Darwin.write(fd, buffer, count)
    #endif
}
