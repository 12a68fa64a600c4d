"""How the CLI finds a running `negentropy serve`: serve writes <data dir>/serve.json (its pid, the URL a local
client calls, the user it acts for, which database it reads) when it starts and removes it when it stops.
Light: `negentropy search` reads it before it imports anything heavy."""
from __future__ import annotations

import hashlib
import json
import os
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator

DISCOVERY_FILE = "serve.json"
_ANY_INTERFACE = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}  # bound everywhere: call it on loopback


class ServeNotFound(Exception):
    """No usable serve: the reason, for `negentropy search -v`."""


@dataclass(frozen=True)
class ServeAddress:
    pid: int
    url: str
    user: str | None  # the person every request acts for; None: each request needs a person's bearer token
    database: str | None  # database_fingerprint of NE_DATABASE_URL; None: the data dir's embedded PostgreSQL


def database_fingerprint(database_url: str | None) -> str | None:
    """Which database a process reads, without its credentials (the file is readable by the data dir's owner)."""
    return hashlib.sha256(database_url.encode()).hexdigest()[:16] if database_url else None


def local_url(host: str, port: int) -> str:
    host = _ANY_INTERFACE.get(host, host)
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


@contextmanager
def announced(data_dir: Path, address: ServeAddress) -> Iterator[None]:
    """``address`` in the discovery file while the block runs; removed after, unless another serve replaced it."""
    path = data_dir / DISCOVERY_FILE
    data_dir.mkdir(parents=True, exist_ok=True)
    written = path.with_suffix(f".{address.pid}.tmp")
    written.write_text(json.dumps(asdict(address)), encoding="utf-8")
    os.replace(written, path)  # a reader never sees half a file
    try:
        yield
    finally:
        try:
            if read_address(data_dir).pid == address.pid:
                path.unlink()
        except ServeNotFound:
            pass


def read_address(data_dir: Path) -> ServeAddress:
    path = data_dir / DISCOVERY_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        address = ServeAddress(int(data["pid"]), str(data["url"]), data["user"], data["database"])
    except FileNotFoundError:
        raise ServeNotFound(f"no serve is running ({path} does not exist)") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ServeNotFound(f"{path} is unreadable ({type(exc).__name__}: {exc})") from None
    if not _alive(address.pid):
        raise ServeNotFound(f"the serve {path} names (pid {address.pid}) is not running")
    return address


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True
