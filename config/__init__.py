"""The settings (config/settings.py), loaded on first use: they import pydantic, which a `negentropy search`
through a running serve never needs (config/locations.py)."""
import importlib
import os
from typing import TYPE_CHECKING, Any

# litellm fetches its model price map from the network at import unless told to use the bundled copy.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

if TYPE_CHECKING:
    from config.settings import ApprovalPolicy, Settings, get_settings, reset_settings_cache

__all__ = ["ApprovalPolicy", "Settings", "get_settings", "reset_settings_cache"]


def __getattr__(name: str) -> Any:
    settings = importlib.import_module("config.settings")
    if name == "settings":
        return settings
    if name in __all__:
        return getattr(settings, name)
    raise AttributeError(f"module 'config' has no attribute {name!r}")
