// Transport — the operating system's I/O, each operation under a deadline: TCP (`TCPConnection`,
// `TCPListener`), name resolution (`HostResolver`, `ServerAddress`), the driver that runs a session
// machine over a socket (`SocketDriver`, `SessionMachineServer`), HTTP/1.1, a TLS server over
// libssl and the pinned HTTPS client over libcurl; `InProcessServer` (a server in this process)
// and `LoopbackRelay` (a real port in front of one). One error enum: `TransportError`.
// Files in folders by family: `TCP/` (sockets and deadlines, TCPConnection/TCPListener, HostResolver,
// ServerAddress, SocketDriver), `TLS/` (TLSServer, InsecureTLSProbe), `HTTP/` (HTTP/1.1 messages,
// HTTPServer, PinnedHTTPSClient), `InProcess/` (InProcessServer, LoopbackRelay); this file and
// TransportError.swift stay at the top.
// May import: WireProtocol, WireCrypto (OpenSSLError), and, internally, COpenSSL(Shims), CCurl(Shims).
