"""Progress bars on stderr for long ingests: per file, per embedding batch and per post-ingest stage."""
from __future__ import annotations

import sys
from enum import Enum

from tqdm import tqdm


class ProgressMode(str, Enum):
    never = "never"
    tty = "tty"  # only when stderr is a terminal
    always = "always"

    @classmethod
    def of(cls, value: "ProgressMode | bool | None") -> "ProgressMode":
        """True (the historical default) means on a terminal, False never, None too means on a terminal."""
        if isinstance(value, ProgressMode):
            return value
        return cls.never if value is False else cls.tty


# a single file or document this big gets a bar of its own (in bytes or characters): reading, chunking and
# measuring it take seconds
BIG_TEXT = 1_000_000


def progress_bar(mode: ProgressMode, total: int, desc: str, unit: str, min_total: int = 1,
                 unit_scale: bool = False) -> tqdm:
    """A bar that shows itself only when asked to (always) or on a terminal, and only for ``min_total`` items up."""
    if mode is ProgressMode.never or total < min_total:
        disable: bool | None = True
    else:
        disable = None if mode is ProgressMode.tty else False
    return tqdm(total=total, desc=desc, unit=unit, unit_scale=unit_scale, disable=disable, leave=False,
                file=sys.stderr)
