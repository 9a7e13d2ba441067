"""Pure validation helpers shared by the PII and secret scanners.

Each check exists to turn a shape match into a claim a reviewer can trust:
checksums (Luhn, ISO 7064 mod-97), numbering rules (SSN), and a few cheap
tests that separate random key material from placeholders and prose.
"""

from __future__ import annotations

import math
from collections import Counter

from evaluators.text.case import lower

_PLACEHOLDER_MARKERS = (
    "xxxx",
    "****",
    "....",
    "…",
    "•",
    "your",
    "example",
    "placeholder",
    "redacted",
    "changeme",
    "dummy",
    "sample",
    "here",
    "<",
    ">",
    "${",
    "{{",
    "env(",
    "process.env",
    "getenv",
    "environ",
    "secrets.",
    "insert",
    "replace",
    "fake",
    "todo",
    "0000000",
)


def luhn_ok(digits: str) -> bool:
    """Luhn (mod 10) check used by every payment card number."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def iban_ok(iban: str) -> bool:
    """ISO 13616 / ISO 7064 mod-97 check on an upper-case IBAN without spaces."""
    moved = iban[4:] + iban[:4]
    acc = 0
    for ch in moved:
        if ch.isdigit():
            acc = (acc * 10 + ord(ch) - 48) % 97
        elif "A" <= ch <= "Z":
            acc = (acc * 100 + ord(ch) - 55) % 97
        else:
            return False
    return acc == 1


def ssn_ok(area: str, group: str, serial: str) -> bool:
    """SSA rules: area 000, 666 and 900-999, group 00 and serial 0000 are never issued."""
    a = int(area)
    return a != 0 and a != 666 and a < 900 and group != "00" and serial != "0000"


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def is_placeholder(value: str) -> bool:
    """Masked keys and documentation placeholders (``sk-xxxx…``, ``YOUR_TOKEN_HERE``)."""
    v = lower(value)
    if any(m in v for m in _PLACEHOLDER_MARKERS):
        return True
    return len(v) >= 8 and Counter(v).most_common(1)[0][1] > len(v) // 2


def looks_random(value: str, min_len: int = 16, min_entropy: float = 3.0) -> bool:
    """Key material: long enough, letters and digits mixed, not a placeholder."""
    if len(value) < min_len or is_placeholder(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    return has_digit and has_alpha and entropy(value) >= min_entropy


def char_classes(value: str) -> int:
    """How many of letters, digits and symbols appear (password strength proxy)."""
    return (
        any(c.isalpha() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )
