"""Run the MCP server over stdio or streamable HTTP (uvicorn on a socket bound here, so port 0 works)."""
from __future__ import annotations

import ipaddress
import logging
import socket
import sys

import uvicorn
from mcp.server import Server
from mcp.server.stdio import stdio_server

logger = logging.getLogger(__name__)

HTTP_PATH = "/mcp"


async def serve_stdio(server: Server) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise OSError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    # Listening before uvicorn starts means early clients queue instead of being refused.
    sock.listen(128)
    return sock


async def serve_http(server: Server, host: str, port: int) -> None:
    """Serve until cancelled; prints ``listening on <url>`` to stderr once clients can connect."""
    if not is_loopback(host):
        logger.warning("MCP over plain HTTP on %s: API tokens cross the network unencrypted; put TLS in front", host)
    app = server.streamable_http_app(streamable_http_path=HTTP_PATH, json_response=True, host=host)
    sock = bind_socket(host, port)
    bound_host, bound_port = sock.getsockname()[:2]
    shown_host = f"[{bound_host}]" if ":" in bound_host else bound_host
    print(f"negentropy MCP server listening on http://{shown_host}:{bound_port}{HTTP_PATH}", file=sys.stderr,
          flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    await uvicorn.Server(config).serve(sockets=[sock])
