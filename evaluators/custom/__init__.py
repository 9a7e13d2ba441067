"""Custom rules: the eight definition types of SPEC §9.2 plus ``action_policy``."""

from evaluators.custom.definition import (
    CustomRuleDef,
    InvalidRuleConfig,
    revalidate,
    validate_definition,
)

__all__ = ["CustomRuleDef", "InvalidRuleConfig", "revalidate", "validate_definition"]
