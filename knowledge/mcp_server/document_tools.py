"""The document tools: list, show and delete a library's documents, and delete a corpus (docs/design.md section 2,
"Documents change"). Reading needs the library in the caller's view; deleting needs the caller to own it (or be
the local operator), and passes the gateway's approval step like every tool that writes."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from knowledge.corpora import Corpus
from knowledge.db.queries.documents import DocumentRow
from knowledge.documents.lifecycle import DocumentLifecycle
from knowledge.gateway.errors import ForbiddenLibraryError, InvalidArgumentsError, NotFoundError
from knowledge.gateway.gateway import CallScope, GatewayTool

_LIBRARY = Field(min_length=1, description="Id of the library (one you can see).")
_CORPUS = Field(default=None, description="The corpus, when the library maps several.")


class DocumentListArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")

    library: str = _LIBRARY
    corpus: str | None = _CORPUS
    contains: str = Field(default="", max_length=500, description="Only source URIs containing this text.")
    limit: int = Field(default=100, ge=1, le=1000)


class DocumentShowArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")

    library: str = _LIBRARY
    corpus: str | None = _CORPUS
    source_uri: str = Field(min_length=1, max_length=2000, description="The document's source URI.")


class DocumentDeleteArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")

    library: str = _LIBRARY
    corpus: str | None = _CORPUS
    source_uris: list[str] = Field(min_length=1, max_length=1000, description="Source URIs of the documents.")


class CorpusDeleteArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")

    library: str = _LIBRARY
    corpus: str | None = _CORPUS
    confirm: str = Field(min_length=1, description="The corpus's name again, to confirm.")


def document_summary(document: DocumentRow) -> dict[str, Any]:
    return {"corpus_id": str(document.corpus_id), "source_uri": document.source_uri, "title": document.title,
            "chunks": document.chunk_count, "complete": document.complete,
            "updated_at": document.updated_at.isoformat()}


def target_corpus(scope: CallScope, name: str | None) -> Corpus:
    [library] = scope.requested_libraries
    corpora = scope.view.corpora_of(library.id)
    if name is not None:
        corpora = tuple(c for c in corpora if name.strip().casefold() in (c.name.casefold(), c.label.casefold()))
    if not corpora:
        raise InvalidArgumentsError(f"library {library.id!r} has no corpus" + (f" {name!r}" if name else ""))
    if len(corpora) > 1:
        raise InvalidArgumentsError(f"library {library.id!r} maps several corpora "
                                    f"({', '.join(c.name for c in corpora)}); name one with 'corpus'")
    return corpora[0]


def _changeable(scope: CallScope, name: str | None) -> Corpus:
    corpus = target_corpus(scope, name)
    if not scope.view.may_change(corpus.id):
        [library] = scope.requested_libraries
        raise ForbiddenLibraryError(f"{scope.caller.person_id} does not own library {library.id!r}: only its owner "
                                    "deletes its documents (propose changes as a knowledge card)",
                                    libraries=[library.id])
    return corpus


def document_tools(documents: DocumentLifecycle) -> list[GatewayTool]:
    async def document_list(scope: CallScope, args: DocumentListArguments) -> dict[str, Any]:
        corpus = target_corpus(scope, args.corpus)
        found = await documents.list(corpus, args.contains, args.limit)
        return {"corpus": corpus.name, "items": [document_summary(d) for d in found]}

    async def document_show(scope: CallScope, args: DocumentShowArguments) -> dict[str, Any]:
        corpus = target_corpus(scope, args.corpus)
        view = await documents.show(corpus, args.source_uri)
        if view is None:
            raise NotFoundError(f"no document {args.source_uri!r} in {corpus.name}")
        return {"document": document_summary(view.document),
                "items": [{"corpus_id": str(corpus.id), "chunk_id": c["id"], "content": c["content"]}
                          for c in view.chunks]}

    async def document_delete(scope: CallScope, args: DocumentDeleteArguments) -> dict[str, Any]:
        corpus = _changeable(scope, args.corpus)
        removal = await documents.delete(corpus, args.source_uris)
        return {"corpus": corpus.name, "deleted": removal.documents, "not_found": removal.missing,
                "chunks_removed": removal.chunks, "entities_removed": removal.entities,
                "relations_removed": removal.relations}

    async def corpus_delete(scope: CallScope, args: CorpusDeleteArguments) -> dict[str, Any]:
        corpus = _changeable(scope, args.corpus)
        if args.confirm.strip() != corpus.name:
            raise InvalidArgumentsError(f"confirm must be the corpus's name, {corpus.name!r}")
        return {"corpus": corpus.name, "deleted": True, "chunks_removed": await documents.delete_corpus(corpus)}

    return [
        GatewayTool(name="document_list", description="List a library's documents (source URI, title, chunks).",
                    arguments=DocumentListArguments, handler=document_list, libraries_field="library"),
        GatewayTool(name="document_show", description="One document of a library with its chunks.",
                    arguments=DocumentShowArguments, handler=document_show, libraries_field="library"),
        GatewayTool(name="document_delete",
                    description=("Delete documents of a library you own, with their chunks and what the knowledge "
                                 "graph learnt only from them. Needs a reviewer's approval first."),
                    arguments=DocumentDeleteArguments, handler=document_delete, writes=True,
                    destructive=True, libraries_field="library"),
        GatewayTool(name="corpus_delete",
                    description=("Delete a corpus of a library you own with everything in it. Needs a reviewer's "
                                 "approval first."),
                    arguments=CorpusDeleteArguments, handler=corpus_delete, writes=True, destructive=True,
                    libraries_field="library"),
    ]
