#!/usr/bin/env python3
"""A TLS-terminating reverse proxy for the compat run: trawl behind https, as the README's
public set-up puts it.

    tls_proxy.py CERT KEY UPSTREAM_FILE

Listens on 127.0.0.1 (a free port, printed on the first line), takes TLS with CERT/KEY,
and relays each connection's bytes to the "host:port" written in UPSTREAM_FILE (read per
connection, so the proxy can start before the server it fronts). WebSocket upgrades pass
through as any other bytes.
"""
import asyncio
import ssl
import sys

CERT, KEY, UPSTREAM_FILE = sys.argv[1], sys.argv[2], sys.argv[3]


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        try:
            writer.close()
        except Exception:  # noqa: BLE001 - the other side may be gone already
            pass


async def handle(client_reader, client_writer):
    with open(UPSTREAM_FILE) as f:
        host, port = f.read().strip().rsplit(":", 1)
    try:
        up_reader, up_writer = await asyncio.open_connection(host, int(port))
    except OSError:
        client_writer.close()
        return
    await asyncio.gather(pipe(client_reader, up_writer), pipe(up_reader, client_writer))


async def main():
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(CERT, KEY)
    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
