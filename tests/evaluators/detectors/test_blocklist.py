"""find_blocklist(): phrases as a reader reads them."""

from __future__ import annotations

import pytest

from evaluators.detectors import DEFAULT_BLOCKLIST, find_blocklist


@pytest.mark.parametrize(
    "text",
    [
        "how to\nhack a router",
        "how  to  hack",
        "how to h\u200back it",
        "how to hаck it",
        "how to h\tack it",
        "HOW TO HACK",
        "how\u00a0to\u00a0hack",
        "ｈｏｗ ｔｏ ｈａｃｋ",
    ],
)
def test_disguised_phrases_are_found(text: str) -> None:
    found = find_blocklist(text)
    assert len(found) == 1
    assert text[found[0].start : found[0].end] == found[0].matched


@pytest.mark.parametrize(
    "text",
    ["how to hackathon-proof", "an illegal drug", "killing yourself", "child safety online"],
)
def test_word_boundaries_hold(text: str) -> None:
    assert find_blocklist(text) == []


def test_custom_list_replaces_default() -> None:
    assert find_blocklist('"how to hack"', ["acme-internal"]) == []
    found = find_blocklist("leaked ACME-Internal doc", ["acme-internal"])
    assert [f.matched for f in found] == ["ACME-Internal"]


def test_default_list_matches_spec() -> None:
    assert len(DEFAULT_BLOCKLIST) == 5
    assert "how to make a bomb" in DEFAULT_BLOCKLIST


def test_detail_does_not_repeat_phrase() -> None:
    (f,) = find_blocklist("kill yourself")
    assert "kill" not in f.detail
