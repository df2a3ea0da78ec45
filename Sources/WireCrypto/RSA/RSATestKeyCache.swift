import Foundation

/// RSA keys made once and reused by later processes, for test suites only: with
/// `CROSSCHECK_TEST_KEY_CACHE=DIR` in the environment (`make test` sets it), the n-th key of a size
/// a process asks for is DIR's `rsa-<kind>-<bits>-<n>.der` (PKCS#8), made and written the first
/// time any process asks for it.
///
/// Why: OpenSSL 3's RSA key generation (FIPS 186-4 primes, 64 Miller-Rabin rounds at 2048 bits)
/// takes 0.4 s for a 2048-bit key and seconds for 4096 bits on CI's cores, and `make test` starts
/// hundreds of processes that each make their own keys: without the cache, key generation is the
/// largest share of its CPU. Keys stay distinct within a process (each call takes the next index),
/// so no check sees one key where the protocol has two; across processes they repeat, which a test
/// run does not care about. Unset (every user's run), every key is fresh and nothing is read.
///
/// A cached file that is not a key of the size asked for is made again, never trusted. `make test`
/// starts a fresh checkout's cache from Tests/TestKeys/ (the keys one whole run made).
enum RSATestKeyCache {
    static let environmentVariable = "CROSSCHECK_TEST_KEY_CACHE"

    /// The environment's cache, read once.
    static let directory: URL? = {
        guard let path = ProcessInfo.processInfo.environment[environmentVariable], !path.isEmpty else { return nil }
        return URL(fileURLWithPath: path, isDirectory: true)
    }()

    private static let lock = NSLock()
    nonisolated(unsafe) private static var taken: [String: Int] = [:]

    /// The next key of `bits` for `kind` (what made it: keys of different makers never share a
    /// file), from the cache when one is set, else `make()`'s fresh key.
    static func key(bits: Int, kind: String, in directory: URL? = directory, make: () throws -> RSAPrivateKey) throws -> RSAPrivateKey {
        guard let directory else { return try make() }
        let stem = "rsa-\(kind)-\(bits)"
        lock.lock()
        let index = taken[stem, default: 0]
        taken[stem] = index + 1
        lock.unlock()
        let file = directory.appendingPathComponent("\(stem)-\(index).der")
        if let data = try? Data(contentsOf: file), let key = try? RSAPrivateKey(importing: data), key.bits == bits {
            return key
        }
        let key = try make()
        // Written beside and renamed: a process that reads the file at the same time sees the whole
        // key or none. A failure to write costs only the reuse.
        if let der = try? key.exported(.pkcs8DER) {
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let partial = directory.appendingPathComponent(".\(stem)-\(index).\(ProcessInfo.processInfo.processIdentifier).partial")
            if (try? der.write(to: partial)) != nil, rename(partial.path, file.path) != 0 {
                try? FileManager.default.removeItem(at: partial)
            }
        }
        return key
    }
}
