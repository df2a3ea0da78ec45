import Foundation

/// A real TCP port on 127.0.0.1 in front of an `InProcessServer`, for client code that opens its
/// own socket (an app's own networking): every connection accepted is joined to a new connection of
/// the server, and bytes are copied both ways as they arrive; when one side ends its stream, the
/// other side's write half is shut down, so each end reads the end of stream as it would from the
/// server itself. `finish()` closes everything and waits for the copying threads.
public final class LoopbackRelay: @unchecked Sendable {
    private let listener: TCPListener
    private let server: any InProcessServer
    private let timeout: TimeInterval
    private let threads = DispatchGroup()
    private let lock = NSLock()
    private var open: [TCPConnection] = []
    private var finished = false
    private var problems: [String] = []

    /// The port client code connects to.
    public var port: UInt16 { listener.port }

    /// Listens on a port of the kernel's choosing and relays from now until `finish()`. `timeout`
    /// bounds each connect to the server and each write.
    public init(to server: any InProcessServer, timeout: TimeInterval) throws {
        listener = try TCPListener(host: "127.0.0.1", port: 0)
        self.server = server
        self.timeout = timeout
        threads.enter()
        Thread.detachNewThread { [self] in
            acceptUntilClosed()
            threads.leave()
        }
    }

    /// Stops listening, closes every connection, waits for the copying to end; returns what went
    /// wrong in the relay itself (a server connection that could not be made), for a failure's body.
    @discardableResult
    public func finish() -> [String] {
        lock.withLock { finished = true }
        listener.close()
        lock.withLock { open.forEach { $0.close() } }
        threads.wait()
        return lock.withLock { problems }
    }

    private func acceptUntilClosed() {
        while true {
            let client: TCPConnection
            do { client = try listener.accept(timeout: timeout) } catch TransportError.timedOut { continue } catch {
                // Closed by `finish()`, or failing: then say so, or an app's connection times out unexplained.
                lock.withLock { if !finished { problems.append("relay: cannot accept a connection: \(error)") } }
                return
            }
            let upstream: TCPConnection
            // Unwatched: the relay only passes bytes on; when the line is quiet is its client's business.
            do { upstream = try server.connect(timeout: timeout, watchingReads: false) } catch {
                lock.withLock { problems.append("relay: cannot connect to \(server.name): \(error)") }
                client.close()
                continue
            }
            let relaying = lock.withLock {
                open += [client, upstream]
                return !finished
            }
            guard relaying else { return [client, upstream].forEach { $0.close() } }
            for (source, destination) in [(client, upstream), (upstream, client)] {
                threads.enter()
                Thread.detachNewThread { [self] in
                    copy(from: source, to: destination)
                    threads.leave()
                }
            }
        }
    }

    /// Copies until `source` ends its stream or is closed (a quiet line is no end: the relay waits).
    private func copy(from source: TCPConnection, to destination: TCPConnection) {
        defer { destination.shutdownWrite() }
        while true {
            let data: Data
            do { data = try source.read(upTo: 65536, timeout: timeout) } catch TransportError.timedOut { continue } catch { return }
            guard !data.isEmpty, (try? destination.write(data, timeout: timeout)) != nil else { return }
        }
    }
}
