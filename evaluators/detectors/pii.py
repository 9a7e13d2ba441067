"""``no_pii`` detector: personal data and credentials in the raw output.

Runs every personal-data and secret scanner over the normalised view, keeps a
non-overlapping set (specific detectors outrank generic ones), and maps spans
back to the raw text. Which gate literals of either family occur in the text
is found once, in one pass of the C module when it is built.
"""

from __future__ import annotations

from collections.abc import Callable

from evaluators.detectors import personal, secrets
from evaluators.detectors.findings import Finding, finalize, normalized
from evaluators.detectors.personal import find_personal_candidates
from evaluators.detectors.secrets import find_secret_candidates
from evaluators.text.literals import LiteralSet
from evaluators.text.normalize import NormalizedText

# Every gate literal of the personal-data and secret detectors.
_GATE_LITERALS: tuple[str, ...] = tuple(sorted({*personal.GATE_LITERALS, *secrets.GATE_LITERALS}))
# The same literals compiled once (LiteralSet's kernel): ``_piikernel.present``
# answers the same set but builds its tables on every call.
_GATE_SET = LiteralSet(_GATE_LITERALS)

#: Coarse entity family for each finding kind (what a reader would call it).
ENTITY_OF_KIND: dict[str, str] = {
    "email": "email",
    "phone": "phone",
    "ssn": "ssn",
    "credit_card": "credit_card",
    "iban": "iban",
    "ip_address": "ip_address",
    "dob": "dob",
    "mrn": "mrn",
    "passport": "passport",
    "address": "address",
    "private_key": "private_key",
    "seed_phrase": "seed_phrase",
    "password": "password",
    "url_token": "url_token",
}


def entity_of(kind: str) -> str:
    """Entity family of a finding kind; vendor tokens and generic secrets are ``api_key``."""
    return ENTITY_OF_KIND.get(kind, "api_key")


def _raw_break_checker(norm: NormalizedText) -> Callable[[int, int], bool]:
    """Whether the raw text between two normalised offsets contains a line break."""

    def has_break(start: int, end: int) -> bool:
        s, e = norm.raw_span(start, end)
        return "\n" in norm.raw[s:e]

    return has_break


def find_pii(raw: str) -> list[Finding]:
    """Personal data and secrets in ``raw``: sorted by start, non-overlapping."""
    norm = normalized(raw)
    t = norm.text
    kernel = personal._piikernel
    if kernel is None:
        present = None
    elif _GATE_SET._matcher is not None:
        present = _GATE_SET.present(t)
    else:
        present = kernel.present(t, _GATE_LITERALS)
    cands = find_personal_candidates(t, present) + find_secret_candidates(
        t, _raw_break_checker(norm), present
    )
    return finalize(norm, cands)
