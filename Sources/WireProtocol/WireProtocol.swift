// WireProtocol — the protocols as sans-I/O state machines: rsa-socket client and server (both
// directions, legacy and framed reading, the digest extension) and the aes-https logic. Bytes in,
// actions out (`SessionMachine`), so every TCP split can be replayed deterministically; Transport
// drives them over real sockets.
// May import: WireCrypto. No I/O.
