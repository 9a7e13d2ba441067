"""Published accuracy figures the engine reads (uncertainty, risk, roster).

Source order: ``evaluators/data/proof.json`` (written by the harness from
this code on ``proof/corpus``), else the upstream snapshot of SPEC
Appendix B so a fresh checkout still has a prior to reason with.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from evaluators.stats import jeffreys_rates, ppv, r4, wilson

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "proof.json"
SEED_VERSION = "a1138e84e693"

# SPEC Appendix B: rule -> (tp, fp, fn, tn)
APPENDIX_B: dict[str, tuple[int, int, int, int]] = {
    "min_output_length": (13, 0, 0, 11),
    "non_empty_output": (12, 0, 2, 14),
    "sentence_count": (14, 0, 0, 10),
    "expected_coverage": (11, 0, 0, 13),
    "valid_tool_arguments": (15, 0, 0, 18),
    "ask_coverage": (11, 4, 2, 13),
    "tool_sequence": (28, 0, 0, 23),
    "says_something": (19, 2, 1, 20),
    "keyword_overlap": (11, 0, 0, 13),
    "topic_consistency": (11, 0, 1, 12),
    "tool_choice": (18, 0, 2, 26),
    "answers_the_ask": (20, 3, 0, 22),
    "no_pii": (44, 5, 5, 47),
    "no_blocklist_words": (15, 1, 0, 10),
    "no_injection_patterns": (44, 1, 1, 51),
    "no_stub_output": (32, 5, 12, 44),
    "no_hallucination_markers": (34, 0, 12, 44),
    "no_silent_tool_failure": (29, 0, 9, 36),
    "grounded_in_reads": (14, 0, 0, 16),
    "no_injection_compliance": (9, 0, 5, 17),
    "cost_under_threshold": (10, 0, 0, 14),
    "verbosity_ratio": (12, 0, 0, 12),
    "no_tool_loop": (18, 0, 0, 19),
    "max_steps": (12, 0, 0, 16),
    "cost_anomaly": (13, 0, 0, 14),
    "step_budget": (22, 0, 0, 24),
}
PREVALENCES = (0.01, 0.05, 0.2, 0.5)


@dataclass(frozen=True, slots=True)
class Counts:
    tp: int
    fp: int
    fn: int
    tn: int
    version: str
    release: str

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def rates(self) -> tuple[float, float]:
        return jeffreys_rates(self.tp, self.fp, self.fn, self.tn)


@lru_cache(maxsize=1)
def _load() -> dict[str, Any]:
    if DATA_FILE.exists():
        try:
            data: dict[str, Any] = json.loads(DATA_FILE.read_text(encoding="utf-8"))
            return data
        except (OSError, ValueError):
            pass
    return {}


def reload() -> None:
    _load.cache_clear()
    counts.cache_clear()


def source() -> object:
    """The loaded figures, as an identity token: a new object after
    ``reload``, so a cache built from ``counts`` can tell it is stale."""
    return _load()


def corpus_version() -> str:
    return str(_load().get("corpusVersion") or SEED_VERSION)


@lru_cache(maxsize=64)
def counts(rule: str) -> Counts | None:
    data = _load()
    for row in data.get("rules", []):
        if row.get("rule") == rule:
            return Counts(
                row["tp"],
                row["fp"],
                row["fn"],
                row["tn"],
                corpus_version(),
                str(data.get("release", "local")),
            )
    seed = APPENDIX_B.get(rule)
    if seed is None:
        return None
    return Counts(*seed, version=SEED_VERSION, release="upstream v0.19.0")


def roster_proof(spec: Any) -> dict[str, Any] | None:
    """Published precision/recall with intervals and PPV at prevalences; ``None``
    for conformance (own-definition) families."""
    if getattr(spec, "labels", "def") != "reader":
        return None
    c = counts(spec.name)
    if c is None:
        return None
    prec = c.tp / (c.tp + c.fp) if c.tp + c.fp else None
    rec = c.tp / (c.tp + c.fn) if c.tp + c.fn else None
    s, sp = c.rates
    return {
        "n": c.n,
        "precision": r4(prec) if prec is not None else None,
        "precisionInterval": [r4(x) for x in wilson(c.tp, c.tp + c.fp) or (0.0, 1.0)],
        "recall": r4(rec) if rec is not None else None,
        "recallInterval": [r4(x) for x in wilson(c.tp, c.tp + c.fn) or (0.0, 1.0)],
        "ppvAt": {f"{int(p * 100)}%": r4(ppv(s, sp, p)) for p in PREVALENCES},
        "corpusVersion": c.version,
    }
