"""Paired comparison of two retrieval methods on the same questions: win / loss / tie counts and a bootstrap
95% interval of the mean difference, so a +2 on 50 questions is not read as progress."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

BOOTSTRAP_SAMPLES = 10_000
BOOTSTRAP_SEED = 14


@dataclass(frozen=True)
class PairedComparison:
    wins: int
    losses: int
    ties: int
    mean_difference: float
    ci_low: float
    ci_high: float

    @property
    def significant(self) -> bool:
        """The 95% interval excludes zero."""
        return self.ci_low > 0 or self.ci_high < 0

    def to_dict(self) -> dict[str, float | int]:
        return {"wins": self.wins, "losses": self.losses, "ties": self.ties, "mean_difference": self.mean_difference,
                "ci95": [self.ci_low, self.ci_high]}


def paired_comparison(method: Sequence[float], baseline: Sequence[float], *, samples: int = BOOTSTRAP_SAMPLES,
                      seed: int = BOOTSTRAP_SEED) -> PairedComparison:
    """Per-question scores of ``method`` against ``baseline`` (same questions, same order)."""
    if len(method) != len(baseline):
        raise ValueError(f"paired scores need the same questions: {len(method)} vs {len(baseline)}")
    difference = np.asarray(method, dtype=np.float64) - np.asarray(baseline, dtype=np.float64)
    if difference.size == 0:
        return PairedComparison(0, 0, 0, float("nan"), float("nan"), float("nan"))
    tolerance = 1e-9
    resampled = np.random.default_rng(seed).choice(difference, size=(samples, difference.size)).mean(axis=1)
    low, high = np.percentile(resampled, [2.5, 97.5])
    return PairedComparison(wins=int((difference > tolerance).sum()), losses=int((difference < -tolerance).sum()),
                            ties=int((np.abs(difference) <= tolerance).sum()), mean_difference=float(difference.mean()),
                            ci_low=float(low), ci_high=float(high))
