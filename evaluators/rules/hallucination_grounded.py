"""Grounded fabrication signals: output claims absent from or contradicted by the input."""

from __future__ import annotations


def signals(output: str, source: str) -> list[tuple[str, int, int, str]]:
    return []
