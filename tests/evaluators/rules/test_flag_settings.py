"""The material's flag settings: the linear-time scan finds what the plain searches found."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.rules.hallucination_grounded import _flag_settings

# The three searches as first written (the assignment form is quadratic in the
# length of a run of word characters; fine on the short texts generated here).
_PLAIN = (
    re.compile(
        r"\"(?P<key>[A-Za-z][\w-]*)\"\s*:\s*\{[^{}]{0,200}?\"enabled\"\s*:\s*(?P<val>true|false)",
        re.I,
    ),
    re.compile(
        r"\"?(?P<key>[A-Za-z][\w.-]*)\"?\s*[:=]\s*\"?(?P<val>true|false|on|off|enabled|disabled)\b",
        re.I,
    ),
    re.compile(r"\b(?P<key>[A-Za-z][\w]*)\s*\(default:\s*(?P<val>true|false|on|off)\)", re.I),
)


def _plain(text: str) -> list[tuple[str, str]]:
    return [(m.group("key"), m.group("val")) for rx in _PLAIN for m in rx.finditer(text)]


pieces = st.sampled_from(
    [
        "a", "Z", "x1", "1", "_", ".", "-", '"', ":", "=", " ", "\n", "true", "False", "on",
        "OFF", "enabled", "disabled", "é", "ſ", "\u212a", "٣", "{", "}", "(default: on)",
        "flag", "key.name", "123", "ON", "é1",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=40).map("".join)


@given(texts)
@example("a:true.a:true")  # a key right after the previous setting's value
@settings(max_examples=2000, deadline=None)
def test_same_settings_as_the_plain_searches(text: str) -> None:
    assert list(_flag_settings(text)) == _plain(text)


def test_known_forms() -> None:
    text = (
        '{"beta": {"x": 1, "enabled": false}} cache.enabled = on, '
        '"1retries": "off", mode (default: true)'
    )
    found = list(_flag_settings(text))
    assert found == _plain(text)
    for setting in [
        ("beta", "false"),
        ("cache.enabled", "on"),
        ("retries", "off"),
        ("mode", "true"),
    ]:
        assert setting in found


def test_a_long_run_of_word_characters_is_scanned_once() -> None:
    # Quadratic before (~10^10 steps here); one pass now.
    assert list(_flag_settings("deadbeef" * 25_000 + " and done")) == []
