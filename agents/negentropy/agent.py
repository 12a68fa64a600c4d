"""`root_agent`: Negentropy root + PerceptionFaculty + InternalizationFaculty (docs/design.md sections 4-5)."""
from __future__ import annotations

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm

from agents.callbacks import attach_session_context, route_turn
from agents.faculties import INTERNALIZATION, PERCEPTION, ROOT
from agents.model_choice import build_model
from config import get_settings
from session.access import warn_about_dev_users
from tools import internalization_tools, perception_tools
from tools.approval import plain_confirmation_hint

from . import instructions


def build_root_agent(model: BaseLlm | None = None) -> LlmAgent:
    """A fresh agent tree (ADK agents cannot be shared between parents)."""
    warn_about_dev_users(get_settings())
    model = model or build_model(get_settings())
    # disallow_transfer_to_parent: every new user message starts at the root again, whose callback
    # re-reads mentions and the intent hint; a confirmation answer still goes back to the asking agent.
    perception = LlmAgent(name=PERCEPTION, model=model, description=instructions.PERCEPTION_DESCRIPTION,
                          instruction=instructions.PERCEPTION_INSTRUCTION, tools=perception_tools(),
                          before_model_callback=attach_session_context, after_tool_callback=plain_confirmation_hint,
                          disallow_transfer_to_parent=True, disallow_transfer_to_peers=True)
    internalization = LlmAgent(name=INTERNALIZATION, model=model, description=instructions.INTERNALIZATION_DESCRIPTION,
                               instruction=instructions.INTERNALIZATION_INSTRUCTION, tools=internalization_tools(),
                               before_model_callback=attach_session_context,
                               after_tool_callback=plain_confirmation_hint,
                               disallow_transfer_to_parent=True, disallow_transfer_to_peers=True)
    return LlmAgent(name=ROOT, model=model, description=instructions.ROOT_DESCRIPTION,
                    instruction=instructions.ROOT_INSTRUCTION, sub_agents=[perception, internalization],
                    before_model_callback=route_turn)


root_agent = build_root_agent()
