"""Where the data dir and the database are, read from the environment without pydantic (which costs more than
the rest of a `negentropy search` through serve): cli/search.py finds a running serve with them."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

import platformdirs

ENV_FILE = ".env"  # Settings reads it from the working directory


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("negentropy"))


def plain_locations(environ: Mapping[str, str] = os.environ) -> tuple[Path, str | None] | None:
    """(data dir, database URL) as Settings reads them, or None when Settings could read them otherwise: from a
    .env file, or from a variable spelt in another case (Settings ignores case)."""
    if Path(ENV_FILE).exists() or any(k.upper().startswith("NE_") and not k.startswith("NE_") for k in environ):
        return None
    data_dir = Path(environ["NE_DATA_DIR"]) if "NE_DATA_DIR" in environ else default_data_dir()
    return data_dir, environ.get("NE_DATABASE_URL") or None
