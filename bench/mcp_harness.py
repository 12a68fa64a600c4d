"""Start `negentropy mcp` as a real subprocess and talk to it with the MCP SDK's own clients (tests, load bench)."""
from __future__ import annotations

import asyncio
import os
import re
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import AsyncIterator

import httpx2
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from bench.harness import stop_process

REPO_ROOT = Path(__file__).resolve().parents[1]
_LISTENING_RE = re.compile(r"listening on (http://\S+)")
STARTUP_TIMEOUT_SECONDS = 90.0


def server_environment(dsn: str, topology_path: Path, data_dir: Path, **extra: str) -> dict[str, str]:
    """What the server process needs: the test database, the topology, offline models."""
    return {"NE_DATABASE_URL": dsn, "NE_TOPOLOGY_PATH": str(topology_path), "NE_DATA_DIR": str(data_dir),
            "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **extra}


def server_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "cli.main", "mcp", *args]


@asynccontextmanager
async def stdio_session(env: dict[str, str], errlog_path: Path) -> AsyncIterator[ClientSession]:
    command = server_command("--transport", "stdio")
    params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(REPO_ROOT))
    with errlog_path.open("w", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


@asynccontextmanager
async def http_server(env: dict[str, str], errlog_path: Path) -> AsyncIterator[str]:
    """`negentropy mcp --transport http` on 127.0.0.1 and a free port; yields its URL."""
    process = await asyncio.create_subprocess_exec(
        *server_command("--transport", "http", "--host", "127.0.0.1", "--port", "0"), cwd=str(REPO_ROOT),
        env={**os.environ, **env}, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE)
    lines: list[str] = []
    drain: asyncio.Task | None = None
    try:
        url = await asyncio.wait_for(_wait_for_url(process, lines), STARTUP_TIMEOUT_SECONDS)
        drain = asyncio.create_task(_drain(process, lines))
        yield url
    finally:
        await stop_process(process, 15)
        if drain is not None:
            await drain  # ends at the closed pipe
        errlog_path.write_text("".join(lines), encoding="utf-8")


async def _wait_for_url(process: asyncio.subprocess.Process, lines: list[str]) -> str:
    assert process.stderr is not None
    while True:
        raw = await process.stderr.readline()
        if not raw:
            raise RuntimeError("the MCP server exited before listening:\n" + "".join(lines))
        line = raw.decode("utf-8", "replace")
        lines.append(line)
        match = _LISTENING_RE.search(line)
        if match:
            return match.group(1)


async def _drain(process: asyncio.subprocess.Process, lines: list[str]) -> None:
    assert process.stderr is not None
    async for raw in process.stderr:
        lines.append(raw.decode("utf-8", "replace"))


@asynccontextmanager
async def http_session(url: str, token: str | None) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=120.0)) as http:
        async with streamable_http_client(url, http_client=http) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            yield session
