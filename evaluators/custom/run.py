"""Running one custom rule against an evaluation context."""

from __future__ import annotations

import json
import time
from typing import Any

import jsonschema

from evaluators.context import EvalContext
from evaluators.custom.action_policy import decide
from evaluators.custom.definition import CustomRuleDef
from evaluators.rules.base import Outcome, count, skip, span, tool_call

REGEX_BUDGET_MS = 100.0
REGEX_INPUT_CAP = 1_000_000
BREAKER = 3


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, the unit the definitions were written in."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


class RegexBudget:
    """Per-evaluation circuit breaker: after 3 breaches, regex rules skip at once."""

    def __init__(self, budget_ms: float = REGEX_BUDGET_MS) -> None:
        self.budget_ms = budget_ms
        self.breaches = 0


def run_custom(rule: CustomRuleDef, ctx: EvalContext, budget: RegexBudget) -> Outcome:
    t = rule.type
    out = ctx.output
    cfg = rule.config
    if t in ("regex_match", "regex_no_match"):
        if budget.breaches >= BREAKER:
            o = skip(
                "regex circuit breaker open (3 budget breaches in this evaluation)",
                "defeated",
                saw=("output",),
            )
            o.budget_exceeded = True
            return o
        start = time.perf_counter()
        m = rule.compiled.search(out[:REGEX_INPUT_CAP])
        elapsed = (time.perf_counter() - start) * 1000
        if elapsed > budget.budget_ms:
            budget.breaches += 1
            o = skip(
                f"regex exceeded its {budget.budget_ms:g} ms budget", "defeated", saw=("output",)
            )
            o.budget_exceeded = True
            return o
        ev: list[dict[str, Any]] = (
            [span("output", m.start(), m.end(), "pattern match")] if m else []
        )
        ok = (m is not None) if t == "regex_match" else (m is None)
        what = "matches" if m else "does not match"
        return Outcome(ok, 1.0 if ok else 0.0, f"Pattern {what} the output.", ev, saw=("output",))
    if t == "min_length":
        n, mn = utf16_len(out), float(cfg["min_length"])
        ok = n >= mn
        return Outcome(
            ok,
            1.0 if ok else (n / mn if mn else 0.0),
            f"Output length {n} vs minimum {mn:g}.",
            [count("length", "chars", n, mn, "rule")],
            saw=("output",),
        )
    if t == "max_length":
        n, mx = utf16_len(out), float(cfg["max_length"])
        ok = n <= mx
        return Outcome(
            ok,
            1.0 if ok else mx / n,
            f"Output length {n} vs maximum {mx:g}.",
            [count("length", "chars", n, mx, "rule")],
            saw=("output",),
        )
    if t in ("contains_keywords", "excludes_keywords"):
        low = ctx.output_lower
        kws = [str(k) for k in cfg["keywords"]]
        found = [k for k in kws if k.lower() in low]
        if t == "contains_keywords":
            thr = float(cfg.get("threshold", 1))
            share = len(found) / len(kws)
            ok = share >= thr - 1e-12
            missing = [k for k in kws if k not in found]
            msg = f"{len(found)}/{len(kws)} keywords present" + (
                f"; missing: {', '.join(missing[:5])}." if missing else "."
            )
            return Outcome(
                ok,
                share,
                msg,
                [count("keywords_found", "ratio", round(share, 4), thr, "rule")],
                saw=("output",),
            )
        ev2 = []
        for k in found[:10]:
            i = low.find(k.lower())
            ev2.append(span("output", i, i + len(k), "excluded keyword"))
        ok = not found
        return Outcome(
            ok,
            1.0 if ok else 0.0,
            "No excluded keyword present."
            if ok
            else f"Excluded keyword(s) present: {', '.join(found[:5])}.",
            ev2,
            saw=("output",),
        )
    if t == "json_schema":
        try:
            value = json.loads(out)
        except json.JSONDecodeError as exc:
            return Outcome(
                False, 0.0, f"Output is not JSON: {exc.msg} at position {exc.pos}.", saw=("output",)
            )
        if rule.compiled is None:
            return Outcome(
                True,
                1.0,
                "Output parses as JSON (no schema given: shape not checked).",
                saw=("output",),
            )
        err = jsonschema.exceptions.best_match(rule.compiled.iter_errors(value))
        if err is None:
            return Outcome(
                True,
                1.0,
                "Output parses as JSON and validates against the schema.",
                saw=("output",),
            )
        path = "/" + "/".join(str(p) for p in err.absolute_path)
        return Outcome(
            False, 0.0, f"Output does not validate: {path} ({err.validator}).", saw=("output",)
        )
    if t == "cost_threshold":
        if ctx.request.cost_usd is None:
            return skip("no cost_usd was supplied", lacked=("cost",))
        cost, mx = float(ctx.request.cost_usd), float(cfg["max_cost"])
        ok = cost <= mx
        return Outcome(
            ok,
            1.0 if ok else 0.0,
            f"Cost ${cost:.4f} vs max ${mx:.4f}.",
            [count("cost", "usd", cost, mx, "rule")],
            saw=("cost",),
        )
    if t == "action_policy":
        if not ctx.steps:
            return skip(ctx.steps_skip_reason(), lacked=("tool_calls",))
        denied = []
        for st in ctx.steps:
            allowed, reason = decide(cfg, st.name, st.input)
            if not allowed:
                denied.append((st, reason))
        if not denied:
            return Outcome(
                True,
                1.0,
                f"All {len(ctx.steps)} call(s) are allowed by the policy.",
                saw=("tool_calls",),
            )
        ev3 = [tool_call(s.index, s.name, r) for s, r in denied[:10]]
        s0, r0 = denied[0]
        return Outcome(
            False,
            0.0,
            f"{len(denied)} call(s) denied by the policy; first #{s0.index} {s0.name} ({r0}).",
            ev3,
            saw=("tool_calls",),
        )
    return skip(f"unknown custom type {t!r}", "config_invalid")
