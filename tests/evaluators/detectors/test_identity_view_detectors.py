"""The detectors give the same findings on a table-free identity view as on the
explicit offset table, for every text of the proof corpus and the bench cases.

normalize() returns an identity view (no offset table) for plain ASCII, and
finalize() takes a shortcut on it; this runs each detector both ways.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from evaluators.detectors import blocklist, injection, pii
from evaluators.detectors.blocklist import DEFAULT_BLOCKLIST
from evaluators.text import NormalizedText, normalize
from tests.support.texts import bench_cases, corpus_strings

ROOT = Path(__file__).resolve().parents[3]


@functools.cache
def _texts() -> tuple[str, ...]:
    found = [*corpus_strings(), *(case.output for case in bench_cases(200))]
    return tuple(dict.fromkeys(t for t in found if t.strip()))


def _explicit(raw: str) -> NormalizedText:
    n = normalize(raw)
    if n.is_identity:
        return NormalizedText(n.raw, n.text, tuple(range(len(raw) + 1)))
    return n


def _run_all(raw: str) -> tuple[object, ...]:
    return (
        pii.find_pii(raw),
        injection.find_injection(raw),
        blocklist.find_blocklist(raw, DEFAULT_BLOCKLIST),
    )


def test_identity_view_and_explicit_table_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts()
    assert len(texts) > 100
    assert any(normalize(t).is_identity for t in texts)
    fast = [_run_all(t) for t in texts]
    for mod in (pii, injection, blocklist):
        monkeypatch.setattr(mod, "normalized", _explicit)
    slow = [_run_all(t) for t in texts]
    assert fast == slow
