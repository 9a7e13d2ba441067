"""Iris's own ``iris.*`` attributes, which a sender sets to steer ingestion.

They outrank every other convention: a sender that says ``iris.input`` means it.
Read on the resource or the root span unless noted.
"""

from __future__ import annotations

from typing import Final

VERSION: Final = "1"

AGENT_NAME: Final[tuple[str, ...]] = ("iris.agent_name",)
INPUT: Final[tuple[str, ...]] = ("iris.input",)
OUTPUT: Final[tuple[str, ...]] = ("iris.output",)
COST_USD: Final[tuple[str, ...]] = ("iris.cost_usd",)
RUN: Final[tuple[str, ...]] = ("iris.run",)
CASE_KEY: Final[tuple[str, ...]] = ("iris.case_key",)
SESSION_ID: Final[tuple[str, ...]] = ("iris.session_id",)
EVALUATE: Final[tuple[str, ...]] = ("iris.evaluate",)
EVAL_TYPE: Final[tuple[str, ...]] = ("iris.eval_type",)
# Any span may carry it: "this trace is complete, evaluate now".
FINALIZE: Final[tuple[str, ...]] = ("iris.finalize",)
PROMPT_TOKENS: Final[tuple[str, ...]] = ("iris.prompt_tokens",)
COMPLETION_TOKENS: Final[tuple[str, ...]] = ("iris.completion_tokens",)
TOTAL_TOKENS: Final[tuple[str, ...]] = ("iris.total_tokens",)

# Strings a boolean iris attribute may arrive as.
TRUE_STRINGS: Final[frozenset[str]] = frozenset({"true", "1", "yes"})
FALSE_STRINGS: Final[frozenset[str]] = frozenset({"false", "0", "no"})
