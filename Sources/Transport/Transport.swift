// TCP with deadlines, TLS (libcurl client with pinning, libssl server), HTTP/1.1.
