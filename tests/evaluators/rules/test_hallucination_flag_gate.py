"""The flag signal's start gate changes nothing.

``_booleans`` tries a flag key's pattern only where its first word occurs
and the pattern's ``(?<![\\w-])`` holds (``_key_starts``), and builds no
pattern when there is no such place. It is checked against the same signal
tried at every occurrence of the word, on texts drawn from pieces (keys,
separators, word characters of several scripts, polarity words) and on the
bench cases; ``_key_starts`` itself against the lookbehind run by ``re``.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.rules import hallucination_grounded as hg
from tests.support.texts import bench_cases


def _every_occurrence(text: str, word: str) -> list[int]:
    found: list[int] = []
    i = text.find(word)
    while i >= 0:
        found.append(i)
        i = text.find(word, i + 1)
    return found


def _ungated(out: str, mat: hg.Material) -> list[hg.Signal]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(hg, "_key_starts", _every_occurrence)
        return list(hg._booleans(out, mat))


pieces = st.sampled_from(
    [
        "ok", "OK", "tok", "look", "-ok", "_ok", "ok_", "é", "٣", "ok-x", "cache", "cache_ttl",
        "cache ttl", "cache.ttl", "dark_mode", "dark mode", "darkmode", "feature", "x", "1",
        ": ", "=", '"', " ", "\n", "true", "false", "on", "off", "enabled", "disabled", "is ",
        "not ", "is not ", "was ", "{", "}", ", ", "(default: on)", "ſ", "İ",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=24).map("".join)


@given(texts, texts)
@example("ok is false; tok is true", '{"ok": true}')
@example("dark mode is off and cache-ttl on", "dark_mode=on\ncache_ttl: off")
@settings(max_examples=800, deadline=None)
def test_the_flag_gate_changes_nothing(out: str, material: str) -> None:
    mat = hg.Material.build(material)
    hg._remember_lowered(out, out.lower())
    assert list(hg._booleans(out, mat)) == _ungated(out, mat)


def test_the_flag_gate_changes_nothing_on_the_bench_cases() -> None:
    for case in bench_cases():
        extra = [str(c.output) for c in case.tool_calls or ()]
        mat = hg.Material.build(case.input or "", extra)
        assert list(hg._booleans(case.output, mat)) == _ungated(case.output, mat)


@given(st.text(max_size=60), st.sampled_from(["ok", "a", "é", "-", "ſt", "x y"]))
@example("ok tok -ok _ok éok ٣ok ok", "ok")
@settings(max_examples=800, deadline=None)
def test_key_starts_are_where_the_lookbehind_holds(text: str, word: str) -> None:
    rx = re.compile(r"(?<![\w-])(?=" + re.escape(word) + ")")
    assert hg._key_starts(text, word) == [m.start() for m in rx.finditer(text)]


def test_a_contradicted_flag_is_still_flagged() -> None:
    mat = hg.Material.build('config:\n{"dark_mode": true}\nmore\n')
    found = list(hg._booleans("Dark mode is off by default.", mat))
    assert [s[0] for s in found] == ["flag_contradicts_material"]
