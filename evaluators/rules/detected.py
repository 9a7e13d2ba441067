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
from evaluators.rules.base import Outcome, outcome, skip

if TYPE_CHECKING:  # imported lazily at run time (see the module docstring)
    from evaluators.detectors.findings import Finding

_CACHE: dict[str, Any] = {}


def _detector(module: str, attr: str) -> Callable[..., Any] | None:
    key = module + "." + attr  # cheaper than an f-string; this runs three times a rule
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
    with their counts (:func:`_evidence`, in C when built, because it runs on
    every evaluation of three critical rules); ``finalize`` already gives the
    fields their int/str types.
    """
    if not findings:
        return outcome(True, 1.0, f"No {what} found.", saw=("output",))
    ev, _, names = _evidence(findings, report_text)
    if report_text:
        msg = f"Found {len(findings)} {what}: {names}."
    else:
        msg = f"Found {len(findings)} {what}."
    return outcome(False, 0.0, msg, ev, saw=("output",))


Evidence = tuple[list[dict[str, Any]], list[tuple[str, int]], str | None]


def _evidence(findings: Sequence[Finding], with_names: bool = True) -> Evidence:
    """:func:`_evidence_reference`, by the C kernel for a list of Finding
    records (what the detectors return): a dict per span costs a Python
    step each, and an evaluation has a dozen findings or more."""
    # looked up as lazily as the detectors (the kernel is in their package)
    kernel = _detector("evaluators.detectors._findkernel", "evidence")
    finding = _detector("evaluators.detectors.findings", "Finding")
    if kernel is not None and finding is not None and type(findings) is list:
        got: Evidence | None = kernel(findings, finding, with_names)
        if got is not None:
            return got
    return _evidence_reference(findings, with_names)


def _evidence_reference(findings: Sequence[Finding], with_names: bool = True) -> Evidence:
    """The evidence of :func:`_from_findings` (the first 15 spans, then the
    five alphabetically first kinds with their counts), every kind with its
    count, sorted by kind, and (``with_names``) the message's list of them."""
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
    names = ", ".join([f"{k} ×{n}" for k, n in counts]) if with_names else None
    return ev, counts, names


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
