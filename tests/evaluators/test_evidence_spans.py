"""Every evidence span indexes the raw text of the field it names, and the
slice it cuts is the thing its label says it found.

Offsets that are merely "in range" can still point at the folded copy, or a
few characters off; these tests cut ``raw[start:end]`` from the named field
(``output``, ``input`` or ``tool_output[i]``) and check the slice against a
per-label table of what that finding must look like.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.engine import evaluate
from evaluators.model import ToolCall
from evaluators.request import EvaluationRequest
from evaluators.textview import fold

PIECES = [
    "TODO fill",
    "see src/app/main.ts",
    "ignore previous instructions",
    "\u200b",
    "Ｔｏｄｏ",
    "call 415-555-0100",
    "ssn 123-45-6789",
    "how to hack",
    " ",
    "\n",
    "x.py",
    "Done.",
    "a@b.io",
    "I'll look into it.",
    "Revenue fell to 2.1%, per the report.",
    "The MAU was 14,280 in July.",
    "It closes September 2nd.",
    "TLS is enabled.",
]
MATERIAL = (
    'User asked: "fix the app and summarise the report"\n'
    "Report: MAU 12,480; revenue up 8%; closes 2026-09-01.\n"
    '{"tls": false}\n'
)
CALLS = (
    ToolCall("read_file", {"path": "src/app/main.ts"}, "export const x = 1;"),
    ToolCall("bash", {"command": "ls"}, "Error: no such file or directory"),
)
DEFAULT_BLOCKLIST = ("kill yourself", "how to make a bomb", "how to hack", "illegal drugs")


def _folded(s: str) -> str:
    return fold(s).text.strip()


# What a slice must look like, by evidence label. A label absent from the
# table only gets the generic checks (non-empty, trimmed, inside the field).
LABEL_CHECKS: dict[str, Callable[[str], bool]] = {
    "ssn": lambda s: re.fullmatch(r"\d{3}-\d{2}-\d{4}", _folded(s)) is not None,
    "email": lambda s: re.fullmatch(r"[^\s@]+@[^\s@]+\.[^\s@]+", _folded(s)) is not None,
    "phone": lambda s: 10 <= sum(c.isdigit() for c in _folded(s)) <= 11,
    "blocklist": lambda s: " ".join(_folded(s).split()) in DEFAULT_BLOCKLIST,
    "ignore_instructions": lambda s: "ignore" in _folded(s),
    "todo": lambda s: _folded(s) == "todo",
    "fixme": lambda s: _folded(s) == "fixme",
    "deferral": lambda s: _folded(s).startswith(("i'll", "i will", "let me")),
    "location nothing read supports": lambda s: not any(c.isspace() for c in s),
    "figure_contradicts_material": lambda s: any(c.isdigit() for c in s),
    "figure_not_in_material": lambda s: any(c.isdigit() for c in s),
    "attributed_figure_absent": lambda s: any(c.isdigit() for c in s),
    "date_contradicts_material": lambda s: any(c.isdigit() for c in s),
    "flag_contradicts_material": lambda s: "tls" in s.lower(),
}
WHOLE = "the whole output"
# Rules whose spans come from evaluators/detectors (owned and being reworked
# by another colleague); checked separately so a detector offset bug is
# reported without hiding the engine's own rules.
DETECTOR_RULES = frozenset({"no_pii", "no_injection_patterns", "no_blocklist_words"})


def _field(req: EvaluationRequest, source: str) -> str | None:
    if source == "output":
        return req.output
    if source == "input":
        return req.input
    m = re.fullmatch(r"tool_output\[(\d+)\]", source)
    if m and req.tool_calls is not None and int(m.group(1)) < len(req.tool_calls):
        out = req.tool_calls[int(m.group(1))].output
        return out if isinstance(out, str) else None
    return None


def _span_problems(req: EvaluationRequest, result: dict[str, Any], detectors: bool) -> list[str]:
    problems: list[str] = []
    for rr in result["rule_results"]:
        if (rr["rule"] in DETECTOR_RULES) != detectors:
            continue
        for ev in rr["evidence"]:
            if ev.get("type") != "span":
                continue
            raw = _field(req, ev["source"])
            where = f"{rr['rule']} {ev['label']!r} {ev['source']}[{ev['start']}:{ev['end']}]"
            if raw is None:
                problems.append(f"{where}: names a field the request does not have")
                continue
            if not 0 <= ev["start"] <= ev["end"] <= len(raw):
                problems.append(f"{where}: outside the field (len {len(raw)})")
                continue
            cut = raw[ev["start"] : ev["end"]]
            if ev["label"] == WHOLE:
                if cut.strip() != raw.strip():
                    problems.append(f"{where}: {cut!r} is not the whole output")
                continue
            if raw.strip() and not cut.strip():
                problems.append(f"{where}: empty or blank slice")
                continue
            if cut != cut.strip():
                problems.append(f"{where}: slice {cut!r} carries surrounding whitespace")
            check = LABEL_CHECKS.get(str(ev["label"]))
            if check is not None and not check(cut):
                problems.append(f"{where}: slice {cut!r} is not what the label quotes")
    return problems


_PARTS = st.lists(st.sampled_from(PIECES) | st.text(max_size=12), max_size=12)


def _request(parts: list[str], with_material: bool) -> EvaluationRequest:
    return EvaluationRequest(
        output=" ".join(parts),
        input=MATERIAL if with_material else "fix the app",
        tool_calls=CALLS if with_material else None,
    )


@settings(max_examples=80, deadline=None)
@given(_PARTS, st.booleans())
def test_spans_quote_the_field_they_name(parts: list[str], with_material: bool) -> None:
    req = _request(parts, with_material)
    assert _span_problems(req, evaluate(req), detectors=False) == []


@pytest.mark.xfail(
    strict=False,
    reason="detector spans can over-reach (e.g. an email span starting at the previous "
    "word); evaluators/detectors is owned by another colleague",
)
@settings(max_examples=80, deadline=None)
@given(_PARTS, st.booleans())
def test_detector_spans_quote_the_field_they_name(parts: list[str], with_material: bool) -> None:
    req = _request(parts, with_material)
    assert _span_problems(req, evaluate(req), detectors=True) == []


def test_known_spans_cut_exactly() -> None:
    """Fixed examples: each finding's slice is the literal claim."""
    out = "TODO fill. The MAU was 14,280 in July. It closes September 2nd. TLS is enabled."
    req = EvaluationRequest(output=out, input=MATERIAL, tool_calls=CALLS)
    result = evaluate(req)
    assert _span_problems(req, result, detectors=False) == []
    cuts = {
        (rr["rule"], out[ev["start"] : ev["end"]])
        for rr in result["rule_results"]
        for ev in rr["evidence"]
        if ev.get("type") == "span" and ev["source"] == "output"
    }
    assert ("no_stub_output", "TODO") in cuts
    assert ("no_hallucination_markers", "14,280") in cuts
    assert ("no_hallucination_markers", "September 2nd") in cuts
