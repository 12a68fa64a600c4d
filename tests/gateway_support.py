"""A small workspace for the gateway and MCP tests: a topology file and four corpora with a planted secret."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import AsyncIterator

import pytest_asyncio

from cli.mcp import served_tools
from config import Settings
from config.settings import GatewaySettings
from knowledge.app import KnowledgeApp
from knowledge.corpora import Corpus
from knowledge.gateway import GatewayTool
from knowledge.ingest.documents import Document
from tests.conftest import make_settings

PLANTED_AWS_KEY = "AKIAQ7XJ2LMN4PQR8STU"
PLANTED_OPENAI_KEY = "sk-proj-Zr8Qm2Vx7Lk4Tn9Wb3Yc6Hd1Jf5Gs0Pa"

TOPOLOGY = {
    "version": 1,
    "organization": {"id": "acme", "name": "Acme Robotics", "contact": "olga"},
    "departments": [{"id": "eng", "name": "Engineering", "head": "olga"},
                    {"id": "fin", "name": "Finance", "head": "fay"}],
    "people": [
        {"id": "olga", "name": "Olga Petrova", "department": "eng", "title": "Head of Engineering"},
        {"id": "ivan", "name": "Ivan Horvat", "department": "eng", "title": "Engineer", "user_ids": ["ivan-chat"]},
        {"id": "fay", "name": "Fay Morgan", "department": "fin", "title": "Head of Finance"},
    ],
    "projects": [{"id": "apollo", "name": "Project Apollo", "department": "eng", "lead": "ivan",
                  "members": ["ivan"], "description": "Warehouse robot fleet."}],
    "tasks": [{"kind": "question", "description": "Look something up."}],
    "context_libraries": [
        {"id": "eng-docs", "name": "Engineering docs", "description": "Runbooks and designs of the robot fleet.",
         "scope": {"kind": "department", "ref": "eng"}, "corpora": ["eng_docs"], "owner": "olga",
         "reviewers": ["olga"], "sources": ["wiki"]},
        {"id": "fin-ledger", "name": "Finance ledger", "description": "Budgets and vendor payments.",
         "scope": {"kind": "department", "ref": "fin"}, "corpora": ["fin_ledger"], "owner": "fay",
         "reviewers": ["fay"], "sources": ["erp export"]},
        {"id": "apollo-ws", "name": "Apollo workspace", "description": "Project Apollo plans and meeting notes.",
         "scope": {"kind": "project", "ref": "apollo"}, "corpora": ["apollo_ws"], "owner": "ivan"},
        {"id": "all-hands", "name": "All-hands notes", "description": "Company-wide announcements.",
         "scope": {"kind": "org"}, "corpora": ["all_hands"], "owner": "olga"},
    ],
    "routing_rules": [{"id": "money-questions", "keywords": ["payroll", "invoice"], "prefer": ["fin-ledger"]}],
    "permission_views": [{"person": "olga"}, {"person": "ivan"}, {"person": "fay"}],
}

DOCUMENTS: dict[str, list[tuple[str, str]]] = {
    "eng_docs": [
        ("gripper-runbook.md", "Gripper calibration runbook. The Mk4 gripper drifts after 400 picks; recalibrate "
                               "with the torque sweep and reset the encoder offset before the night shift."),
        ("fleet-deploy.md", f"Fleet deployment notes. The staging uploader uses the access key {PLANTED_AWS_KEY} "
                            f"and the model gateway key {PLANTED_OPENAI_KEY}; the database is "
                            "postgresql://fleet:Tr0ub4dor@db.acme.internal/fleet. Rotate both before launch."),
    ],
    "fin_ledger": [
        ("q3-budget.md", "Q3 budget. Robot fleet capital expenditure is 1.8 million euros; the gripper vendor "
                         "Kinetix invoices 240,000 euros per quarter for calibration services."),
    ],
    "apollo_ws": [
        ("apollo-plan.md", "Project Apollo plan. Apollo rolls the Mk4 gripper out to the Rotterdam warehouse in "
                           "October; gripper calibration is the main launch risk."),
    ],
    "all_hands": [
        ("all-hands-june.md", "June all-hands. Acme Robotics opened the Rotterdam warehouse and hired twelve "
                              "engineers; the gripper programme is on track."),
    ],
}


def write_topology(directory: Path) -> Path:
    path = directory / "topology.json"
    path.write_text(json.dumps(TOPOLOGY), encoding="utf-8")
    return path


async def seed_corpora(kapp: KnowledgeApp) -> dict[str, Corpus]:
    corpora: dict[str, Corpus] = {}
    for name, docs in DOCUMENTS.items():
        corpus = await kapp.corpora.create(name)
        await kapp.ingest_documents(corpus, [Document(source_uri=f"acme://{name}/{file}", text=text, title=file)
                                             for file, text in docs])
        corpora[name] = corpus
    return corpora


@dataclass
class Acme:
    kapp: KnowledgeApp
    corpora: dict[str, Corpus]
    topology_path: Path

    def tool(self, name: str) -> GatewayTool:
        """One of the MCP tools (search, read, report_gap, submit_card) wired exactly as the server wires it."""
        return next(tool for tool in served_tools(self.kapp) if tool.name == name)

    async def audit_rows_after(self, marker: int) -> list[dict]:
        async with self.kapp.db.connection() as conn:
            rows = await conn.fetch("SELECT * FROM gateway_audit WHERE id > $1 ORDER BY id", marker)
        return [dict(r) for r in rows]

    async def audit_marker(self) -> int:
        async with self.kapp.db.connection() as conn:
            return await conn.fetchval("SELECT coalesce(max(id), 0) FROM gateway_audit")


def acme_settings(directory: Path, **gateway_overrides) -> Settings:
    topology = write_topology(directory)
    gateway = GatewaySettings(**{"rate_per_second": 1000.0, "rate_burst": 1000, **gateway_overrides})
    return make_settings(directory, topology_path=topology, gateway=gateway)


# The seeded database is made once per test session and reopened by each module (the fixture is
# imported into several modules, so pytest keeps one instance per module).
_seeded: dict[str, str] = {}


@pytest_asyncio.fixture(scope="module")
async def acme(new_database, embedder, tmp_path_factory) -> AsyncIterator[Acme]:
    """The Acme workspace (tests write audit rows and tokens to it, so they compare against markers)."""
    directory = tmp_path_factory.mktemp("acme")
    settings = acme_settings(directory)
    fresh = "dsn" not in _seeded
    if fresh:
        _seeded["dsn"] = await new_database("acme")
    kapp = await KnowledgeApp.open(settings, dsn=_seeded["dsn"], embedder=embedder, progress=False)
    try:
        corpora = await seed_corpora(kapp) if fresh else {c.name: c for c in await kapp.corpora.list()}
        yield Acme(kapp, corpora, settings.topology_path)
    finally:
        await kapp.close()
