"""A rule result as the composer sees it: metadata + outcome, any origin."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mypy_extensions import mypyc_attr

from evaluators.rules.base import Outcome


@mypyc_attr(native_class=False)  # compiled: see evaluators/_compiled.py
@dataclass(slots=True)
class Judged:
    """One rule's result with the metadata the composer's predicates read."""

    name: str
    bundle: str
    kind: str
    mechanism: str
    question: str | None
    classes: tuple[str, ...]
    needs: tuple[str, ...]
    weight: float
    critical: bool
    critical_source: str
    origin: str  # builtin | custom | inline
    version: int
    outcome: Outcome
    severity: str | None = None
    rule_id: str | None = None
    role: str = "advisory"

    @property
    def skipped(self) -> bool:
        return self.outcome.skipped

    @property
    def fired(self) -> bool:
        return not self.outcome.skipped and not self.outcome.passed

    @property
    def is_custom(self) -> bool:
        return self.origin != "builtin"

    @property
    def uses_default_threshold(self) -> bool:
        return any(
            e.get("type") == "count" and e.get("thresholdSource") == "default"
            for e in self.outcome.evidence
        )

    @property
    def asked(self) -> bool:
        """Somebody asked for this rule (SPEC §10.2 layer 4)."""
        if self.outcome.asked:
            return True
        if self.critical and self.critical_source == "config":
            return True
        return self.origin not in ("builtin", "inline") and self.critical

    def evidence_summary(self) -> dict[str, Any]:
        return {"rule": self.name, "bundle": self.bundle}
