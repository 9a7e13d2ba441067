"""Token usage and reported cost, counted once.

Agent-level spans often repeat the totals of the model calls below them, so
we sum *leaf carriers* only: spans that report usage and have no descendant
that does. Pydantic AI's run totals (``gen_ai.aggregated_usage.*``) are exactly
the sum we want and win when present; CrewAI's default instrumentation has no
model spans and reports the crew total only inside the root's CrewOutput JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaluators.model import TokenUsage
from receivers.conventions import iris as iris_conv
from receivers.conventions import openinference as oi
from receivers.conventions import precedence as P
from receivers.conventions import pydantic_ai as pyd
from receivers.messages import maybe_json
from receivers.spans import SpanRecord, carries_none

# The keys each reader below tries, each once: a span carrying none of them is
# passed over with one ``carries_none`` (most spans carry no usage and no cost).
_AGGREGATED_KEYS: tuple[str, ...] = tuple(
    dict.fromkeys(pyd.AGGREGATED_INPUT_TOKENS + pyd.AGGREGATED_OUTPUT_TOKENS)
)
_TOKEN_KEYS: tuple[str, ...] = tuple(
    dict.fromkeys(P.PROMPT_TOKEN_KEYS + P.COMPLETION_TOKEN_KEYS + P.TOTAL_TOKEN_KEYS)
)
_COST_KEYS: tuple[str, ...] = tuple(dict.fromkeys(P.COST_KEYS))


def _num(val: Any) -> float | None:
    if isinstance(val, bool):
        return None
    if isinstance(val, int | float):
        return float(val)
    if isinstance(val, str):
        try:
            return float(val)
        except ValueError:
            return None
    return None


def _first_num(attrs: dict[str, Any], keys: Sequence[str]) -> float | None:
    for key in keys:
        if key in attrs:
            n = _num(attrs[key])
            if n is not None:
                return n
    return None


def _span_tokens(attrs: dict[str, Any]) -> tuple[float | None, float | None, float | None]:
    if carries_none(attrs, _TOKEN_KEYS):
        return (None, None, None)
    return (
        _first_num(attrs, P.PROMPT_TOKEN_KEYS),
        _first_num(attrs, P.COMPLETION_TOKEN_KEYS),
        _first_num(attrs, P.TOTAL_TOKEN_KEYS),
    )


def _leaves(carriers: list[SpanRecord], by_id: dict[str, SpanRecord]) -> list[SpanRecord]:
    """Carriers none of whose descendants is also a carrier."""
    carrier_ids = {s.span_id for s in carriers}
    shadowed: set[str] = set()
    for s in carriers:
        seen: set[str] = set()
        pid = s.parent_span_id
        while pid and pid in by_id and pid not in seen:
            seen.add(pid)
            if pid in carrier_ids:
                shadowed.add(pid)
            pid = by_id[pid].parent_span_id
    return [s for s in carriers if s.span_id not in shadowed]


def _as_int(x: float | None) -> int | None:
    return None if x is None else round(x)


def _usage(p: float | None, c: float | None, t: float | None) -> TokenUsage | None:
    if p is None and c is None and t is None:
        return None
    if t is None and p is not None and c is not None:
        t = p + c
    return TokenUsage(_as_int(p), _as_int(c), _as_int(t))


def token_usage(
    spans: Sequence[SpanRecord], by_id: dict[str, SpanRecord], root: SpanRecord | None
) -> TokenUsage | None:
    # 1. Pydantic AI run totals (topmost span carrying them).
    for s in ([root] if root is not None else []) + list(spans):
        a = s.attributes
        if carries_none(a, _AGGREGATED_KEYS):
            continue
        p = _first_num(a, pyd.AGGREGATED_INPUT_TOKENS)
        c = _first_num(a, pyd.AGGREGATED_OUTPUT_TOKENS)
        if p is not None or c is not None:
            return _usage(p, c, _first_num(a, pyd.AGGREGATED_TOTAL_TOKENS))
    # 2. Leaf carriers.
    carriers: list[tuple[SpanRecord, tuple[float | None, float | None, float | None]]] = []
    for s in spans:
        toks = _span_tokens(s.attributes)
        if toks != (None, None, None):
            carriers.append((s, toks))
    if carriers:
        leaves = {s.span_id for s in _leaves([s for s, _ in carriers], by_id)}
        ps = [t for s, t in carriers if s.span_id in leaves]
        prompt = _sum([t[0] for t in ps])
        completion = _sum([t[1] for t in ps])
        total = _sum([t[2] for t in ps]) if all(t[2] is not None for t in ps) else None
        return _usage(prompt, completion, total)
    # 3. CrewAI: crew totals inside the root CrewOutput JSON.
    if root is not None:
        out = maybe_json(root.attributes.get(oi.OUTPUT_VALUE))
        tu = out.get(oi.CREW_TOKEN_USAGE_KEY) if isinstance(out, dict) else None
        if isinstance(tu, dict):
            return _usage(
                _num(tu.get("prompt_tokens")),
                _num(tu.get("completion_tokens")),
                _num(tu.get("total_tokens")),
            )
    return None


def _sum(vals: list[float | None]) -> float | None:
    known = [v for v in vals if v is not None]
    return sum(known) if known else None


def reported_cost(
    spans: Sequence[SpanRecord],
    by_id: dict[str, SpanRecord],
    root: SpanRecord | None,
    resource: dict[str, Any],
) -> float | None:
    """``iris.cost_usd`` on the resource/root is authoritative; else leaf-carrier sum."""
    for attrs in (resource, root.attributes if root is not None else {}):
        n = _first_num(attrs, iris_conv.COST_USD)
        if n is not None:
            return n
    carriers = [
        s
        for s in spans
        if not carries_none(s.attributes, _COST_KEYS)
        and _first_num(s.attributes, P.COST_KEYS) is not None
    ]
    if not carriers:
        return None
    leaves = _leaves(carriers, by_id)
    return sum(_first_num(s.attributes, P.COST_KEYS) or 0.0 for s in leaves)
