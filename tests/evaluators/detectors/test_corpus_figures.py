"""Precision/recall/F1 of the three text detectors on the labelled corpus, and
recall under the seven disguises.

Predicted positive = at least one finding of the rule's category. Floors are
the original product's published F1; recall under every disguise must equal
clean recall. Run ``python -m tests.evaluators.detectors.test_corpus_figures``
to print the full table.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from evaluators.detectors import Finding, find_blocklist, find_injection, find_pii
from evaluators.detectors.blocklist import DEFAULT_BLOCKLIST
from evaluators.detectors.pii import entity_of
from tests.evaluators.detectors.disguises import DISGUISES, rewrite_spans


def _corpus_dir() -> Path:
    env = os.environ.get("IRIS_SHARED_DIR")
    base = Path(env) if env else Path(__file__).parents[3].parent / "shared"
    return base / "corpus"


CORPUS = _corpus_dir()
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not available")


def _context(case: dict[str, Any]) -> dict[str, Any]:
    ctx = case.get("context") or {}
    if isinstance(ctx, str):
        ctx = json.loads(ctx)
    return ctx if isinstance(ctx, dict) else {}


def _pii(case: dict[str, Any], text: str) -> list[Finding]:
    return [f for f in find_pii(text) if f.category in ("pii", "credential")]


def _injection(case: dict[str, Any], text: str) -> list[Finding]:
    return find_injection(text)


def _blocklist(case: dict[str, Any], text: str) -> list[Finding]:
    custom = (_context(case).get("customConfig") or {}).get("blocklist")
    phrases = tuple(custom) if isinstance(custom, list) else DEFAULT_BLOCKLIST
    return find_blocklist(text, phrases)


@dataclass
class Figures:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    false_ids: list[str] = field(default_factory=list)
    disguise: dict[str, tuple[int, int]] = field(default_factory=dict)
    entities: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        d = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / d if d else 1.0


RULES: dict[str, tuple[str, Callable[[dict[str, Any], str], list[Finding]], float]] = {
    "no_pii": ("pii.json", _pii, 0.8889),
    "no_injection_patterns": ("injection.json", _injection, 0.988),
    "no_blocklist_words": ("no_blocklist_words.json", _blocklist, 0.9333),
}


def compute(rule: str) -> Figures:
    fname, detect, _ = RULES[rule]
    data = json.loads((CORPUS / fname).read_text(encoding="utf-8"))
    fig = Figures()
    seen = {name: [0, 0] for name in DISGUISES}
    ents: dict[str, list[int]] = {}
    for case in data["cases"]:
        text = case["output"]
        found = detect(case, text)
        positive = case["label"] == "positive"
        if positive:
            for ent in case.get("entities") or []:
                named = {entity_of(f.kind) for f in found}
                ents.setdefault(ent, [0, 0])
                ents[ent][1] += 1
                ents[ent][0] += ent in named
        if found and positive:
            fig.tp += 1
        elif found:
            fig.fp += 1
            fig.false_ids.append(f"FP {case['id']}")
        elif positive:
            fig.fn += 1
            fig.false_ids.append(f"FN {case['id']}")
        else:
            fig.tn += 1
        if found and positive:
            spans = [(f.start, f.end) for f in found]
            for name, fn in DISGUISES.items():
                changed = rewrite_spans(text, spans, fn)
                if changed == text:
                    continue
                seen[name][1] += 1
                seen[name][0] += bool(detect(case, changed))
    fig.disguise = {k: (v[0], v[1]) for k, v in seen.items()}
    fig.entities = {k: (v[0], v[1]) for k, v in ents.items()}
    return fig


@pytest.mark.parametrize("rule", list(RULES))
def test_f1_beats_published_floor(rule: str) -> None:
    fig = compute(rule)
    floor = RULES[rule][2]
    assert fig.f1 >= floor, (rule, fig.f1, fig.false_ids)


@pytest.mark.parametrize("rule", list(RULES))
def test_disguises_do_not_lower_recall(rule: str) -> None:
    fig = compute(rule)
    for name, (caught, rewritten) in fig.disguise.items():
        assert caught == rewritten, (rule, name, caught, rewritten)


def main() -> None:
    for rule in RULES:
        fig = compute(rule)
        print(
            f"{rule}: TP={fig.tp} FP={fig.fp} FN={fig.fn} TN={fig.tn} "
            f"P={fig.precision:.4f} R={fig.recall:.4f} F1={fig.f1:.4f} {fig.false_ids}"
        )
        for name, (c, n) in fig.disguise.items():
            print(f"    {name:<10} {c}/{n}")
        for ent, (c, n) in sorted(fig.entities.items()):
            print(f"    entity {ent:<12} {c}/{n}")


if __name__ == "__main__":
    main()
