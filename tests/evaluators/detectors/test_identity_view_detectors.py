"""The detectors give the same findings on a table-free identity view as on the
explicit offset table, for every text of the proof corpus and the bench cases.

normalize() returns an identity view (no offset table) for plain ASCII, and
finalize() takes a shortcut on it; this runs each detector both ways.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluators.detectors import blocklist, injection, pii
from evaluators.detectors.blocklist import DEFAULT_BLOCKLIST
from evaluators.text import NormalizedText, normalize

ROOT = Path(__file__).resolve().parents[3]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


@functools.cache
def _texts() -> tuple[str, ...]:
    found: list[str] = []
    for path in sorted((ROOT / "proof" / "corpus").glob("**/*.json")):
        found += _strings(json.loads(path.read_text()))
    spec = importlib.util.spec_from_file_location(
        "_engine_bench", ROOT / "bench" / "engine_bench.py"
    )
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("_engine_bench", bench)
    spec.loader.exec_module(bench)
    found += [case.output for case in bench.make_cases(200)]
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
