"""Render ``.env.example`` from the Settings model so it always lists every setting with its default."""
from __future__ import annotations

import json
from enum import Enum
from pathlib import Path

from pydantic import BaseModel

from config.settings import Settings

_DYNAMIC_DEFAULTS = {"data_dir": "(platform user data dir)/negentropy"}


def _lines(model: type[BaseModel], prefix: str, instance: BaseModel) -> list[str]:
    lines: list[str] = []
    for name, field in model.model_fields.items():
        value = getattr(instance, name)
        key = f"{prefix}{name.upper()}"
        if isinstance(value, BaseModel):
            lines.extend(_lines(type(value), f"{key}__", value))
            continue
        if name in _DYNAMIC_DEFAULTS and not prefix.endswith("__"):
            lines.append(f"# {key}={_DYNAMIC_DEFAULTS[name]}")
            continue
        if value is None:
            lines.append(f"# {key}=")
            continue
        if isinstance(value, (list, tuple, dict)):
            lines.append(f"{key}={json.dumps(value)}")
            continue
        rendered = value.value if isinstance(value, Enum) else value
        rendered = str(rendered).lower() if isinstance(rendered, bool) else rendered
        lines.append(f"{key}={rendered}")
    return lines


def render_env_example() -> str:
    header = [
        "# Every Negentropy setting with its default. Copy to .env and change what you need.",
        "# Unset NE_DATABASE_URL starts the embedded PostgreSQL in NE_DATA_DIR/postgres.",
        "# Unset NE_MODEL uses the offline (rule-based, extractive) paths; set it to a litellm model name",
        "# (for example openai/gpt-4o-mini) to use a real LLM.",
    ]
    defaults = Settings(_env_file=None)  # type: ignore[call-arg]  # pydantic-settings' own keyword
    return "\n".join(header + _lines(Settings, "NE_", defaults)) + "\n"


if __name__ == "__main__":
    Path(".env.example").write_text(render_env_example(), encoding="utf-8")
