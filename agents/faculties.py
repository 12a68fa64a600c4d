"""Names of the agents in the Negentropy tree (shared by the agent definitions and the offline model)."""
from __future__ import annotations

ROOT = "negentropy"
PERCEPTION = "PerceptionFaculty"
INTERNALIZATION = "InternalizationFaculty"
