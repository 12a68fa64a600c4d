import os

# litellm fetches its model price map from the network at import unless told to use the bundled copy.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from config.settings import ApprovalPolicy, Settings, get_settings, reset_settings_cache  # noqa: E402

__all__ = ["ApprovalPolicy", "Settings", "get_settings", "reset_settings_cache"]
