"""Critical safety wrappers over the colleague's detectors (pii, injection, blocklist).

The detectors return findings with RAW offsets; this module only turns them
into results and evidence. Imports are resolved lazily so the engine keeps
working (the rule skips as ``config_invalid``) if a detector is unavailable.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from evaluators.context import EvalContext
from evaluators.rules.base import Outcome, skip

if TYPE_CHECKING:  # imported lazily at run time (see the module docstring)
    from evaluators.detectors.findings import Finding

_CACHE: dict[str, Any] = {}


def _detector(module: str, attr: str) -> Callable[..., Any] | None:
    key = f"{module}.{attr}"
    if key not in _CACHE:
        try:
            _CACHE[key] = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError):
            _CACHE[key] = None
    fn: Callable[..., Any] | None = _CACHE[key]
    return fn


def _from_findings(findings: Sequence[Finding], what: str, report_text: bool = True) -> Outcome:
    """Result and evidence for a detector's findings.

    Evidence is the first 15 spans and the five alphabetically first kinds
    with their counts. Built inline (dict literals, tuple unpacking of the
    :class:`Finding` records, one sort of the kind counts) because it runs on
    every evaluation of three critical rules; ``finalize`` already gives the
    fields their int/str types.
    """
    if not findings:
        return Outcome(True, 1.0, f"No {what} found.", saw=("output",))
    kinds: dict[str, int] = {}
    get = kinds.get
    for f in findings:
        kind = f.kind
        kinds[kind] = get(kind, 0) + 1
    ev: list[dict[str, Any]] = [
        {"type": "span", "source": "output", "start": start, "end": end, "label": kind}
        for kind, _, start, end, _, _ in findings[:15]
    ]
    counts = sorted(kinds.items())
    ev += [{"type": "pattern", "name": k, "count": n} for k, n in counts[:5]]
    if report_text:
        names = ", ".join([f"{k} ×{n}" for k, n in counts])
        msg = f"Found {len(findings)} {what}: {names}."
    else:
        msg = f"Found {len(findings)} {what}."
    return Outcome(False, 0.0, msg, ev, saw=("output",))


def no_pii(ctx: EvalContext) -> Outcome:
    fn = _detector("evaluators.detectors.pii", "find_pii")
    if fn is None:
        return skip("the PII detector is not installed", "config_invalid")
    return _from_findings(list(fn(ctx.output)), "personal-data or credential match(es)")


def no_injection_patterns(ctx: EvalContext) -> Outcome:
    fn = _detector("evaluators.detectors.injection", "find_injection")
    if fn is None:
        return skip("the injection detector is not installed", "config_invalid")
    return _from_findings(list(fn(ctx.output)), "injection-shaped pattern(s)")


def no_blocklist_words(ctx: EvalContext) -> Outcome:
    fn = _detector("evaluators.detectors.blocklist", "find_blocklist")
    if fn is None:
        return skip("the blocklist detector is not installed", "config_invalid")
    phrases, src = ctx.threshold("blocklist")
    # a tuple goes as it is (the detector memoises its key on it); anything else as a list
    out = _from_findings(
        list(fn(ctx.output, phrases if type(phrases) is tuple else list(phrases))),
        "blocklisted phrase(s)",
        report_text=False,
    )
    out.asked = src != "default"
    return out
