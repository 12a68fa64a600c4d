"""The import structure, read from the code with ``ast`` (every import, also those under TYPE_CHECKING or
inside functions): no import circle among the project's modules, dependencies point one way
(config <- knowledge <- session <- tools <- agents <- server <- cli, with the demo builder beside session and the
benches beside the server), and only the composition root
``knowledge.app`` knows the app: nothing else under ``knowledge/`` imports it, not even for types."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("config", "knowledge", "session", "demo", "tools", "agents", "server", "bench", "cli")
# A package may import from its own layer and the layers below it, never from a layer above.
LAYERS = {"config": 0, "knowledge": 1, "session": 2, "demo": 2, "tools": 3, "agents": 4, "server": 5, "bench": 5,
          "cli": 6}
# Inside knowledge/ the same rule: storage at the bottom, the servers at the top. Its top-level modules (text
# cleaning, names, corpus ids, embedding, metrics, offload, heap) serve every part and are layer 0.
KNOWLEDGE_LAYERS = {"db": 1, "corpora": 1, "ingest": 2, "graph": 2, "canonical": 3, "documents": 3,
                    "embedding_migration": 3, "retrieval": 4, "context": 5, "gateway": 6, "mcp_server": 7, "app": 8}
COMPOSITION_ROOT = "knowledge.app"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    return {module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


def imported_modules(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules ``name`` imports: ``from a.b import c`` names ``a.b.c`` when that is a module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:        # "import a.b.c" of a name inside a module
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    return {name: imported_modules(name, path, modules) for name, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circle():
    found = circles(import_graph())
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(component) for component in found)


def test_only_the_composition_root_knows_the_app():
    below = sorted(name for name, imports in import_graph().items()
                   if name.startswith("knowledge.") and name != COMPOSITION_ROOT and COMPOSITION_ROOT in imports)
    assert not below, f"{COMPOSITION_ROOT} imported from below it: {', '.join(below)}"


def test_dependencies_point_down_the_layers():
    upward = sorted(f"{name} -> {target}" for name, imports in import_graph().items() for target in imports
                    if LAYERS[target.split(".")[0]] >= LAYERS[name.split(".")[0]]
                    and target.split(".")[0] != name.split(".")[0])
    assert not upward, "imports from a lower layer back up:\n" + "\n".join(upward)


def knowledge_layer(module: str) -> int:
    part = module.split(".")[1] if module.count(".") else ""
    return KNOWLEDGE_LAYERS.get(part, 0)


def test_inside_knowledge_dependencies_point_down_its_layers():
    upward = sorted(f"{name} -> {target}" for name, imports in import_graph().items() for target in imports
                    if name.startswith("knowledge.") and target.startswith("knowledge.")
                    and knowledge_layer(target) > knowledge_layer(name))
    assert not upward, "knowledge/ imports back up its layers:\n" + "\n".join(upward)


def test_knowledge_layers_name_every_part_of_knowledge():
    parts = {path.name.removesuffix(".py") for path in (ROOT / "knowledge").iterdir()
             if path.is_dir() and (path / "__init__.py").exists()}
    assert parts <= KNOWLEDGE_LAYERS.keys(), f"give these a layer: {sorted(parts - KNOWLEDGE_LAYERS.keys())}"


def test_the_walk_sees_type_checking_and_function_level_imports(tmp_path):
    graph = import_graph()
    assert "knowledge.db.queries.canonical" in graph["knowledge.canonical.linker"]   # "from ... import canonical"
    assert "agents.negentropy.agent" in graph["agents.negentropy"]                   # "from . import agent"
    sample = tmp_path / "sample.py"
    sample.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                      "    from knowledge.app import KnowledgeApp\n"
                      "def f():\n    import knowledge.corpora\n", encoding="utf-8")
    assert imported_modules("sample", sample, project_modules()) == {"knowledge.app", "knowledge.corpora"}
