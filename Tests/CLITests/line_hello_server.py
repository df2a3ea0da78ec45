"""A line-framed server for the CLI tests (written from docs/PROTOCOL-DESCRIPTIONS.md, not from
crosscheck's engines): each connection reads one CRLF line through asyncio's StreamReader with
limit = max_message, answers "world" to "hello" and "ERROR" to anything else, then closes.

Correct as it is: readuntil() takes a line of max_message bytes and its CRLF, and refuses a longer
one; with no line end it refuses only past max_message + 1 bytes (a CRLF may still be coming), which
a check must not take for "waits without bound" (the stop-49 review).
--plant refuses-once-after-bad: after any bad line, the next "hello" also gets "ERROR" (once): bad
input breaks the next client's conversation, which a liveness check must not retry away.
"""

import argparse
import asyncio


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--max-message", type=int, default=64)
    parser.add_argument("--plant", choices=["refuses-once-after-bad"])
    args = parser.parse_args()
    spoiled = False

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal spoiled
        try:
            line = (await asyncio.wait_for(reader.readuntil(b"\r\n"), 10))[:-2]
            if line == b"hello" and not spoiled:
                writer.write(b"world\r\n")
            else:
                spoiled = line != b"hello" and args.plant is not None
                writer.write(b"ERROR\r\n")
        except (asyncio.LimitOverrunError, asyncio.IncompleteReadError, asyncio.TimeoutError, ValueError):
            spoiled = args.plant is not None
            writer.write(b"ERROR\r\n")
        try:
            await writer.drain()
        finally:
            writer.close()

    server = await asyncio.start_server(handle, args.host, args.port, limit=args.max_message)
    print("LISTENING %d" % server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
