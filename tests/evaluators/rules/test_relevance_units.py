"""topic_consistency's sentence units and counts equal the plain way of taking them.

``_units`` splits blocks with ``str.split("\\n")`` where it used
``re.split(r"\\n")``, and ``_continuity`` counts the content sentences by
filtering out the empty term sets; both must give what the original loops
gave, on drawn text and on the bench cases.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.lexical.sentences import split_sentences
from evaluators.lexical.terms import content_term_sets, strip_fences
from evaluators.rules import relevance as r


def _units_reference(text: str) -> list[str]:
    body = strip_fences(text)
    units: list[str] = []
    for block in re.split(r"\n", body):
        if not block.strip():
            continue
        if r._LIST_ITEM.match(block) and units:
            units[-1] += " " + block
            continue
        for s, e in split_sentences(block):
            units.append(block[s:e])
    return units


def _counts_reference(units: list[str], topic: set[str]) -> tuple[int, int]:
    total = connected = 0
    for terms in content_term_sets(units):
        if not terms:
            continue
        total += 1
        if terms & topic:
            connected += 1
            topic |= terms
    return total, connected


pieces = st.sampled_from(
    [
        "The server", " stopped.", " Restart it", " now!", "\n", "\n\n", "\r\n", " - item",
        "\n- deploy the build", "\n2) check logs", "\n* ", "```code\nx = 1\n```", " ",
        "\u2028", "\x85", "İ", "é", "ß", " port 8080.", " Why?", "\t", "kernel", " and",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=30).map("".join)


@given(texts)
@settings(max_examples=300, deadline=None)
def test_units_equal_the_reference(text: str) -> None:
    assert r._units(text) == _units_reference(text)
    assert r._units(text, split_sentences(text)) == _units_reference(text)


@given(texts, st.sets(st.sampled_from(["server", "restart", "deploy", "port", "log"])))
@settings(max_examples=300, deadline=None)
def test_counts_equal_the_reference(text: str, topic: set[str]) -> None:
    units = r._units(text)
    content = list(filter(None, content_term_sets(units)))
    connected = 0
    grown = set(topic)
    for terms in content:
        if not grown.isdisjoint(terms):
            connected += 1
            grown |= terms
    assert (len(content), connected) == _counts_reference(units, set(topic))


field_terms = st.sampled_from([*sorted(r._FIELD_OF), "zebra", "lorem", "kernel", "x"])


@given(st.sets(field_terms, max_size=8), st.frozensets(field_terms, max_size=30))
@settings(max_examples=300, deadline=None)
def test_field_hits_equal_the_plain_count(ask: set[str], out: frozenset[str]) -> None:
    fields = {f for t in ask for f in r._FIELD_OF.get(t, ())}
    plain = (
        sum(1 for t in out - ask if any(f in fields for f in r._FIELD_OF.get(t, ())))
        if fields
        else 0
    )
    assert r._field_hits(ask, out) == plain
