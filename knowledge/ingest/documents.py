"""Load files into documents: .txt, .md, .json / .jsonl records, .pdf (text layer)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

SUPPORTED_SUFFIXES = (".txt", ".md", ".markdown", ".json", ".jsonl", ".pdf")
_TEXT_FIELDS = ("text", "content", "body", "abstract", "paragraph_text")
_METADATA_FIELDS = ("title", "authors", "year", "venue", "url", "source_uri")


@dataclass
class Document:
    source_uri: str
    text: str
    title: str = ""
    metadata: dict = field(default_factory=dict)


@dataclass(frozen=True)
class LoadError:
    source_uri: str
    message: str


class DocumentLoadError(ValueError):
    pass


def _title_from_markdown(text: str, fallback: str) -> str:
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            return stripped.lstrip("#").strip() or fallback
        if stripped:
            break
    return fallback


def _record_to_document(record: object, uri: str, index: int) -> Document:
    if isinstance(record, str):
        return Document(source_uri=f"{uri}#{index}", text=record, title=f"{Path(uri).stem} #{index}")
    if not isinstance(record, dict):
        raise DocumentLoadError(f"record {index} is a {type(record).__name__}, expected an object or a string")
    text = next((record[f] for f in _TEXT_FIELDS if isinstance(record.get(f), str) and record[f].strip()), None)
    if text is None:
        raise DocumentLoadError(f"record {index} has no text field (one of {', '.join(_TEXT_FIELDS)})")
    metadata = {k: record[k] for k in _METADATA_FIELDS if k in record}
    extra = record.get("metadata")
    if isinstance(extra, dict):
        metadata.update(extra)
    title = str(record.get("title") or f"{Path(uri).stem} #{index}")
    source = str(record.get("source_uri") or f"{uri}#{title}")
    return Document(source_uri=source, text=text, title=title, metadata=metadata)


def _load_json(path: Path, uri: str) -> list[Document]:
    raw = path.read_text(encoding="utf-8")
    try:
        if path.suffix == ".jsonl":
            records = [json.loads(line) for line in raw.splitlines() if line.strip()]
        else:
            data = json.loads(raw)
            records = data if isinstance(data, list) else [data]
    except json.JSONDecodeError as exc:
        raise DocumentLoadError(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from exc
    return [_record_to_document(r, uri, i) for i, r in enumerate(records)]


def _load_pdf(path: Path, uri: str) -> list[Document]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path))
        pages = [page.extract_text() or "" for page in reader.pages]
        title = (reader.metadata.title if reader.metadata and reader.metadata.title else "") or path.stem
    except (PdfReadError, ValueError, KeyError, OSError) as exc:
        raise DocumentLoadError(f"unreadable PDF: {exc}") from exc
    text = "\n\n".join(p.strip() for p in pages if p.strip())
    if not text:
        raise DocumentLoadError("the PDF has no text layer (scanned pages are not supported)")
    return [Document(source_uri=uri, text=text, title=title, metadata={"title": title, "pages": len(pages)})]


def load_file(path: Path, base: Path | None = None) -> list[Document]:
    """Documents in one file; raises DocumentLoadError with a clear reason."""
    uri = str(path.relative_to(base)) if base and path.is_relative_to(base) else str(path)
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise DocumentLoadError(f"unsupported file type {suffix or '(none)'}; supported: {', '.join(SUPPORTED_SUFFIXES)}")
    if suffix == ".pdf":
        return _load_pdf(path, uri)
    try:
        if suffix in (".json", ".jsonl"):
            return _load_json(path, uri)
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DocumentLoadError(f"not UTF-8 text: {exc.reason} at byte {exc.start}") from exc
    if not text.strip():
        raise DocumentLoadError("the file is empty")
    title = _title_from_markdown(text, path.stem) if suffix in (".md", ".markdown") else path.stem
    return [Document(source_uri=uri, text=text, title=title, metadata={"title": title})]


def iter_files(path: Path) -> Iterator[Path]:
    if path.is_file():
        yield path
    elif path.is_dir():
        yield from sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
    else:
        raise FileNotFoundError(f"no such file or folder: {path}")


def load_path(path: Path) -> tuple[list[Document], list[LoadError]]:
    """All documents under a file or folder; per-file errors are collected, not raised."""
    base = path if path.is_dir() else path.parent
    documents: list[Document] = []
    errors: list[LoadError] = []
    for file in iter_files(path):
        try:
            documents.extend(load_file(file, base))
        except (DocumentLoadError, OSError) as exc:
            errors.append(LoadError(str(file), str(exc)))
    return documents, errors


def documents_from_texts(texts: Iterable[tuple[str, str]]) -> list[Document]:
    """(source_uri, text) pairs as documents, for text that did not come from a file."""
    return [Document(source_uri=uri, text=text, title=uri) for uri, text in texts]
