"""The anchored material scans of no_hallucination_markers change no result.

Each pattern below is tried only where one of its leading literals occurs
(or is skipped when none of the literals it needs occurs) instead of being
searched at every character. On any material, including the characters
``re.IGNORECASE`` folds onto ASCII letters, the anchored form must find what
the plain scan finds; and the reordered ``_false_success`` must flag exactly
what the plain order flags.
"""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.rules import hallucination_grounded as hg
from evaluators.text.starts import tried_at

pieces = st.sampled_from(
    [
        "HTTP/1.1 ", "HTTP ", "HTTP/2 404", "GET /a ", "POST /x 201", "→ 503", "→", "status: ",
        "status=", "status ", "Status: 200", "500", "404", "201", "2000", " ", "\n", "/x", "a",
        '"results": []', '"ITEMS" : [ ]', '"total": 0', '"count":0', "0 results", "0 Hits",
        '"hits"', "[", "]", "0", "do not ", "Don't ", "never ", "must not ", "should not ",
        "shouldn't ", "enable ", "Turn On ", "use ", "delete ", "the_flag", "`x-y`", "ok",
        "\u212a", "ſ", "İ", "é", "\u017ftatus: failed", "status: failed", '"error": "x"',
        "exit code: 2", "returncode=1", "FAILED", "\nFAILED", "3 failed", '"ok": false',
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=30).map("".join)


def _spans(found: Iterator[object]) -> list[tuple[int, int]]:
    return [m.span() for m in found]  # type: ignore[attr-defined]


@given(texts)
@example("GET →200 404")
@settings(max_examples=400, deadline=None)
def test_status_sources_tried_at_their_leads(material: str) -> None:
    anchored = tried_at(hg._STATUS_SOURCE, material, hg._occurrences(material, hg._STATUS_LEADS))
    assert _spans(anchored) == _spans(hg._STATUS_SOURCE.finditer(material))


@given(texts)
@settings(max_examples=400, deadline=None)
def test_prohibitions_tried_at_their_leads(material: str) -> None:
    mat = hg.Material.build(material)
    plain = [m.group(0, "verb", "obj") for m in hg._PROHIBITION.finditer(mat.text)]
    if mat.text.isascii():
        places = hg._occurrences(mat.lower, hg._PROHIBITION_LEADS)
        got = [m.group(0, "verb", "obj") for m in tried_at(hg._PROHIBITION, mat.text, places)]
        assert got == plain


@given(texts)
@settings(max_examples=400, deadline=None)
def test_empty_result_literals_gate_the_search(material: str) -> None:
    if material.isascii() and hg._EMPTY_RESULT.search(material):
        assert hg._any_in_reference(material.lower(), hg._EMPTY_RESULT_LITERALS)


def _false_success_plain(out: str, mat: hg.Material) -> list[hg.Signal]:
    """The signal in its first order: every reason, then acknowledgement, then claim."""
    reasons = [why for rx, why in hg._FAILURE_EVIDENCE if rx.search(mat.text)]
    if not reasons or hg._FAILURE_ACK.search(hg._DENIAL.sub(" ", out)):
        return []
    claim = hg._SUCCESS_CLAIM.pattern.search(out)
    if claim is None:
        return []
    s, e = claim.start(), claim.end()
    while s < e and not out[s].isalnum():
        s += 1
    return [("success_over_failure", s, e, f"claims success while {reasons[0]}")]


outputs = st.lists(
    st.sampled_from(
        [
            "Done.", "All set", "i've updated it", "All green", "no errors", "No 5xx", "failed",
            "couldn't", "the build passed", " ", "\n", ".", "x", "500", "ſ", "\u212a",
            "I set", "I've sent", "i have set", "I successfully set", "cancelled", "I ",
            "you're all set", "safe to merge", "no backend failures", "Success", "sent", "set",
        ]
    ),
    max_size=12,
).map("".join)  # fmt: skip


@given(texts, outputs)
@example("status: failed", "Done. All set")
@example("exit code: 2", "Done, no errors")
@settings(max_examples=400, deadline=None)
def test_false_success_reordered_flags_the_same(material: str, output: str) -> None:
    mat = hg.Material.build(material)
    if not hg._any_in_reference(mat.lower, hg._FAILURE_HINTS):
        assert list(hg._false_success(output, mat)) == []
        return
    assert list(hg._false_success(output, mat)) == _false_success_plain(output, mat)


attribution_texts = st.lists(
    st.sampled_from(
        [
            "per the", "according to the", "as the ", "as the team says", "from the ",
            "from the docs", "the report says", "the doc", "the docs states", "the logs show",
            "the documentation notes", "the audit confirms", "the ", "verbatim", "if memory serves",
            "if i remember", " says", " shows", "the", "as", "x", " ", ".", "\n", "_", "-",
        ]
    ),
    max_size=20,
).map("".join)  # fmt: skip


@given(attribution_texts)
@example("as the report says")
@settings(max_examples=400, deadline=None)
def test_attribution_cues_tried_at_their_leads(output: str) -> None:
    low = output.lower()
    places = hg._occurrences(low, hg._ATTRIBUTION_LEADS)
    anchored = tried_at(hg._ATTRIBUTION_LOWER, low, places)
    assert _spans(anchored) == _spans(hg._ATTRIBUTION_LOWER.finditer(low))


claims = st.lists(
    st.sampled_from(
        [
            "Done", "ALL SET", "you're all set", "Success", "I ", "I've ", "I have ", "i",
            "successfully ", "updated", "Deleted", "removed", "created", "sent", "changed", "set",
            "added", "moved", "cleaned", "cancelled", "canceled", "applied", "merged", "deployed",
            "migrated", "fixed", "all green", "All 3 tests passed", "the suite is green",
            "build succeeded", "safe to merge", "in good standing", "no payment issues",
            "No server-side errors", "no 5xx failures at all", "completed successfully",
            "went through", "nothing failed", "no action needed", " ", "\n", ".", "!", "x",
            "\u212a", "ſ", "İ",
        ]
    ),
    max_size=16,
).map("".join)  # fmt: skip


@given(claims)
@example("I set it")
@example("\nDone")
@settings(max_examples=600, deadline=None)
def test_success_claim_literals_gate_the_search(output: str) -> None:
    """Every success claim holds one of the literals the signal gates on."""
    if hg._SUCCESS_CLAIM.search(output) is not None:
        assert not hg._cannot_match(output, hg._SUCCESS_CLAIM_SET)
        if output.isascii():
            assert hg._any_in_reference(output.lower(), hg._SUCCESS_CLAIM_LITERALS)


status_claims = st.lists(
    st.sampled_from(
        [
            "returns", "Returned ", "returning", "responds with", "respond with", "HTTP", "http",
            "status", "Status code", "gives", "gave", "Got", "an ", "the ", "a ", " ", "\t", "\n",
            "200", "404", "503", "5000", "ms", "x", "\u212a", "ſ", "İ", "RETURN",
        ]
    ),
    max_size=12,
).map("".join)  # fmt: skip


@given(status_claims)
@example("returned 404")
@settings(max_examples=600, deadline=None)
def test_status_claim_words_gate_the_search(output: str) -> None:
    """Every status claim holds one of the words the signal gates on."""
    if hg._STATUS_CLAIM.search(output) is not None:
        assert not hg._cannot_match(output, hg._STATUS_CLAIM_SET)


absence_texts = st.lists(
    st.sampled_from(
        [
            "don't", "DON'T", "doesn't", "does not", "Do Not", "never", "NEVER", "do", "dont",
            "don’t", " mention", " include", " list", " cover", " talk about", " any ", " the ",
            "budget decision", "a", " ", ",", ".", "\n", " - ", "—", "x", "ſ", "\u212a", "_",
        ]
    ),
    max_size=16,
).map("".join)  # fmt: skip


@given(absence_texts)
@example("The notes don't mention a budget decision.")
@example("It never lists the-price and DOES NOT cover any refund policy; ok")
@settings(max_examples=400, deadline=None)
def test_absence_claims_tried_at_their_leads(output: str) -> None:
    bare = hg._ABSENCE_CLAIM.pattern.replace("(?P<", "(")
    assert bare == bare.lower()  # the twin's condition (see lowered_twin)
    got = [(m.span(), m.group("what").lower()) for m in hg._absence_claims(output, output.lower())]
    plain = [(m.span(), m.group("what").lower()) for m in hg._ABSENCE_CLAIM.finditer(output)]
    assert got == plain
