"""The server's paths a local client calls; light (no FastAPI), since `negentropy search` imports it first thing."""
HEALTH_PATH = "/health"
SEARCH_PATH = "/search"
