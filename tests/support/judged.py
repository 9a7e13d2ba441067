"""A built-in rule's ``Judged`` record, as the engine binds it, for tests."""

from __future__ import annotations

from evaluators.engine import builtin_fields
from evaluators.judged import Judged
from evaluators.rules.base import Outcome, RuleSpec


def builtin_judged(
    spec: RuleSpec, outcome: Outcome, *, critical: bool = False, source: str = "default"
) -> Judged:
    """``spec``'s metadata with ``outcome``, origin built-in."""
    return Judged(*builtin_fields(spec, critical, source), outcome)
