"""Which model the agents use: LiteLlm(NE_MODEL) when set, else the offline model. Said once at start-up."""
from __future__ import annotations

import functools
import sys

from google.adk.models.base_llm import BaseLlm

from agents.offline_model import OfflineModel
from config import Settings


def describe_model(settings: Settings) -> str:
    if settings.model:
        return f"LiteLlm model {settings.model!r} (NE_MODEL)"
    return "the offline extractive model (NE_MODEL is unset; set it to a litellm model name to use an LLM)"


@functools.cache
def _announce(description: str) -> None:
    # stderr, not logging: `adk run` sends log records to a temp file, and this line is for the person
    # starting the agent (adk run / adk web / negentropy serve alike); once per process and model.
    print(f"negentropy agent: using {description}", file=sys.stderr)


def build_model(settings: Settings) -> BaseLlm:
    _announce(describe_model(settings))
    if settings.model:
        from google.adk.models.lite_llm import LiteLlm

        return LiteLlm(model=settings.model)
    return OfflineModel()
