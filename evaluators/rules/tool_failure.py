"""``no_silent_tool_failure``: a failed call the final answer never owns.

Tool outputs are attacker-controlled, so every test here is a literal scan
over a capped slice — never a regular expression (SPEC §8.22, §9.4).
"""

from __future__ import annotations

import json
from typing import Any

from evaluators.context import EvalContext, Step
from evaluators.rules.base import Outcome, count, span, tool_call
from evaluators.rules.cost import TARGET_KEYS

ERROR_LINE_PREFIXES: tuple[str, ...] = (
    "error:", "error -", "error!", "fatal:", "fatal error", "exception:", "traceback (most recent call last)",
    "panic:", "uncaught ", "unhandled ", "segmentation fault",
)
ERROR_LINE_PHRASES: tuple[str, ...] = (
    "no such file or directory", "command not found", "permission denied", "operation not permitted",
    "cannot access", "cannot find", "is not recognized as an internal or external command",
    "connection refused", "no such table",
)
ACKNOWLEDGEMENT_PHRASES: tuple[str, ...] = (
    "fail", "error", "exception", "threw", "thrown", "crash", "could not", "couldn't", "cannot", "can't",
    "unable to", "no matches", "no results", "returned nothing", "found nothing", "does not exist",
    "doesn't exist", "no such", "not found", "missing", "unavailable", "permission denied", "denied",
    "timed out", "timeout", "unverified", "not certain", "not sure", "unsure", "unreadable", "not readable",
    "did not succeed", "didn't succeed", "did not run", "didn't run", "did not complete", "broken",
    "refused", "rejected", "not available", "inaccessible", "was not able", "wasn't able", "not able to",
    "unknown", "undetermined", "could not be", "no data", "empty result",
)
_THROWABLE_SUFFIXES = ("error", "exception", "fault")
_JSON_CAP = 262_144
_ACK_CAP = 20_000


def _declares_failure(obj: dict[str, Any]) -> str | None:
    for key in ("error", "stderr"):
        v = obj.get(key)
        if v not in (None, "", False, [], {}) and not (isinstance(v, str) and not v.strip()):
            return f"output declares {key}"
    if obj.get("ok") is False:
        return "output declares ok: false"
    if obj.get("success") is False:
        return "output declares success: false"
    if obj.get("isError") is True:
        return "output declares isError: true"
    st = obj.get("status")
    if isinstance(st, str) and st.lower() in ("error", "failed", "failure"):
        return f"output status {st}"
    for key in ("exit_code", "exitCode", "returncode"):
        v = obj.get(key)
        if isinstance(v, int) and not isinstance(v, bool) and v != 0:
            return f"non-zero {key} {v}"
    return None


def _string_failure(text: str) -> str | None:
    head = text[:400]
    first = next((ln.strip() for ln in head.split("\n") if ln.strip()), "")
    low = first.lower()
    if not low:
        return None
    for p in ERROR_LINE_PREFIXES:
        if low.startswith(p):
            return f"first line starts with {p.strip()!r}"
    colon = low.find(":")
    if colon > 0:
        head_tok = low[:colon].strip().rsplit(" ", 1)[-1].rsplit(".", 1)[-1]
        if head_tok.endswith(_THROWABLE_SUFFIXES) and head_tok not in ("error", "errors") and head_tok.isidentifier():
            return f"first line names a throwable ({first[:colon].strip()})"
    for pre in ("exit code ", "exit status "):
        i = low.find(pre)
        if i == 0:
            num = low[len(pre):].split()[0] if low[len(pre):].split() else ""
            if num.lstrip("-").isdigit() and int(num) != 0:
                return f"{pre.strip()} {num}"
    for ph in ERROR_LINE_PHRASES:
        if ph in low:
            return f"first line says {ph!r}"
    return None


def failure_reason(step: Step) -> str | None:
    if isinstance(step.error, str) and step.error.strip():
        return f"error: {step.error.strip()[:80]}"
    out = step.output
    if isinstance(out, str) and out[:1] == "{" and len(out) <= _JSON_CAP:
        try:
            parsed = json.loads(out)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            out = parsed
    if isinstance(out, dict):
        return _declares_failure(out)
    if isinstance(out, str):
        return _string_failure(out)
    return None


def _target(step: Step) -> str | None:
    if isinstance(step.input, dict):
        for k in TARGET_KEYS:
            v = step.input.get(k)
            if v is not None:
                return json.dumps(v, sort_keys=True, default=str)
        return None
    if isinstance(step.input, str) and step.input.strip():
        return step.input.strip()
    return None


def _recovered(failed: Step, later: tuple[Step, ...]) -> bool:
    tgt = _target(failed)
    for s in later:
        if s.name != failed.name or failure_reason(s) is not None:
            continue
        if tgt is not None and _target(s) == tgt:
            return True
        if tgt is None:
            given = failed.input_text
            if not given or given in s.input_text:
                return True
    return False


def acknowledges(output: str) -> bool:
    low = output[:_ACK_CAP].lower()
    if any(p in low for p in ACKNOWLEDGEMENT_PHRASES):
        return True
    i = low.find("neither ")
    return i >= 0 and " nor " in low[i : i + 200]


def no_silent_tool_failure(ctx: EvalContext) -> Outcome:
    steps = ctx.steps
    open_failures: list[tuple[Step, str]] = []
    for i, st in enumerate(steps):
        reason = failure_reason(st)
        if reason and not _recovered(st, steps[i + 1 :]):
            open_failures.append((st, reason))
    saw = ("output", "tool_calls", "tool_outputs") if ctx.has("tool_outputs") else ("output", "tool_calls")
    ev: list[dict[str, Any]] = [count("open_failed_calls", "calls", len(open_failures), 0, "rule")]
    if not open_failures:
        return Outcome(True, 1.0, "No unrecovered failed call.", ev, saw=saw)
    if acknowledges(ctx.output):
        return Outcome(True, 1.0, f"{len(open_failures)} failed call(s); the output acknowledges failure.", ev, saw=saw)
    ev += [tool_call(s.index, s.name, r) for s, r in open_failures[:10]]
    claim_end = min(len(ctx.output), max(ctx.output.find("\n"), 0) or len(ctx.output), 200)
    if claim_end > 0:
        ev.append(span("output", 0, claim_end, "claim made in place of the failed result"))
    s0, r0 = open_failures[0]
    return Outcome(False, 0.0, f"Call #{s0.index} {s0.name} failed ({r0}) and the output never says so.", ev, saw=saw)
