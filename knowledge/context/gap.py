"""A knowledge gap: the Context Router found too little a person may read, and says whom to ask."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KnowledgeGap:
    reason: str         # "thin_evidence" | "no_access" | "no_library"
    message: str
    owner_id: str
    owner_name: str
    library_id: str | None = None
    library_name: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return {"reason": self.reason, "message": self.message, "owner_id": self.owner_id,
                "owner_name": self.owner_name, "library_id": self.library_id, "library_name": self.library_name}
