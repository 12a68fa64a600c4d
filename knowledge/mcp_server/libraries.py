"""Library resources: the context libraries a caller may see, each readable as ``library://<id>``."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from knowledge.context.topology import ContextLibrary
from knowledge.gateway.errors import ForbiddenLibraryError, NotFoundError
from knowledge.gateway.gateway import CallScope, GatewayTool

LIBRARY_URI_PREFIX = "library://"


class NoArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LibraryUri(BaseModel):
    model_config = ConfigDict(extra="forbid")

    uri: str = Field(min_length=1)


def library_summary(library: ContextLibrary) -> dict[str, Any]:
    return {"id": library.id, "name": library.name, "title": library.name, "description": library.description,
            "scope": {"kind": library.scope.kind.value, "ref": library.scope.ref}, "owner": library.owner}


def library_detail(library: ContextLibrary, scope: CallScope) -> dict[str, Any]:
    topology = scope.view.topology
    owner = topology.person(library.owner)
    return {
        **library_summary(library),
        "owner_name": owner.name if owner else library.owner,
        "reviewers": list(library.reviewers),
        "sources": list(library.sources),
        "visibility": library.visibility.value,
        "task_kinds": list(library.task_kinds),
        "corpora": [{"name": c.name, "label": c.label, "description": c.description}
                    for c in scope.view.corpora_of(library.id)],
    }


def library_list_tool() -> GatewayTool:
    async def list_libraries(scope: CallScope, args: NoArguments) -> dict[str, Any]:
        return {"items": [library_summary(library) for library in scope.libraries]}

    return GatewayTool(name="resources/list", description="The context libraries the caller may see.",
                       arguments=NoArguments, handler=list_libraries)


def library_read_tool() -> GatewayTool:
    async def read_library(scope: CallScope, args: LibraryUri) -> dict[str, Any]:
        if not args.uri.startswith(LIBRARY_URI_PREFIX) or len(args.uri) == len(LIBRARY_URI_PREFIX):
            raise NotFoundError(f"no resource {args.uri!r}; library resources look like {LIBRARY_URI_PREFIX}<id>")
        key = args.uri[len(LIBRARY_URI_PREFIX):].strip().casefold()
        library = next((lib for lib in scope.libraries if key in (lib.id.casefold(), lib.name.casefold())), None)
        if library is None:
            raise ForbiddenLibraryError(f"library {key!r} is not in {scope.caller.person_id}'s permission view; "
                                        f"libraries you can use: {', '.join(lib.id for lib in scope.libraries)}")
        return library_detail(library, scope)

    return GatewayTool(name="resources/read", description="One context library the caller may see.",
                       arguments=LibraryUri, handler=read_library)
