"""The literal gates and inlined tests of the grounded rule change no result.

``_failure_reasons`` searches a failure-evidence pattern only where its
literals occur; ``_loose`` inlines ``_is_year`` and ``grounds_once``. Both
must equal the plain forms on any material, including the characters that
``re.IGNORECASE`` folds onto ASCII letters (KELVIN SIGN, long s, dotted I).
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.rules import hallucination_grounded as hg

pieces = st.sampled_from(
    [
        '"success": false', '"OK" : FALSE', '"error": "boom"', "3 failed", "1 ERRORS", "FAILED",
        "\nFAILED x", "failed", "status: failed", "STATE=declined", "result: ok",
        "last_payment_result: past_due", "exit code: 2", "EXITCODE=1", "returncode: 3",
        "GET /x 503", "HTTP/1.1 500", "→ 502", "POST", "5", " ", "\n", "\u212a", "ſ", "İ",
        "ı", "é", "\u017ftatus: failed", "\u212aey", "1999", "2020", "12", "1,999", "3.5",
        "%", "k", "about ", "ms", "x",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=30).map("".join)


@given(texts)
@example("ſtatus: failed and EXIT CODE: 1")
@settings(max_examples=800, deadline=None)
def test_failure_reasons_equal_the_plain_searches(material: str) -> None:
    mat = hg.Material.build(material)
    plain = [why for rx, why in hg._FAILURE_EVIDENCE if rx.search(mat.text)]
    assert hg._failure_reasons(mat) == plain


@given(texts, texts)
@settings(max_examples=800, deadline=None)
def test_loose_equals_the_plain_filter(material: str, output: str) -> None:
    mat = hg.Material.build(material)
    nums = hg.numbers(output)
    plain = [n for n in nums if not n.approx and not hg._is_year(n) and not mat.grounds(n)]
    assert hg._loose(nums, hg.Material.build(material)) == plain
