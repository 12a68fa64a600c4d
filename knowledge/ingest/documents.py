"""Load files into documents: .txt, .md, .json / .jsonl records, .pdf (text layer).

A file over the size limit, of an unsupported type or unreadable is one LoadError; a bad .jsonl line or JSON
record skips only that record (a LoadError naming its line or index). Text that is not UTF-8 is decoded with
the encoding charset-normalizer detects, and a notice says which. In a folder, a link is read only when it points
at a file inside the folder; the others (outside, loops, broken) are LoadErrors naming the link.
"""
from __future__ import annotations

import errno
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from knowledge.ingest.decoding import UndecodableTextError, decode_text
from knowledge.ingest.progress import BIG_TEXT, ProgressMode, progress_bar

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


@dataclass(frozen=True)
class LoadNotice:
    """Something a person should know about a file that landed (the encoding used, characters removed)."""

    source_uri: str
    message: str


@dataclass
class LoadedFile:
    documents: list[Document] = field(default_factory=list)
    errors: list[LoadError] = field(default_factory=list)  # records skipped; the rest of the file landed
    notices: list[LoadNotice] = field(default_factory=list)


@dataclass
class LoadedPath(LoadedFile):
    files: int = 0
    unreadable: list[str] = field(default_factory=list)  # source URIs of the files that could not be read at all


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
        raise DocumentLoadError(f"a {type(record).__name__}, expected an object or a string")
    text = next((record[f] for f in _TEXT_FIELDS if isinstance(record.get(f), str) and record[f].strip()), None)
    if text is None:
        raise DocumentLoadError(f"no text field (one of {', '.join(_TEXT_FIELDS)})")
    metadata = {k: record[k] for k in _METADATA_FIELDS if k in record}
    extra = record.get("metadata")
    if isinstance(extra, dict):
        metadata.update(extra)
    title = str(record.get("title") or f"{Path(uri).stem} #{index}")
    source = str(record.get("source_uri") or f"{uri}#{title}")
    return Document(source_uri=source, text=text, title=title, metadata=metadata)


def _parse_records(raw: str, path: Path, loaded: LoadedFile) -> list[tuple[str, object]]:
    """(where, record) pairs, where = "record N" or "line N"; a .jsonl line that is not JSON becomes a LoadError
    naming its line, and the other lines still load."""
    if path.suffix.lower() != ".jsonl":
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise DocumentLoadError(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from exc
        except RecursionError as exc:
            raise DocumentLoadError("JSON nested too deeply to read") from exc
        return [(f"record {i}", r) for i, r in enumerate(data if isinstance(data, list) else [data])]
    records: list[tuple[str, object]] = []
    for number, line in enumerate(raw.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            records.append((f"line {number}", json.loads(line)))
        except json.JSONDecodeError as exc:
            loaded.errors.append(LoadError(str(path), f"line {number} skipped: invalid JSON at column {exc.colno}: "
                                                      f"{exc.msg}"))
        except RecursionError:
            loaded.errors.append(LoadError(str(path), f"line {number} skipped: JSON nested too deeply to read"))
    return records


def _load_json(path: Path, uri: str, raw: str) -> LoadedFile:
    loaded = LoadedFile()
    for index, (where, record) in enumerate(_parse_records(raw, path, loaded)):
        try:
            loaded.documents.append(_record_to_document(record, uri, index))
        except DocumentLoadError as exc:
            loaded.errors.append(LoadError(str(path), f"{where} skipped: {exc}"))
    if not loaded.documents and not loaded.errors:
        raise DocumentLoadError("the file holds no records")
    return loaded


def _load_pdf(path: Path, uri: str) -> list[Document]:
    from pypdf import PdfReader

    try:
        reader = PdfReader(str(path))
        pages = [page.extract_text() or "" for page in reader.pages]
        title = (reader.metadata.title if reader.metadata and reader.metadata.title else "") or path.stem
    except Exception as exc:  # noqa: BLE001 - a malformed PDF raises anything inside pypdf (TypeError, limits ...)
        raise DocumentLoadError(f"unreadable PDF: {type(exc).__name__}: {exc}") from exc
    text = "\n\n".join(p.strip() for p in pages if p.strip())
    if not text:
        raise DocumentLoadError("the PDF has no text layer (scanned pages are not supported)")
    return [Document(source_uri=uri, text=text, title=title, metadata={"title": title, "pages": len(pages)})]


def _check_size(path: Path, max_bytes: int | None) -> None:
    size = path.stat().st_size
    if max_bytes is not None and size > max_bytes:
        raise DocumentLoadError(f"{_readable_size(size)} is over the per-file limit of "
                                f"{_readable_size(max_bytes)} (raise NE_CHUNKING__MAX_FILE_BYTES to ingest it)")


def _readable_size(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB" if size >= 100_000 else f"{size:,} bytes"


def load_file(path: Path, base: Path | None = None, max_bytes: int | None = None) -> LoadedFile:
    """Documents in one file; raises DocumentLoadError with a clear reason when none of it can land."""
    uri = str(path.relative_to(base)) if base and path.is_relative_to(base) else str(path)
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise DocumentLoadError(f"unsupported file type {suffix or '(none)'}; "
                                f"supported: {', '.join(SUPPORTED_SUFFIXES)}")
    _check_size(path, max_bytes)
    if suffix == ".pdf":
        return LoadedFile(documents=_load_pdf(path, uri))
    try:
        decoded = decode_text(path.read_bytes())
    except UndecodableTextError as exc:
        raise DocumentLoadError(str(exc)) from exc
    notices = [LoadNotice(str(path), decoded.notice)] if decoded.notice else []
    if suffix in (".json", ".jsonl"):
        loaded = _load_json(path, uri, decoded.text)
        loaded.notices[:0] = notices
        return loaded
    text = decoded.text
    if not text.strip():
        raise DocumentLoadError("the file is empty")
    title = _title_from_markdown(text, path.stem) if suffix in (".md", ".markdown") else path.stem
    return LoadedFile([Document(source_uri=uri, text=text, title=title, metadata={"title": title})], [], notices)


def iter_files(path: Path) -> Iterator[Path]:
    yield from list_files(path)[0]


def list_files(path: Path) -> tuple[list[Path], list[LoadError]]:
    """The files to read under a file or folder, and the links in the folder that are skipped with why.

    A link is followed only to a file inside the folder: one pointing outside could hand a folder's ingest any
    file the user can read. Links to folders are never descended into (their files inside are read where they
    are); one that loops (points at itself or at a folder containing it) is named, as is a broken link."""
    if path.is_file():
        return [path], []
    if not path.is_dir():
        raise FileNotFoundError(f"no such file or folder: {path}")
    root = path.resolve()
    files: list[Path] = []
    skipped: list[LoadError] = []
    for entry in sorted(p for p in path.rglob("*") if not p.name.startswith(".")):
        if not entry.is_symlink():
            if entry.is_file():
                files.append(entry)
            continue
        reason = _skipped_link(entry, root)
        if reason:
            skipped.append(LoadError(str(entry), reason))
        elif entry.is_file():
            files.append(entry)
    return files, skipped


def _skipped_link(link: Path, root: Path) -> str | None:
    """Why a link in the folder is not read, or None for a link to a file (or folder) inside it."""
    try:
        target = link.resolve(strict=True)
    except RuntimeError:  # Python 3.11 raises it for a symlink loop
        return "link loop"
    except OSError as exc:
        return "link loop" if exc.errno == errno.ELOOP else "link target does not exist"
    if not target.is_relative_to(root):
        return "link points outside the folder"
    if target.is_dir() and link.parent.resolve().is_relative_to(target):
        return "link loop (points at a folder that contains it)"
    return None


def load_path(path: Path, max_bytes: int | None = None,
              progress: ProgressMode = ProgressMode.never) -> LoadedPath:
    """All documents under a file or folder; per-file and per-record errors are collected, not raised."""
    base = path if path.is_dir() else path.parent
    files, skipped = list_files(path)
    result = LoadedPath(errors=skipped, files=len(files) + len(skipped))
    sizes = [_size(file) for file in files]
    with progress_bar(progress, sum(sizes), "reading", "B", min_total=0 if len(files) >= 2 else BIG_TEXT,
                      unit_scale=True) as bar:
        for file, size in zip(files, sizes):
            bar.set_postfix_str(file.name[-40:])
            try:
                loaded = load_file(file, base, max_bytes)
            except (DocumentLoadError, OSError) as exc:
                result.errors.append(LoadError(str(file), str(exc)))
                result.unreadable.append(str(file.relative_to(base)) if file.is_relative_to(base) else str(file))
            else:
                result.documents.extend(loaded.documents)
                result.errors.extend(loaded.errors)
                result.notices.extend(loaded.notices)
            bar.update(size)
    return result


def _size(file: Path) -> int:
    try:
        return file.stat().st_size
    except OSError:  # reading it names the error
        return 0


def documents_from_texts(texts: Iterable[tuple[str, str]]) -> list[Document]:
    """(source_uri, text) pairs as documents, for text that did not come from a file."""
    return [Document(source_uri=uri, text=text, title=uri) for uri, text in texts]
