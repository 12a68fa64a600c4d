"""Offline entity extraction against the silver reference of MuSiQue (LLM-extracted entities and triples).

Run: ``negentropy bench extraction`` or ``python -m bench.extraction [--reference FILE] [--limit-passages N]
[--errors N]``. The offline extractor reads each passage's text (what the reference was extracted from); names
are matched with :func:`bench.extraction_reference.match_key` (case, punctuation, spacing, a leading article
and a possessive ignored). Reported, micro-averaged over all passages:

* entity precision: extracted names that are a reference entity of the same passage / all extracted names;
* entity recall: reference entities found / reference entities, without the dates and bare numbers the offline
  extractor never makes entities (recall over all reference entities in its own column);
* relation precision / recall: the extractor's typed relations (and, apart, all of its relations including
  sentence co-occurrence) whose two ends are the two ends of a reference triple, in either direction
  (the predicate vocabularies differ, so only the pair is compared); recall over reference triples whose two
  ends are both reference entities.

Every run also scores two halves of the passages, split by a stable hash of the passage title
(:func:`passage_half`): "tune" and "held-out". Rules are chosen looking only at the errors of the tune half
(``--errors`` lists that half unless ``--errors-half`` says otherwise); the held-out half shows whether they
carry over to passages nobody looked at.

Results go to ``bench/results/extraction-<reference file stem>.json``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from bench.extraction_reference import ReferencePassage, is_date_or_number, load_reference, match_key
from bench.harness import console, git_commit, print_table
from bench.multihop_data import MissingDataError, corpus_index
from knowledge.graph.extraction import DEFAULT_OFFLINE_EXTRACTOR, Extractor
from knowledge.graph.extraction.types import Extraction

REPO_ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = REPO_ROOT / "bench" / "results"
HALVES = ("tune", "held-out")


def passage_half(title: str) -> str:
    """The half a passage belongs to: a hash of its title, the same on every machine and run."""
    return HALVES[corpus_index(title, len(HALVES))]


@dataclass
class Counts:
    extracted: int = 0
    correct: int = 0
    reference: int = 0
    found: int = 0

    @property
    def precision(self) -> float:
        return self.correct / self.extracted if self.extracted else float("nan")

    @property
    def recall(self) -> float:
        return self.found / self.reference if self.reference else float("nan")

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_dict(self) -> dict[str, float]:
        return {"extracted": self.extracted, "correct": self.correct, "reference": self.reference,
                "found": self.found, "precision": self.precision, "recall": self.recall, "f1": self.f1}


@dataclass
class ExtractionScores:
    passages: int = 0
    entities: Counts = field(default_factory=Counts)
    entities_all_reference: Counts = field(default_factory=Counts)
    typed_relations: Counts = field(default_factory=Counts)
    all_relations: Counts = field(default_factory=Counts)
    by_type: dict[str, Counts] = field(default_factory=dict)
    false_positives: Counter = field(default_factory=Counter)
    misses: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    halves: dict[str, "ExtractionScores"] = field(default_factory=dict)

    def add(self, passage: ReferencePassage, extraction: Extraction, seconds: float) -> None:
        self.seconds += seconds
        self.passages += 1
        reference_all = {match_key(e) for e in passage.entities} - {""}
        reference = {match_key(e) for e in passage.entities if not is_date_or_number(e)} - {""}
        extracted: dict[str, str] = {}
        for entity in extraction.entities:
            extracted.setdefault(match_key(entity.name), entity.type)
        extracted.pop("", None)
        for key, etype in extracted.items():
            hit = key in reference_all
            typed = self.by_type.setdefault(etype, Counts())
            typed.extracted += 1
            typed.correct += hit
            if not hit:
                self.false_positives[f"{key} ({etype})"] += 1
        for counts, ref in ((self.entities, reference), (self.entities_all_reference, reference_all)):
            counts.extracted += len(extracted)
            counts.correct += len(extracted.keys() & reference_all)
            counts.reference += len(ref)
            counts.found += len(extracted.keys() & ref)
        self.misses.update(sorted(reference - extracted.keys()))
        reference_pairs = {frozenset((match_key(s), match_key(o))) for s, _, o in passage.triples
                           if match_key(s) in reference_all and match_key(o) in reference_all
                           and match_key(s) != match_key(o)}
        for counts, typed_only in ((self.typed_relations, True), (self.all_relations, False)):
            pairs = {frozenset((match_key(r.source), match_key(r.target))) for r in extraction.relations
                     if not typed_only or r.type != "CO_OCCURS"}
            counts.extracted += len(pairs)
            counts.correct += len(pairs & reference_pairs)
            counts.reference += len(reference_pairs)
            counts.found += len(pairs & reference_pairs)


def score(passages: Sequence[ReferencePassage], extractor: Extractor = DEFAULT_OFFLINE_EXTRACTOR) -> ExtractionScores:
    """Scores over all passages, with the two halves of :func:`passage_half` in ``halves``."""
    scores = ExtractionScores(halves={half: ExtractionScores() for half in HALVES})
    for passage in passages:
        started = time.perf_counter()
        extraction = extractor.extract(passage.text)
        seconds = time.perf_counter() - started
        scores.add(passage, extraction, seconds)
        scores.halves[passage_half(passage.title)].add(passage, extraction, seconds)
    return scores


def print_scores(scores: ExtractionScores, errors: int = 0, errors_half: str = HALVES[0]) -> None:
    rows = [[name, c.extracted, c.correct, c.reference, c.found, c.precision, c.recall, c.f1]
            for name, c in (("entities (reference without dates/numbers)", scores.entities),
                            ("entities (all reference entities)", scores.entities_all_reference),
                            ("typed relations (pairs)", scores.typed_relations),
                            ("all relations incl. CO_OCCURS (pairs)", scores.all_relations))]
    print_table(f"Offline extractor vs the silver reference, {scores.passages} passages "
                f"({1000 * scores.seconds / max(scores.passages, 1):.1f} ms/passage)",
                ["", "extracted", "correct", "reference", "found", "precision", "recall", "F1"], rows)
    print_table("Entity precision by extracted type", ["type", "extracted", "correct", "precision"],
                [[t, c.extracted, c.correct, c.precision]
                 for t, c in sorted(scores.by_type.items(), key=lambda kv: -kv[1].extracted)])
    print_table("Entities by half of the passages (split by a hash of the title; rules tuned on 'tune' only)",
                ["half", "passages", "extracted", "correct", "reference", "found", "precision", "recall", "F1"],
                [[half, h.passages, h.entities.extracted, h.entities.correct, h.entities.reference,
                  h.entities.found, h.entities.precision, h.entities.recall, h.entities.f1]
                 for half, h in scores.halves.items()])
    if errors:
        shown = scores.halves.get(errors_half, scores)
        label = errors_half if errors_half in scores.halves else "all passages"
        print_table(f"Most frequent false positives, {label} (top {errors})", ["extracted name (type)", "passages"],
                    shown.false_positives.most_common(errors))
        print_table(f"Most frequent misses, {label} (top {errors})", ["reference name", "passages"],
                    shown.misses.most_common(errors))


def to_dict(scores: ExtractionScores) -> dict:
    return {"passages": scores.passages, "ms_per_passage": 1000 * scores.seconds / max(scores.passages, 1),
            "entities": scores.entities.to_dict(), "entities_all_reference": scores.entities_all_reference.to_dict(),
            "typed_relations": scores.typed_relations.to_dict(), "all_relations": scores.all_relations.to_dict(),
            "by_type": {t: c.to_dict() for t, c in scores.by_type.items()},
            "halves": {half: {"passages": h.passages, "entities": h.entities.to_dict(),
                              "entities_all_reference": h.entities_all_reference.to_dict()}
                       for half, h in scores.halves.items()}}


def main(argv: Sequence[str] | None = None) -> ExtractionScores:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reference", type=Path, default=None,
                        help="reference file, a JSON list of {title, text, entities, triples} "
                             "(default: ../shared/data/musique/reference_openie_gpt35.json)")
    parser.add_argument("--limit-passages", type=int, default=None)
    parser.add_argument("--errors", type=int, default=0, help="print the N most frequent false positives and misses")
    parser.add_argument("--errors-half", choices=[*HALVES, "all"], default=HALVES[0],
                        help="whose errors --errors lists (default: the tune half; leave the held-out half unseen)")
    parser.add_argument("--no-write", action="store_true", help="do not write bench/results/extraction-*.json")
    args = parser.parse_args(argv)
    try:
        passages = load_reference(args.reference)
    except MissingDataError as exc:
        console.print(f"[red]bench extraction:[/red] {exc}")
        sys.exit(2)
    if args.limit_passages:
        passages = passages[:args.limit_passages]
    scores = score(passages)
    print_scores(scores, args.errors, args.errors_half)
    if not args.no_write:
        stem = (args.reference or Path("reference_openie_gpt35")).stem
        out = RESULTS_DIR / f"extraction-{stem}{f'-first{args.limit_passages}' if args.limit_passages else ''}.json"
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"commit": git_commit(), **to_dict(scores)}, indent=2), encoding="utf-8")
        console.print(f"wrote {out}")
    return scores


if __name__ == "__main__":
    main()
