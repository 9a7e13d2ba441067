"""Validation of custom-rule definitions (SPEC §9.2, §9.5).

``validate_definition`` is what deploy calls: it raises
:class:`InvalidRuleConfig` (mapped to ``IRIS_INVALID_RULE_CONFIG``) naming the
field. Inline rules use the same check but a broken one *skips* as
``config_invalid`` instead of raising, as SPEC §9.2 requires.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from evaluators.custom.action_policy import validate_policy
from evaluators.custom.regex import RegexRefused, compile_user_pattern

CUSTOM_TYPES: tuple[str, ...] = (
    "regex_match",
    "regex_no_match",
    "min_length",
    "max_length",
    "contains_keywords",
    "excludes_keywords",
    "json_schema",
    "cost_threshold",
    "action_policy",
)
EVAL_TYPES: tuple[str, ...] = ("completeness", "relevance", "safety", "cost", "custom")
SEVERITIES: tuple[str, ...] = ("low", "medium", "high", "critical")


class InvalidRuleConfig(ValueError):
    """A definition this version refuses; ``field`` names the offending key."""

    code = "IRIS_INVALID_RULE_CONFIG"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class CustomRuleDef:
    """A validated custom rule, inline or deployed.

    Inline rules (``origin="inline"``) have no severity and always advise;
    deployed rules gate at severity high/critical (SPEC §9.1).
    """

    name: str
    type: str
    config: Mapping[str, Any]
    weight: float = 1.0
    origin: str = "inline"
    severity: str | None = None
    eval_type: str = "custom"
    rule_id: str | None = None
    enabled: bool = True
    description: str | None = None
    compiled: Any = field(default=None, compare=False, repr=False)

    @property
    def critical(self) -> bool:
        return self.origin != "inline" and self.severity in ("high", "critical")

    def canonical(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "config": dict(self.config),
            "weight": self.weight,
            "severity": self.severity,
            "evalType": self.eval_type,
        }


def _number(
    config: Mapping[str, Any], key: str, *, minimum: float = 0, strict: bool = False
) -> float:
    v = config.get(key)
    if (
        isinstance(v, bool)
        or not isinstance(v, int | float)
        or not math.isfinite(v)
        or v < minimum
        or (strict and v <= minimum)
    ):
        bound = f"> {minimum:g}" if strict else f"≥ {minimum:g}"
        raise InvalidRuleConfig(f"config.{key}", f"required number {bound}, got {v!r}")
    return float(v)


def _keywords(config: Mapping[str, Any]) -> list[str]:
    kw = config.get("keywords")
    if not isinstance(kw, list) or not kw or not all(isinstance(k, str) and k for k in kw):
        raise InvalidRuleConfig("config.keywords", "required non-empty list of non-empty strings")
    return kw


def _check_config(rtype: str, config: Mapping[str, Any]) -> tuple[Mapping[str, Any], Any]:
    """Return (canonical config, compiled artefact)."""
    cfg = dict(config)
    if rtype in ("regex_match", "regex_no_match"):
        if "pattern" not in cfg:
            raise InvalidRuleConfig("config.pattern", "required")
        try:
            return cfg, compile_user_pattern(cfg["pattern"], cfg.get("flags"))
        except RegexRefused as exc:
            raise InvalidRuleConfig("config.pattern", str(exc)) from None
    if rtype in ("min_length", "max_length"):
        if rtype not in cfg and "length" in cfg:  # legacy alias on read
            cfg[rtype] = cfg.pop("length")
        _number(cfg, rtype, minimum=0)
        return cfg, None
    if rtype == "contains_keywords":
        _keywords(cfg)
        if "threshold" in cfg:
            t = _number(cfg, "threshold", minimum=0)
            if t > 1:
                raise InvalidRuleConfig("config.threshold", f"must be within 0..1, got {t:g}")
        return cfg, None
    if rtype == "excludes_keywords":
        _keywords(cfg)
        return cfg, None
    if rtype == "json_schema":
        schema = cfg.get("schema")
        if schema is None:
            return cfg, None
        if not isinstance(schema, dict):
            raise InvalidRuleConfig("config.schema", "must be a JSON Schema object")
        try:
            cls = jsonschema.validators.validator_for(
                schema, default=jsonschema.Draft202012Validator
            )
            cls.check_schema(schema)
        except jsonschema.SchemaError as exc:
            raise InvalidRuleConfig(
                "config.schema", f"schema does not compile: {exc.message}"
            ) from None
        return cfg, cls(schema)
    if rtype == "cost_threshold":
        _number(cfg, "max_cost", minimum=0)
        return cfg, None
    if rtype == "action_policy":
        problem = validate_policy(cfg)
        if problem:
            raise InvalidRuleConfig(
                f"config.{problem.split(' ')[0]}", f"invalid or missing: {problem}"
            )
        return cfg, None
    raise InvalidRuleConfig(
        "type", f"unknown type {rtype!r}; valid types: {', '.join(CUSTOM_TYPES)}"
    )


def validate_definition(defn: Mapping[str, Any], *, origin: str = "deployed") -> CustomRuleDef:
    """Validate an inline rule ``{name, type, config, weight}`` or a deployed
    entry ``{name, evalType, severity, definition: {type, config, weight?}}``."""
    if not isinstance(defn, Mapping):
        raise InvalidRuleConfig("definition", "must be an object")
    inner = defn.get("definition") if isinstance(defn.get("definition"), Mapping) else defn
    assert isinstance(inner, Mapping)
    name = defn.get("name", inner.get("name"))
    if not isinstance(name, str) or not name.strip() or len(name) > 80:
        raise InvalidRuleConfig("name", "required string of 1–80 characters")
    rtype = inner.get("type")
    if not isinstance(rtype, str):
        raise InvalidRuleConfig("type", f"required; valid types: {', '.join(CUSTOM_TYPES)}")
    config = inner.get("config")
    if not isinstance(config, Mapping):
        raise InvalidRuleConfig("config", "required object")
    weight = inner.get("weight", defn.get("weight", 1))
    if (
        isinstance(weight, bool)
        or not isinstance(weight, int | float)
        or not math.isfinite(weight)
        or weight <= 0
    ):
        raise InvalidRuleConfig("weight", f"must be a number > 0, got {weight!r}")
    canon, compiled = _check_config(rtype, config)
    severity = eval_type = None
    if origin != "inline":
        severity = defn.get("severity", "medium")
        if severity not in SEVERITIES:
            raise InvalidRuleConfig("severity", f"must be one of {', '.join(SEVERITIES)}")
        eval_type = defn.get("evalType", defn.get("eval_type", "custom"))
        if eval_type not in EVAL_TYPES:
            raise InvalidRuleConfig("evalType", f"must be one of {', '.join(EVAL_TYPES)}")
    return CustomRuleDef(
        name=name,
        type=rtype,
        config=canon,
        weight=float(weight),
        origin=origin,
        severity=severity,
        eval_type=eval_type or "custom",
        rule_id=defn.get("id"),
        enabled=bool(defn.get("enabled", True)),
        description=defn.get("description"),
        compiled=compiled,
    )


def revalidate(
    stored_entries: Iterable[Mapping[str, Any]],
) -> tuple[list[CustomRuleDef], list[dict[str, Any]]]:
    """Split a store into runnable rules and quarantined entries (with reason).

    Quarantined entries are returned verbatim plus ``reason``; callers keep
    them in the store — a deploy never deletes them (SPEC §9.5).
    """
    valid: list[CustomRuleDef] = []
    quarantined: list[dict[str, Any]] = []
    for entry in stored_entries:
        try:
            valid.append(validate_definition(entry, origin="deployed"))
        except InvalidRuleConfig as exc:
            quarantined.append({**dict(entry), "reason": str(exc)})
        except Exception as exc:  # a store entry must never take the engine down
            quarantined.append({**dict(entry), "reason": f"unreadable entry: {exc}"})
    return valid, quarantined
