"""Engine configuration: the ``eval.*`` settings of SPEC §16.1.

Validation is loud on purpose (SPEC §16.1): a typo in a rule name or a key
would otherwise silently leave a rule at the wrong criticality, so every
problem raises ``ValueError`` with one sentence naming the key, the entry
and the valid values.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

OnCriticalSkipped = Literal["unknown", "fail", "pass"]
PriorMode = Literal["per-output", "per-class"]

NEEDS: tuple[str, ...] = (
    "output",
    "input",
    "expected",
    "expected_trajectory",
    "tool_calls",
    "tool_outputs",
    "tools_catalogue",
    "cost",
    "tokens",
    "citations",
)

DEFAULT_BLOCKLIST: tuple[str, ...] = (
    "kill yourself",
    "how to make a bomb",
    "how to hack",
    "illegal drugs",
    "child exploitation",
)

# The marker vocabulary is data (one table shared with the rule itself).
STUB_MARKER_TABLE: dict[str, list[str]] = json.loads(
    (Path(__file__).resolve().parent / "data" / "stub_markers.json").read_text(encoding="utf-8")
)
DEFAULT_STUB_MARKERS: tuple[str, ...] = tuple(STUB_MARKER_TABLE["defaults"])


def _positive_number(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    f = float(v)
    return f if math.isfinite(f) and f > 0 else None


def _ratio(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    f = float(v)
    return f if math.isfinite(f) and 0 <= f <= 1 else None


def _count_at_least_one(v: Any) -> int | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    f = float(v)
    return math.floor(f) if math.isfinite(f) and f >= 1 else None


def _phrases(v: Any) -> tuple[str, ...] | None:
    if isinstance(v, list | tuple) and all(isinstance(x, str) and x for x in v):
        return tuple(v)
    return None


@dataclass(frozen=True, slots=True)
class ThresholdSpec:
    """One configurable threshold: shipped default and how a value is read."""

    default: Any
    parse: Callable[[Any], Any]


# One table for every threshold a rule reads (SPEC §16.1 ruleThresholds).
THRESHOLDS: dict[str, ThresholdSpec] = {
    "min_output_length": ThresholdSpec(50, _count_at_least_one),
    "min_sentences": ThresholdSpec(2, _count_at_least_one),
    "keyword_overlap": ThresholdSpec(0.35, _ratio),
    "topic_consistency": ThresholdSpec(1 / 3, _ratio),
    "topic_consistency_min_words": ThresholdSpec(6, _count_at_least_one),
    "cost_threshold": ThresholdSpec(0.10, _positive_number),
    "max_token_ratio": ThresholdSpec(5.0, _positive_number),
    "max_tool_repeats": ThresholdSpec(3, _count_at_least_one),
    "max_target_rereads": ThresholdSpec(3, _count_at_least_one),
    "max_steps": ThresholdSpec(50, _count_at_least_one),
    "blocklist": ThresholdSpec(DEFAULT_BLOCKLIST, _phrases),
    "stub_markers": ThresholdSpec(DEFAULT_STUB_MARKERS, _phrases),
    "cost_anomaly_flat_margin": ThresholdSpec(0.10, _positive_number),
    "injection_compliance_trusted_tools": ThresholdSpec((), _phrases),
}
THRESHOLD_ALIASES: dict[str, str] = {"min_length": "min_output_length"}
# The shipped config carries 0.33 for topic_consistency while the code says 1/3;
# both are "default" because provenance is where the number came from.
SHIPPED_EQUIVALENTS: dict[str, tuple[Any, ...]] = {"topic_consistency": (0.33,)}


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """The engine's settings. Immutable so one instance can be shared.

    ``judged_at`` is the clock: the engine never reads the wall clock, so the
    caller (service, CLI) supplies the time and identical inputs produce a
    byte-identical result. A request may override it.
    """

    iris_version: str = "0.1.0"
    judged_at: str = "1970-01-01T00:00:00Z"
    critical_rules: tuple[str, ...] = ()
    non_critical_rules: tuple[str, ...] = ()
    false_pass_cost: float = 1.0
    on_critical_skipped: OnCriticalSkipped = "unknown"
    required_evidence: tuple[str, ...] = ()
    defaults_gate: bool = False
    prior: float = 0.5
    prior_mode: PriorMode = "per-output"
    default_threshold: float = 0.7
    rule_thresholds: Mapping[str, Any] = field(default_factory=dict)
    validate_tool_arguments: bool = True
    blocklist: tuple[str, ...] | None = None
    stub_markers: tuple[str, ...] | None = None
    composer: str = "risk"

    def __post_init__(self) -> None:
        validate_config(self)

    @property
    def tau(self) -> float:
        """Risk threshold τ = 1/(1 + falsePassCost) (SPEC §10.4)."""
        return 1.0 / (1.0 + self.false_pass_cost)

    def threshold(self, key: str) -> tuple[Any, str] | None:
        """Deployment value for ``key`` (``config`` source) or ``None``."""
        key = THRESHOLD_ALIASES.get(key, key)
        if key == "blocklist" and self.blocklist is not None:
            return self.blocklist, "config"
        if key == "stub_markers" and self.stub_markers is not None:
            return self.stub_markers, "config"
        for name, raw in self.rule_thresholds.items():
            if THRESHOLD_ALIASES.get(name, name) == key:
                if raw in SHIPPED_EQUIVALENTS.get(key, ()):
                    return None
                return THRESHOLDS[key].parse(raw), "config"
        return None

    def canonical(self) -> dict[str, Any]:
        """The config as canonical JSON-ready data (hashed into configHash)."""
        return {
            "criticalRules": sorted(self.critical_rules),
            "nonCriticalRules": sorted(self.non_critical_rules),
            "falsePassCost": self.false_pass_cost,
            "onCriticalSkipped": self.on_critical_skipped,
            "requiredEvidence": sorted(self.required_evidence),
            "defaultsGate": self.defaults_gate,
            "prior": self.prior,
            "priorMode": self.prior_mode,
            "defaultThreshold": self.default_threshold,
            "ruleThresholds": {k: _jsonable(v) for k, v in sorted(self.rule_thresholds.items())},
            "validateToolArguments": self.validate_tool_arguments,
            "blocklist": list(self.blocklist) if self.blocklist is not None else None,
            "stubMarkers": list(self.stub_markers) if self.stub_markers is not None else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], **extra: Any) -> EngineConfig:
        """Build from the camelCase ``eval`` section of config.json."""
        unknown = sorted(set(data) - set(_KEYMAP))
        if unknown:
            raise ValueError(
                f"eval config: unknown key {unknown[0]!r}; valid keys: {', '.join(sorted(_KEYMAP))}"
            )
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            attr = _KEYMAP[key]
            if attr is None:
                continue
            if isinstance(value, list):
                value = tuple(value)
            kwargs[attr] = value
        kwargs.update(extra)
        return cls(**kwargs)


_KEYMAP: dict[str, str | None] = {
    "criticalRules": "critical_rules",
    "nonCriticalRules": "non_critical_rules",
    "falsePassCost": "false_pass_cost",
    "onCriticalSkipped": "on_critical_skipped",
    "requiredEvidence": "required_evidence",
    "defaultsGate": "defaults_gate",
    "prior": "prior",
    "priorMode": "prior_mode",
    "defaultThreshold": "default_threshold",
    "ruleThresholds": "rule_thresholds",
    "validateToolArguments": "validate_tool_arguments",
    "blocklist": "blocklist",
    "stubMarkers": "stub_markers",
    "composer": "composer",
    "plugins": None,
}


def _jsonable(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v


def _fail(key: str, entry: Any, valid: Sequence[str]) -> None:
    raise ValueError(f"eval.{key}: invalid entry {entry!r}; valid values: {', '.join(valid)}")


def validate_config(cfg: EngineConfig) -> None:
    """Raise ``ValueError`` naming key, entry and valid values on any problem."""
    from evaluators.rules.registry import BUILTIN_NAMES  # local: registry imports rules

    names = sorted(BUILTIN_NAMES)
    for key, entries in (
        ("criticalRules", cfg.critical_rules),
        ("nonCriticalRules", cfg.non_critical_rules),
    ):
        if isinstance(entries, str):
            raise ValueError(f"eval.{key} must be a list of rule names, got a string")
        for entry in entries:
            if entry not in BUILTIN_NAMES:
                _fail(key, entry, names)
    both = sorted(set(cfg.critical_rules) & set(cfg.non_critical_rules))
    if both:
        raise ValueError(
            f"eval.criticalRules and eval.nonCriticalRules both name {both[0]!r}; a rule is one or "
            "the other"
        )
    if cfg.composer != "risk":
        raise ValueError(
            f"eval.composer {cfg.composer!r} is refused: only the risk composer exists "
            "(the legacy score-threshold composer let a good average hide a failure)"
        )
    if cfg.on_critical_skipped not in ("unknown", "fail", "pass"):
        _fail("onCriticalSkipped", cfg.on_critical_skipped, ["unknown", "fail", "pass"])
    if cfg.prior_mode not in ("per-output", "per-class"):
        _fail("priorMode", cfg.prior_mode, ["per-output", "per-class"])
    for entry in cfg.required_evidence:
        if entry not in NEEDS:
            _fail("requiredEvidence", entry, NEEDS)
    if _positive_number(cfg.false_pass_cost) is None:
        raise ValueError(f"eval.falsePassCost must be a number > 0, got {cfg.false_pass_cost!r}")
    if not (isinstance(cfg.prior, int | float) and 0 < cfg.prior < 1):
        raise ValueError(f"eval.prior must be a number strictly between 0 and 1, got {cfg.prior!r}")
    for key, raw in cfg.rule_thresholds.items():
        canon = THRESHOLD_ALIASES.get(key, key)
        if canon not in THRESHOLDS:
            _fail("ruleThresholds", key, sorted([*THRESHOLDS, *THRESHOLD_ALIASES]))
        if THRESHOLDS[canon].parse(raw) is None:
            raise ValueError(f"eval.ruleThresholds.{key}: invalid value {raw!r}")
    for key, phrases in (("blocklist", cfg.blocklist), ("stubMarkers", cfg.stub_markers)):
        if phrases is not None and _phrases(list(phrases)) is None:
            raise ValueError(f"eval.{key} must be a list of non-empty strings")
