"""The stand-in text keeps every class ``re`` distinguishes and RE2 does not."""

from __future__ import annotations

import re

import pytest

from evaluators.text import linear


def test_the_fold_table_is_complete() -> None:
    # Every non-ASCII code point re.I matches to an ASCII letter, and which.
    found = {}
    for code in range(128, 0x110000):
        ch = chr(code)
        if re.match("[a-z]", ch, re.I):
            found[ch] = next(a for a in "abcdefghijklmnopqrstuvwxyz" if re.match(a, ch, re.I))
    assert found == linear._FOLDS


def test_re_only_whitespace_is_complete() -> None:
    ascii_space = {chr(c) for c in range(128) if re.match(r"\s", chr(c))}
    assert ascii_space - set("\t\n\x0c\r ") == set(linear._RE_ONLY_SPACE)


@pytest.mark.parametrize(
    "src",
    [r"[a-f]+", r"x$", r"(?<!a)b", r"(?=a)", "é", r"\fx", r"[0-9]\d", r"[\x20-\x7e]", r"a*"],
    ids=repr,
)
def test_patterns_outside_the_reasoning_are_refused(src: str) -> None:
    with pytest.raises(ValueError):
        linear.LinearPattern(re.compile(src))


def test_stand_ins_keep_offsets_and_read_groups_from_the_original() -> None:
    rx = linear.LinearPattern(re.compile(r"(?P<w>\w+)\s+(\d+)", re.I))
    text = "é ſtraße\u2003٣٤ x"
    [m] = list(rx.finditer(text))
    plain = re.search(r"(?P<w>\w+)\s+(\d+)", text, re.I)
    assert plain is not None
    assert m.span() == plain.span() and m.group("w") == "ſtraße" and m.group(2) == "٣٤"
