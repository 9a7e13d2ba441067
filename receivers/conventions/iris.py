"""Iris's own ``iris.*`` attributes, which a sender sets to steer ingestion.

They outrank every other convention: a sender that says ``iris.input`` means it.
Read on the resource or the root span unless noted.
"""

from __future__ import annotations

VERSION = "1"

AGENT_NAME: tuple[str, ...] = ("iris.agent_name",)
INPUT: tuple[str, ...] = ("iris.input",)
OUTPUT: tuple[str, ...] = ("iris.output",)
COST_USD: tuple[str, ...] = ("iris.cost_usd",)
RUN: tuple[str, ...] = ("iris.run",)
CASE_KEY: tuple[str, ...] = ("iris.case_key",)
SESSION_ID: tuple[str, ...] = ("iris.session_id",)
EVALUATE: tuple[str, ...] = ("iris.evaluate",)
EVAL_TYPE: tuple[str, ...] = ("iris.eval_type",)
# Any span may carry it: "this trace is complete, evaluate now".
FINALIZE: tuple[str, ...] = ("iris.finalize",)
PROMPT_TOKENS: tuple[str, ...] = ("iris.prompt_tokens",)
COMPLETION_TOKENS: tuple[str, ...] = ("iris.completion_tokens",)
TOTAL_TOKENS: tuple[str, ...] = ("iris.total_tokens",)

# Strings a boolean iris attribute may arrive as.
TRUE_STRINGS: frozenset[str] = frozenset({"true", "1", "yes"})
FALSE_STRINGS: frozenset[str] = frozenset({"false", "0", "no"})
