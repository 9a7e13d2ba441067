"""The literal gates and inlined tests of the grounded rule change no result.

``_failure_reasons`` searches a failure-evidence pattern only where its
literals occur; ``_loose`` inlines ``_is_year`` and ``grounds_once``. Both
must equal the plain forms on any material, including the characters that
``re.IGNORECASE`` folds onto ASCII letters (KELVIN SIGN, long s, dotted I).
"""

from __future__ import annotations

import pytest
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
@settings(max_examples=400, deadline=None)
def test_failure_reasons_equal_the_plain_searches(material: str) -> None:
    mat = hg.Material.build(material)
    plain = [why for rx, why in hg._FAILURE_EVIDENCE if rx.search(mat.text)]
    assert hg._failure_reasons(mat) == plain


@given(texts, texts)
@settings(max_examples=400, deadline=None)
def test_loose_equals_the_plain_filter(material: str, output: str) -> None:
    mat = hg.Material.build(material)
    nums = hg.numbers(output)
    plain = [n for n in nums if not n.approx and not hg._is_year(n) and not mat.grounds(n)]
    assert hg._loose(nums, hg.Material.build(material)) == plain
    assert hg._loose_reference(nums, hg.Material.build(material)) == plain


def test_loose_falls_back_and_checks_its_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    mat = hg.Material.build("Revenue was 12,480 in 2024 and 30 days")
    nums = hg.numbers("about 14,280 in 2024, 31 days, 12,480 and 7 %")
    built = hg._loose(nums, mat)
    assert [n.digits for n in built] == ["31", "7"]  # an estimate, a year, a stated figure out
    monkeypatch.setattr(hg, "_numkernel", None)
    assert hg._loose(nums, hg.Material.build("Revenue was 12,480 in 2024 and 30 days")) == built
    kernel = pytest.importorskip("evaluators.rules._numkernel")
    with pytest.raises(TypeError):
        kernel.loose([(1.0,)], {}, mat.grounds)
    with pytest.raises(TypeError):
        kernel.loose(nums, [], mat.grounds)


def _plain_dates(text: str) -> list[hg.DateClaim]:
    """``dates`` as first written: the three patterns' plain finditer."""
    found: list[hg.DateClaim] = []
    for rx in (hg._DATE_NAMED, hg._DATE_DAY_FIRST):
        for m in rx.finditer(text):
            day = int(m.group("day"))
            if 1 <= day <= 31 and m.group("mon").lower() in hg._MONTHS:
                y = m.group("year")
                mon = hg._MONTHS[m.group("mon").lower().rstrip(".")]
                found.append(hg.DateClaim(int(y) if y else None, mon, day, m.start(), m.end()))
    for m in hg._DATE_ISO.finditer(text):
        mon, day = int(m.group("mon")), int(m.group("day"))
        if 1 <= mon <= 12 and 1 <= day <= 31:
            found.append(hg.DateClaim(int(m.group("year")), mon, day, m.start(), m.end()))
    return found


date_pieces = st.sampled_from(
    [
        "Sep", "sept", "September", "MAR", "may", "Dec.", "1", "12", "31", "2026", "-", "09",
        "2026-09-01", "st", "th", "of ", " ", ", ", "\n", "\u212a", "ſ", "İ", "é", "x",
        "nd", "rd", "\t", "\x0b", "\x1c", "_", "Januaryy", "marchx", "of", "ofx ", ".",
    ]
)  # fmt: skip


@given(st.lists(date_pieces, max_size=30).map("".join))
@example("on 2 of September, 2026 and Sep. 3rd 2025; 2026-13-01 and 2026-09-31")
@settings(max_examples=400, deadline=None)
def test_dates_equal_the_plain_patterns(text: str) -> None:
    assert hg.dates(text) == _plain_dates(text)


@given(st.text(alphabet="Sepmarjunofst 1209-.,\t\n\x1c_x", max_size=40))
@example("x 2 of\x1c sept 3")
@example("the 2nd\tof  Jan. 5")
@settings(max_examples=1500, deadline=None)
def test_dates_equal_the_plain_patterns_near_their_stems(text: str) -> None:
    """The stem tests of ``_named_date_matches`` (what a named or day-first
    date needs around its month) never skip a text that holds one."""
    assert hg.dates(text) == _plain_dates(text)


def _plain_times(text: str) -> list[tuple[int, int, int, int]]:
    """``times`` as first written: the pattern's plain finditer."""
    out: list[tuple[int, int, int, int]] = []
    for m in hg._TIME.finditer(text):
        h, mi = int(m.group("h")), int(m.group("m"))
        if h > 23 or mi > 59:
            continue
        ap = (m.group("ap") or "").lower()
        if ap == "p" and h < 12:
            h += 12
        elif ap == "a" and h == 12:
            h = 0
        out.append((h, mi, m.start(), m.end()))
    return out


@given(st.text(alphabet="0123459:. apmAPM\n٣x", max_size=40))
@example("Error: at 4:30 PM and 14:30")
@example("a:" * 70 + " 12:30")  # past the sign cap the scan decides
@settings(max_examples=1500, deadline=None)
def test_times_equal_the_plain_pattern(text: str) -> None:
    assert hg.times(text) == _plain_times(text)


@given(st.text(alphabet=":=ab \n", max_size=40))
@settings(max_examples=300, deadline=None)
def test_sign_positions_are_the_sign_pattern_matches(text: str) -> None:
    assert hg._sign_positions(text) == [m.start() for m in hg._ASSIGN_SIGN.finditer(text)]


def _plain_booleans(out: str, mat: hg.Material) -> list[hg.Signal]:
    """``_booleans`` with each key's pattern run by plain finditer."""
    import re

    found: list[hg.Signal] = []
    flags: dict[str, bool] = {}
    for raw_key, raw_value in hg._flag_settings(mat.text):
        key = raw_key.lower()
        if key.split(".")[-1] in hg._BOOL_GENERIC_KEYS:
            continue
        flags.setdefault(key, hg._BOOL_VALUE[raw_value.lower()])
    low = out.lower()
    for key, value in flags.items():
        words = [w for w in re.split(r"[_.\-\s]+", key) if w]
        rx = re.compile(r"(?<![\w-])" + r"[ _.-]?".join(map(re.escape, words)) + r"(?![\w-])")
        for m in rx.finditer(low):
            pol = hg._POLARITY.match(low, m.end())
            if pol is None:
                continue
            said = hg._POLARITY_VALUE[pol.group("w")] ^ bool(pol.group("neg"))
            if re.search(r"\b(?:not|no|isn't|never)\s*$", low[max(0, m.start() - 16) : m.start()]):
                said = not said
            if said != value:
                found.append(
                    (
                        "flag_contradicts_material",
                        m.start(),
                        pol.end(),
                        f"{key} is {'true' if value else 'false'} in the material",
                    )
                )
                break
    return found


flag_pieces = st.sampled_from(
    [
        "cache", "cache_ttl", "beta", "a", "aa", "ok", ": true", "=off", " is ", "enabled",
        "disabled", " not ", "on", "off", "-", "_", ".", " ", "\n", "é", "\u212a", "ſ",
    ]
)  # fmt: skip
flag_texts = st.lists(flag_pieces, max_size=24).map("".join)


@given(flag_texts, flag_texts)
@example("cache: true, aa=on", "the cache is off and aaa aa is off")
@settings(max_examples=400, deadline=None)
def test_booleans_equal_the_plain_key_search(material: str, output: str) -> None:
    mat = hg.Material.build(material)
    want = (
        _plain_booleans(output, mat)
        if any(
            k in mat.lower
            for k in ("true", "false", "enabled", "disabled", ": on", ": off", "=on", "=off")
        )
        else []
    )
    assert list(hg._booleans(output, mat)) == want


ascii_pieces = st.sampled_from(
    [
        "doesn't", "don't", "do not", "does not", "never", "not", " mention", " include",
        " list", " the budget", " decision", ",", ".", " ", "(default: on)", "(DEFAULT: off)",
        "mode", "x", "N'T", "NEVER", "Do Not",
    ]
)  # fmt: skip


@given(st.lists(ascii_pieces, max_size=20).map("".join))
@settings(max_examples=400, deadline=None)
def test_the_ascii_literal_gates_hold(text: str) -> None:
    low = text.lower()
    if hg._ABSENCE_CLAIM.search(text):
        assert "not" in low or "n't" in low or "never" in low
    if hg._BOOL_DEFAULT.search(text):
        assert "(default:" in low


@given(st.lists(st.text(max_size=12), min_size=1, max_size=6))
@settings(max_examples=200, deadline=None)
def test_lowered_is_str_lower(texts: list[str]) -> None:
    # the same object twice (a remembered hit), then an equal copy, then the next
    for text in texts:
        assert hg._lowered(text) == text.lower()
        assert hg._lowered(text) == text.lower()
        assert hg._lowered("".join(list(text))) == text.lower()


def test_material_properties_are_computed_once() -> None:
    mat = hg.Material.build("User asked: why?\nRevenue was 12,480 on 2026-09-01\n")
    first = mat.nums
    assert mat.nums is first
    assert [n.digits for n in first] == ["12,480", "2026", "09", "01"]
    low = mat.lower
    assert mat.lower is low and low == mat.text.lower()
    assert mat.sorted_values is mat.sorted_values
    assert all(a is b for a, b in zip(mat.twin_tables, mat.twin_tables, strict=True))


assign_pieces = st.sampled_from(
    [
        "a", "Z", "x1", "1", "_", ".", "-", '"', ":", "=", " ", "\n", "\t", "\u2003", "true",
        "False", "on", "OFF", "enabled", "é", "ſ", "\u212a", "٣", "{", "}", "key.name", "::",
    ]
)  # fmt: skip


@given(st.lists(assign_pieces, max_size=30).map("".join))
@example('"a" : "true" b= off "c"=on')
@settings(max_examples=600, deadline=None)
def test_assign_starts_search_is_the_plain_search(text: str) -> None:
    starts = hg._AssignStarts(text)
    for pos in range(len(text) + 1):
        got, want = starts.search(pos), hg._BOOL_ASSIGN.search(text, pos)
        assert (got and (got.span(), got.groups())) == (want and (want.span(), want.groups()))


row_pieces = st.sampled_from(
    [
        "Berlin", "a b", " ", ",", "\n", "\r\n", "\t", "\x0b", "\u2003", "1", "214", "{", '"',
        ":", "'", "&", "-", ".", "_", "é", "x",
    ]
)  # fmt: skip


@given(st.lists(row_pieces, max_size=30).map("".join))
@example('{"ok": true, "rows": 3}\nBerlin, 214')
@example("x:\u2003\nBerlin , 5")
@example(",1" * 40)  # past the comma cap the search decides
@settings(max_examples=1500, deadline=None)
def test_the_csv_gate_never_skips_a_row(text: str) -> None:
    if not hg._csv_row_possible(text):
        assert list(hg._TABLE_CSV.finditer(text)) == []


threshold_pieces = st.sampled_from(
    [
        "5", "$50", "1,000", " ", "\t", "\n", "\x0b", "or", "OR", " or ", "more", "Above",
        "greater", "higher", "over", "overt", "at least", "AT LEAST", ">=", "x", "no such file",
    ]
)  # fmt: skip


@given(st.lists(threshold_pieces, max_size=20).map("".join))
@example("$50 or more")
@example("5\x0bOR\tHIGHER")
@settings(max_examples=1500, deadline=None)
def test_the_inclusive_gate_never_skips_a_threshold(text: str) -> None:
    if not hg._inclusive_possible(text.lower()):
        assert list(hg._INCLUSIVE_SOURCE.finditer(text)) == []
