"""Deterministic synthetic but realistic chunks: team updates, design notes and paper abstracts."""
from __future__ import annotations

import random

_ORGS = ["Kestrel Labs", "OpenAI", "Microsoft", "Google", "Anthropic", "Cobalt Systems", "Tsinghua University",
         "Northwind Analytics", "Bluefin Robotics", "Quantum Harbor", "Meridian Health", "Solace Bank"]
_PEOPLE = ["Dr. Lin Wei", "Maria Santos", "Kenji Watanabe", "Sofia Keller", "Omar Haddad", "Priya Nair",
           "Lukas Brandt", "Chen Jing", "Amara Okafor", "Diego Ruiz"]
_SYSTEMS = ["Aurora Vector Engine", "Lumen Gateway", "Project Helios", "Project Atlas", "Project Orion",
            "Nimbus Scheduler", "Falcon Cache", "Tidal Stream", "Granite Store", "Beacon Monitor"]
_PLACES = ["Berlin", "Shanghai", "Hangzhou", "Munich", "Singapore", "Toronto", "Austin", "Lisbon"]
_TOPICS = ["latency budgets", "index rebuilds", "embedding drift", "access control", "cost reporting",
           "incident response", "schema migrations", "capacity planning", "query routing", "data retention",
           "entity resolution", "model evaluation", "release cadence", "on-call handover", "vendor contracts"]
_TEMPLATES = [
    "{person} from {org} reviewed {topic} for {system} and proposed a change to the rollout plan.",
    "{system} uses {system2} for {topic}; the team in {place} measured a {n}% improvement last sprint.",
    "In the weekly sync, {person} reported that {system} had {n} incidents related to {topic}.",
    "{org} partnered with {org2} to evaluate {system} on {topic} across {n} customer workloads.",
    "The design note for {system} explains how {topic} interacts with {system2} during peak traffic.",
    "{person} works at {org} in {place} and leads the effort on {topic} for {system}.",
    "We decided to postpone the {topic} work on {system} until {system2} reaches version {n}.",
    "An abstract: we study {topic} in large retrieval systems and show that {system} reduces errors by {n}%.",
]


def synthetic_chunks(count: int, seed: int = 7, sentences_per_chunk: int = 4) -> list[str]:
    rng = random.Random(seed)
    chunks = []
    for i in range(count):
        parts = []
        for _ in range(sentences_per_chunk):
            template = rng.choice(_TEMPLATES)
            system, system2 = rng.sample(_SYSTEMS, 2)
            org, org2 = rng.sample(_ORGS, 2)
            parts.append(template.format(person=rng.choice(_PEOPLE), org=org, org2=org2, system=system,
                                         system2=system2, place=rng.choice(_PLACES), topic=rng.choice(_TOPICS),
                                         n=rng.randint(2, 95)))
        chunks.append(f"Note {i}: " + " ".join(parts))
    return chunks


def synthetic_queries(count: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    forms = ["How does {system} handle {topic}?", "Who leads {topic} for {system}?",
             "What did {org} decide about {topic}?", "Which team in {place} works on {system}?"]
    return [rng.choice(forms).format(system=rng.choice(_SYSTEMS), topic=rng.choice(_TOPICS), org=rng.choice(_ORGS),
                                     place=rng.choice(_PLACES)) for _ in range(count)]
