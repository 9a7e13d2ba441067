"""Cost bundle: dollars, tokens, steps and loops."""

from __future__ import annotations

import statistics
from datetime import datetime
from itertools import pairwise
from typing import Any

from evaluators.context import EvalContext, Step
from evaluators.rules.base import Outcome, count, outcome, skip, tool_call
from evaluators.rules.completeness import norm_input
from evaluators.stats import r4
from evaluators.text.case import lower

TARGET_KEYS: tuple[str, ...] = (
    "path",
    "file",
    "file_path",
    "filename",
    "url",
    "uri",
    "query",
    "command",
    "cmd",
    "pattern",
    "name",
    "id",
)


def cost_under_threshold(ctx: EvalContext) -> Outcome:
    t, src = ctx.threshold("cost_threshold")
    cost = float(ctx.request.cost_usd or 0.0)
    ok = cost <= t
    return outcome(
        passed=ok,
        score=1.0 if ok else max(0.0, 1 - (cost - t) / t),
        message=f"Cost ${cost:.4f} {'≤' if ok else '>'} ${t:.4f}.",
        evidence=[count("cost", "usd", cost, t, src)],
        value={"stat": "cost", "unit": "usd", "value": cost},
        saw=("cost",),
        asked=src != "default",
    )


def verbosity_ratio(ctx: EvalContext) -> Outcome:
    u = ctx.request.token_usage
    assert u is not None and u.prompt_tokens is not None and u.completion_tokens is not None
    if u.prompt_tokens <= 0:
        return skip("prompt_tokens is 0", lacked=("tokens",))
    mx, src = ctx.threshold("max_token_ratio")
    r = u.completion_tokens / u.prompt_tokens
    ok = r <= mx
    return outcome(
        passed=ok,
        score=1.0 if ok else max(0.0, 1 - (r - mx) / mx),
        message=(
            f"Completion/prompt tokens {r:.2f} {'≤' if ok else '>'} {mx} "
            "(verbosity, not efficiency)."
        ),
        evidence=[count("completion_prompt_ratio", "ratio", r4(r), mx, src)],
        value={"stat": "completion_prompt_ratio", "unit": "ratio", "value": r4(r)},
        saw=("tokens",),
        asked=src != "default",
    )


def max_steps(ctx: EvalContext) -> Outcome:
    budget, src = ctx.threshold("max_steps")
    n = len(ctx.steps)
    ok = n <= budget
    return outcome(
        passed=ok,
        score=1.0 if ok else budget / n,
        message=f"{n} tool call(s) {'≤' if ok else '>'} max_steps {budget}.",
        evidence=[count("steps", "calls", n, budget, src)],
        value={"stat": "steps", "unit": "calls", "value": n},
        saw=("tool_calls",),
        asked=src != "default",
    )


def step_budget(ctx: EvalContext) -> Outcome:
    traj = ctx.request.expected_trajectory
    assert traj is not None
    budget = traj.step_budget or len(traj.tool_calls)
    if not budget:
        return skip(
            "the expected trajectory states no budget and no expected calls",
            lacked=("expected_trajectory",),
        )
    tol = traj.tolerance if traj.tolerance and traj.tolerance >= 1 else 1.5
    ceiling = budget * tol
    n = len(ctx.steps)
    ok = n <= ceiling + 1e-9
    return outcome(
        passed=ok,
        score=1.0 if ok else min(1.0, ceiling / n),
        message=f"{n} call(s) against a ceiling of {ceiling:g} (budget {budget} × {tol:g})"
        + ("." if ok else f": over by {n - ceiling:g}."),
        evidence=[count("steps", "calls", n, ceiling, "call")],
        value={"stat": "steps", "unit": "calls", "value": n},
        saw=("tool_calls", "expected_trajectory"),
        asked=True,
    )


def cost_anomaly(ctx: EvalContext) -> Outcome:
    hist = [h for h in (ctx.request.cost_history or ()) if h is not None][:200]
    cost = float(ctx.request.cost_usd or 0.0)
    if len(hist) < 20:
        return skip(
            f"insufficient_history: {len(hist)} prior costed traces (< 20); says nothing rather "
            "than fine",
            saw=("cost",),
        )
    med = statistics.median(hist)
    mad = statistics.median([abs(h - med) for h in hist])
    ev: list[dict[str, Any]] = []
    dear = _dearest(ctx.steps)
    if mad == 0:
        margin, src = ctx.threshold("cost_anomaly_flat_margin")
        limit = max(hist) * (1 + margin)
        spike = cost > limit + 1e-12
        ev.append(count("cost_vs_flat_baseline", "usd", cost, round(limit, 8), src))
        msg = (
            f"Cost ${cost:.4f} vs a flat baseline ${max(hist):.4f} "
            f"(MAD 0; fallback: > {margin:.0%} over every prior value)."
        )
        score = 1.0 if not spike else max(0.0, limit / cost)
    else:
        z = 0.6745 * (cost - med) / mad
        spike = z > 3.5
        ev.append(count("modified_z", "z", r4(z), 3.5, "rule"))
        msg = f"Modified z {z:.2f} against the last {len(hist)} costs (median ${med:.4f})."
        score = 1.0 if not spike else max(0.0, 1 - (z - 3.5) / 10)
    if spike and dear is not None:
        ev.append(tool_call(dear.index, dear.name, "dearest call"))
    return outcome(not spike, score, ("Cost spike: " if spike else "") + msg, ev, saw=("cost",))


def _dearest(steps: tuple[Step, ...]) -> Step | None:
    costed = [s for s in steps if isinstance(s.cost_usd, int | float)]
    return max(costed, key=lambda s: float(s.cost_usd or 0.0)) if costed else None


def _target(step: Step) -> str | None:
    if isinstance(step.input, dict):
        for k in TARGET_KEYS:
            v = step.input.get(k)
            if isinstance(v, str | int | float) and not isinstance(v, bool) and str(v).strip():
                return lower(str(v).strip())
    return None


def _ts(s: str | None) -> float | None:
    if not s:
        return None
    try:
        return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp() * 1000
    except ValueError:
        return None


def _is_poll(steps: list[Step]) -> bool:
    """≥3 repetitions, median gap ≥ 1 s and every gap within ±35% of it."""
    times = [_ts(s.started_at) for s in steps]
    if len(steps) < 3 or any(t is None for t in times):
        return False
    ts = sorted(t for t in times if t is not None)
    gaps = [b - a for a, b in pairwise(ts)]
    med = statistics.median(gaps)
    return med >= 1000 and all(abs(g - med) <= 0.35 * med for g in gaps)


def _smallest_period(seq: list[str]) -> int:
    n = len(seq)
    for p in range(1, n + 1):
        if n % p == 0 and seq == seq[:p] * (n // p):
            return p
    return n


def _repeat_groups(keys: list[str], steps: tuple[Step, ...], max_rep: int) -> list[list[Step]]:
    """The steps grouped by loop key (first-seen order), only the groups of
    more than ``max_rep`` calls: the only ones check (a) acts on. Grouping
    is skipped when no key can repeat that often (fewer distinct keys than
    that leaves room for)."""
    if len(keys) - len(set(keys)) < max_rep:  # a group of max_rep + 1 repeats max_rep keys
        return []
    groups: dict[str, list[Step]] = {}
    for key, s in zip(keys, steps, strict=True):
        groups.setdefault(key, []).append(s)
    return [grp for grp in groups.values() if len(grp) > max_rep]


def loop_keys(steps: tuple[Step, ...]) -> list[str]:
    """Each step's loop key, ``f"{name}\\x00{norm_input(input)}"``, except
    that a step whose name no other step has gets ``f"{name}\\x00"``.

    The rule reads the keys only by equality, and this keeps every equality:
    with no NUL in any name, a key's name is the text before its first NUL,
    so a key of a name nobody else has equals no other key, whatever input
    text follows. Why: the input's text is a canonical JSON dump (~5,000
    instructions a step), and most runs call each tool once."""
    names = [s.name for s in steps]
    seen: dict[str, int] = {}
    for name in names:
        if "\x00" in name:
            return [f"{s.name}\x00{norm_input(s.input)}" for s in steps]
        seen[name] = seen.get(name, 0) + 1
    return [
        f"{s.name}\x00{norm_input(s.input)}" if seen[s.name] > 1 else f"{s.name}\x00" for s in steps
    ]


def no_tool_loop(ctx: EvalContext) -> Outcome:
    steps = ctx.steps
    keys = loop_keys(steps)
    max_rep, rep_src = ctx.threshold("max_tool_repeats")
    max_reread, rr_src = ctx.threshold("max_target_rereads")
    polls: list[str] = []
    # (a) repeat count
    for grp in _repeat_groups(keys, steps, max_rep):
        if _is_poll(grp):
            polls.append(grp[0].name)
            continue
        ev = [count("identical_calls", "calls", len(grp), max_rep, rep_src)]
        ev += [tool_call(s.index, s.name, "repeated call") for s in grp[:19]]
        return _loop(
            f"{grp[0].name} called {len(grp)} times with identical input (> {max_rep}).",
            len(grp),
            max_rep,
            ev,
            rep_src,
        )
    # (b) cycles of k ≥ 2 distinct calls repeated consecutively more than twice
    n = len(keys)
    for k in range(2, n // 3 + 1):
        for start in range(0, n - 3 * k + 1):
            gram = keys[start : start + k]
            if _smallest_period(gram) < k:
                continue
            reps = 1
            pos = start + k
            while keys[pos : pos + k] == gram:
                reps += 1
                pos += k
            if reps > 2:
                cyc = steps[start:pos]
                if _is_poll([s for s in cyc if keys[s.index] == gram[0]]):
                    polls.append(cyc[0].name)
                    continue
                label = "alternating call" if k == 2 else "repeated sequence"
                ev = [count("sequence_repetitions", "repetitions", reps, 2, "rule")]
                ev += [tool_call(s.index, s.name, label) for s in cyc[:19]]
                names = " → ".join(s.name for s in steps[start : start + k])
                return _loop(
                    f"Sequence {names} repeated {reps} times consecutively (> 2).",
                    reps,
                    2,
                    ev,
                    "rule",
                )
    # (c) target re-reads through catalogue-declared read-only tools
    ro = {
        t.name for t in ctx.request.tools or () if (t.annotations or {}).get("readOnlyHint") is True
    }
    if ro:
        reads: dict[str, list[Step]] = {}
        for s in steps:
            tgt = _target(s) if s.name in ro else None
            if tgt:
                reads.setdefault(tgt, []).append(s)
        for tgt, grp in reads.items():
            if len(grp) > max_reread and not _is_poll(grp):
                ev = [count("target_reads", "reads", len(grp), max_reread, rr_src)]
                ev += [tool_call(s.index, s.name, "read of the same target") for s in grp[:19]]
                return _loop(
                    f"Target {tgt[:80]!r} read {len(grp)} times through read-only tools (> "
                    f"{max_reread}).",
                    len(grp),
                    max_reread,
                    ev,
                    rr_src,
                )
    note = (
        f" Regularly spaced repeats of {', '.join(sorted(set(polls)))} read as polling."
        if polls
        else ""
    )
    return outcome(
        True,
        1.0,
        f"No loop in {n} call(s).{note}",
        [count("steps", "calls", n)],
        saw=("tool_calls",),
    )


def _loop(msg: str, observed: int, allowed: int, ev: list[dict[str, Any]], src: str) -> Outcome:
    return outcome(
        False,
        max(0.0, 1 - (observed - allowed) * 0.25),
        msg,
        ev,
        saw=("tool_calls",),
        asked=src != "default",
    )
