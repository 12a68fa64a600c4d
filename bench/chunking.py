"""Chunking time against input size for single-line inputs (no paragraph or line break), three shapes of text.

Linear chunking means seconds per MB stay flat as the input grows; the ratio column is seconds per MB against
the smallest input of the same shape, measured in this run. Timings on a shared machine vary by +-20%, so only
ratios far from 1 mean anything. Run: ``python -m bench.chunking [--sizes 250000 1000000 5000000]``.
"""
from __future__ import annotations

import argparse
import time
from typing import Callable

from bench.harness import git_commit, print_table
from knowledge.ingest.chunking import chunk_text

SHAPES: dict[str, Callable[[int], str]] = {
    "prose (60-char sentences)": lambda size: " ".join(
        f"Sentence {i} is about topic {i % 97} and more." for i in range(size // 44)),
    "one-word sentences": lambda size: "a. " * (size // 3),
    "Chinese clauses": lambda size: "这是一个句子。" * (size // 21),  # 3 bytes per character in UTF-8
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[250_000, 1_000_000, 5_000_000],
                        help="input sizes in UTF-8 bytes")
    args = parser.parse_args(argv)
    rows: list[list[object]] = []
    for shape, make in SHAPES.items():
        base: float | None = None
        for size in args.sizes:
            text = make(size)
            megabytes = len(text.encode("utf-8")) / 1_000_000
            started = time.perf_counter()
            chunks = chunk_text(text)
            seconds = time.perf_counter() - started
            per_mb = seconds / megabytes
            base = base or per_mb
            rows.append([shape, f"{megabytes:.2f}", len(chunks), seconds, per_mb, per_mb / base])
    print_table(f"Chunking a single line (commit {git_commit()})",
                ["text", "MB", "chunks", "seconds", "s per MB", "s per MB vs smallest"], rows)


if __name__ == "__main__":
    main()
