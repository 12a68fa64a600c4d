"""Drive the Negentropy agent tree through ADK's Runner in tests (real tools, real database).

The default user is "sofia", a person of the shipped workspace topology who may read team_notes,
project_docs and papers, so calls pass the tool gateway's identity check.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from google.adk.agents import BaseAgent
from google.adk.events import Event
from google.adk.runners import Runner
from google.adk.sessions import BaseSessionService, InMemorySessionService
from google.genai import types

CONFIRMATION = "adk_request_confirmation"


@dataclass
class TurnResult:
    events: list[Event]
    state: dict[str, Any]

    @property
    def text(self) -> str:
        return "\n".join(p.text for e in self.events if e.content and not e.partial
                         for p in e.content.parts or [] if p.text)

    def calls(self, name: str | None = None) -> list[types.FunctionCall]:
        return [p.function_call for e in self.events if e.content for p in e.content.parts or []
                if p.function_call and (name is None or p.function_call.name == name)]

    def responses(self, name: str) -> list[dict[str, Any]]:
        return [dict(p.function_response.response or {}) for e in self.events if e.content
                for p in e.content.parts or [] if p.function_response and p.function_response.name == name]

    def authors(self) -> list[str]:
        return list(dict.fromkeys(e.author for e in self.events))


@dataclass
class Conversation:
    runner: Runner
    session_service: BaseSessionService
    session_id: str
    user_id: str = "sofia"
    turns: list[TurnResult] = field(default_factory=list)

    async def _run(self, message: types.Content, state_delta: dict | None = None) -> TurnResult:
        events = [e async for e in self.runner.run_async(user_id=self.user_id, session_id=self.session_id,
                                                          new_message=message, state_delta=state_delta)]
        session = await self.session_service.get_session(app_name=self.runner.app_name, user_id=self.user_id,
                                                         session_id=self.session_id)
        turn = TurnResult(events, dict(session.state))
        self.turns.append(turn)
        return turn

    async def send(self, text: str, state_delta: dict | None = None) -> TurnResult:
        return await self._run(types.Content(role="user", parts=[types.Part(text=text)]), state_delta)

    async def answer_confirmation(self, approved: bool) -> TurnResult:
        request = self.turns[-1].calls(CONFIRMATION)[-1]
        response = types.FunctionResponse(id=request.id, name=CONFIRMATION, response={"confirmed": approved})
        return await self._run(types.Content(role="user", parts=[types.Part(function_response=response)]))


async def start_conversation(agent: BaseAgent, session_service: BaseSessionService | None = None,
                             state: dict | None = None, user_id: str = "sofia") -> Conversation:
    service = session_service or InMemorySessionService()
    runner = Runner(agent=agent, app_name="negentropy", session_service=service)
    session = await service.create_session(app_name="negentropy", user_id=user_id, state=state)
    return Conversation(runner, service, session.id, user_id)
