"""Real texts for the equivalence tests of the engine's C kernels.

Each kernel is checked against its pure-Python reference on every string of
the proof corpus and on the engine benchmark's cases; this module is the one
place that reads them (once per test session).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaluators.request import EvaluationRequest

ROOT = Path(__file__).resolve().parents[2]


def strings(value: Any, *, keys: bool = False) -> Iterator[str]:
    """Every string in a JSON-like value (object keys too when ``keys``)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            if keys:
                yield str(k)
            yield from strings(v, keys=keys)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from strings(v, keys=keys)


@functools.cache
def corpus_strings(*, keys: bool = False) -> tuple[str, ...]:
    """Every string of every proof-corpus file, in file order."""
    found: list[str] = []
    for path in sorted((ROOT / "proof" / "corpus").glob("**/*.json")):
        found += strings(json.loads(path.read_text(encoding="utf-8")), keys=keys)
    return tuple(found)


@functools.cache
def bench_cases(n: int = 200) -> tuple[EvaluationRequest, ...]:
    """The first ``n`` cases of ``bench/engine_bench.py`` (1–4 KB outputs with
    inputs and tool calls), loaded from the file as the bench runs it."""
    module = sys.modules.get("_engine_bench")
    if module is None:
        spec = importlib.util.spec_from_file_location(
            "_engine_bench", ROOT / "bench" / "engine_bench.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["_engine_bench"] = module
        spec.loader.exec_module(module)
    return tuple(module.make_cases(n))


def bench_strings(n: int = 200) -> tuple[str, ...]:
    """Every text of the first ``n`` bench cases: output, input, expected and
    each tool call's input, output and error."""
    found: list[str] = []
    for case in bench_cases(n):
        found += [case.output, case.input or "", case.expected or ""]
        for call in case.tool_calls or ():
            found += strings([call.input, call.output, call.error])
    return tuple(found)
