"""A command run in a subprocess and killed with SIGKILL at a point its database reaches (the kill -9 tests)."""
from __future__ import annotations

import asyncio
import signal
import subprocess

import asyncpg

from tests.conftest import REPO_ROOT


async def killed_when(command: list[str], env: dict[str, str], dsn: str, kill_when: str) -> bool:
    """Run ``command`` and SIGKILL it once the query ``kill_when`` returns true; False if it finished first."""
    process = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    conn = await asyncpg.connect(dsn)  # one connection: polling is then a query, and a short window is seen
    try:
        while process.poll() is None:
            try:
                reached = await conn.fetchval(kill_when)
            except asyncpg.UndefinedTableError:
                reached = False  # migrations still running
            if reached:
                process.send_signal(signal.SIGKILL)
                process.wait()
                return True
            await asyncio.sleep(0.005)
        return False
    finally:
        await conn.close()
        if process.poll() is None:
            process.kill()
            process.wait()
