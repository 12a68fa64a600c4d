from config.settings import ApprovalPolicy, Settings, get_settings, reset_settings_cache

__all__ = ["ApprovalPolicy", "Settings", "get_settings", "reset_settings_cache"]
