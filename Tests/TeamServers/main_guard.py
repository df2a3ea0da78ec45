"""main() under the guard, the port from the command line (as the Pi's systemd unit gives it)."""
import argparse
import os
import socketserver


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        print("accepted", self.client_address, flush=True)
        self.request.settimeout(2)
        try:
            self.request.recv(4096)
            self.request.sendall(b"Server: ERROR\n")
        except OSError:
            pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    arguments = parser.parse_args()
    print("PGID %d" % os.getpgid(0), flush=True)
    socketserver.ThreadingTCPServer.allow_reuse_address = True
    with socketserver.ThreadingTCPServer(("127.0.0.1", arguments.port), Handler) as server:
        server.serve_forever()


if __name__ == "__main__":
    main()
