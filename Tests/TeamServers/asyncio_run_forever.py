"""asyncio.start_server, then loop.run_forever()."""
import asyncio
import os


async def handle(reader, writer):
    print("accepted", writer.get_extra_info("peername"), flush=True)
    try:
        await asyncio.wait_for(reader.read(4096), 2)
        writer.write(b"Server: ERROR\n")
        await writer.drain()
    except (asyncio.TimeoutError, OSError):
        pass
    writer.close()


print("PGID %d" % os.getpgid(0), flush=True)
loop = asyncio.new_event_loop()
asyncio.set_event_loop(loop)
loop.run_until_complete(asyncio.start_server(handle, "127.0.0.1", 0))
loop.run_forever()
