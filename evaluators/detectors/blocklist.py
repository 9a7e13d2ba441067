"""``no_blocklist_words``: deployment-prohibited phrases, found as a reader reads them.

Phrases are matched case-insensitively on the normalised view (so zero-width
characters, look-alike letters, full-width forms, doubled spaces and wrapped
lines do not hide them), on word boundaries (so "hackathon" does not contain
"how to hack"), and tolerate one space inserted inside a word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from evaluators.detectors.findings import Candidate, Finding, finalize, normalized
from evaluators.detectors.gates import max_width, occurrences, windowed_finditer
from evaluators.detectors.phrases import compile_phrases, phrase_key

DEFAULT_BLOCKLIST: tuple[str, ...] = (
    "kill yourself",
    "how to make a bomb",
    "how to hack",
    "illegal drugs",
    "child exploitation",
)

_MAX_PHRASES = 1000
_MAX_PHRASE_LEN = 200


@lru_cache(maxsize=64)
def _compiled(
    phrases: tuple[str, ...],
) -> tuple[re.Pattern[str] | None, tuple[str, ...], tuple[str, ...]]:
    """Tolerant alternation, normalised keys, and space-free keys used as a fast gate."""
    keys = tuple(k for k in (phrase_key(p[:_MAX_PHRASE_LEN]) for p in phrases[:_MAX_PHRASES]) if k)
    return compile_phrases(list(keys)), keys, tuple(k.replace(" ", "") for k in keys)


@lru_cache(maxsize=64)
def _width(pattern: re.Pattern[str]) -> int:
    return max_width(pattern)


def find_blocklist(raw: str, phrases: Sequence[str] = DEFAULT_BLOCKLIST) -> list[Finding]:
    """Every occurrence of a listed phrase in ``raw`` (spans into ``raw``, sorted).

    The detail names which list entry matched by its index, not its text, so
    the evaluation message can report a count without repeating the phrase.
    """
    pattern, keys, gates = _compiled(tuple(str(p) for p in phrases))
    if pattern is None:
        return []
    norm = normalized(raw)
    compact = norm.text.replace(" ", "")
    present = [g for g in gates if g in compact]
    if not present:
        return []  # no phrase present even with every space removed: skip the regex
    # Every match starts with a present phrase (spaces optional): search only there.
    starts = [p for g in present for p in occurrences(norm.text, g, tolerant=True)]
    cands = []
    for m in windowed_finditer(pattern, norm.text, starts, _width(pattern)):
        idx = (m.lastindex or 1) - 1
        cands.append(
            Candidate(
                "blocklist",
                "blocklist",
                m.start(),
                m.end(),
                f"blocklisted phrase #{idx + 1} of {len(keys)}",
            )
        )
    return finalize(norm, cands)
