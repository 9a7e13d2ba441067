"""The seven evasion rewrites, as the proof harness defines them, for the
corpus and property tests (one definition: ``evaluators.proof.transforms``)."""

from __future__ import annotations

from collections.abc import Callable

from evaluators.proof.transforms import TRANSFORMS

DISGUISES: dict[str, Callable[[str], str]] = TRANSFORMS


def rewrite_spans(text: str, spans: list[tuple[int, int]], fn: Callable[[str], str]) -> str:
    """Apply ``fn`` inside every span (spans must not overlap)."""
    out = text
    for s, e in sorted(spans, reverse=True):
        out = out[:s] + fn(out[s:e]) + out[e:]
    return out
