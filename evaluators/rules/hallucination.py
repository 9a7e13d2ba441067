"""``no_hallucination_markers``: claims the supplied material contradicts.

Without input only the two context-free signals run (self-inconsistent
totals, fabricated-citation shape) and the result says so. With input, the
output's specific claims (numbers, versions, flags, dates, quoted phrases,
booleans) are cross-checked against the source material.
"""

from __future__ import annotations

import re
from typing import Any

from evaluators.context import EvalContext
from evaluators.rules import hallucination_grounded
from evaluators.rules.base import Outcome, count, outcome, pattern, span
from evaluators.text.linear import LinearPattern

# "a + b = c". Run by RE2 (see ``LinearPattern``): ``re`` re-scans a run of
# digits from every digit in it, and a chain "1+1+1+..." with no "=" from every
# addend, so a long run took quadratic time.
_SUM = LinearPattern(
    re.compile(r"(\d[\d,]*(?:\.\d+)?)((?:\s*\+\s*\d[\d,]*(?:\.\d+)?)+)\s*=\s*(\d[\d,]*(?:\.\d+)?)")
)
_CITE = re.compile(r"\[\d{1,3}\]")
_EXPERT = re.compile(r"\b(?:Dr\.|Professor|according to|study by|research by|paper by)", re.I)


def _num(s: str) -> float:
    return float(s.replace(",", ""))


def context_free_signals(output: str) -> list[tuple[str, int, int, str]]:
    sig: list[tuple[str, int, int, str]] = []
    # every _SUM match holds a "+" and an "="
    for m in _SUM.finditer(output) if "+" in output and "=" in output else ():
        addends = [_num(m.group(1))] + [
            _num(x) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", m.group(2))
        ]
        total = _num(m.group(3))
        if abs(sum(addends) - total) > 1e-6 * max(1.0, abs(total)):
            sig.append(
                (
                    "total_contradicts_addends",
                    m.start(),
                    m.end(),
                    f"{' + '.join(f'{a:g}' for a in addends)} ≠ {total:g}",
                )
            )
    # every _CITE match holds a "[": without one the scan finds nothing
    cites = list(_CITE.finditer(output)) if "[" in output else []
    if len({c.group(0) for c in cites}) >= 3 and len(_EXPERT.findall(output)) >= 2:
        sig.append(
            (
                "fabricated_citation_shape",
                cites[0].start(),
                cites[-1].end(),
                "numbered citations with expert attributions and no source",
            )
        )
    return sig


def grounded_signals(ctx: EvalContext) -> list[tuple[str, int, int, str]]:
    """Cross-check against everything the agent was given: the input, the
    expected answer and every tool result (SPEC §8.19 "material given")."""
    extra = [ctx.request.expected or ""]
    extra += [s.output_text for s in ctx.steps if s.output is not None]
    return hallucination_grounded.signals(ctx.output, ctx.input or "", extra, ctx.output_lower)


def no_hallucination_markers(ctx: EvalContext) -> Outcome:
    sig = context_free_signals(ctx.output)
    has_input = ctx.has("input")
    if has_input:
        sig += grounded_signals(ctx)
    saw = ("output", "input") if has_input else ("output",)
    note = (
        ""
        if has_input
        else " Only the two context-free signals ran (no input to check claims against)."
    )
    ev: list[dict[str, Any]] = [count("signals", "signals", len(sig), 0, "rule")]
    if not sig:
        return outcome(
            True, 1.0, "No contradiction with the supplied material found." + note, ev, saw=saw
        )
    names: dict[str, int] = {}
    for name, s, e, _ in sig:
        names[name] = names.get(name, 0) + 1
        if len(ev) < 14:
            ev.append(span("output", s, e, name))
    ev += [pattern(n, c) for n, c in sorted(names.items())][:6]
    detail = "; ".join(d for _, _, _, d in sig[:3])
    return outcome(
        False,
        max(0.0, 1 - 0.3 * len(sig)),
        f"{len(sig)} fabrication signal(s): {detail}.{note}",
        ev,
        saw=saw,
    )
