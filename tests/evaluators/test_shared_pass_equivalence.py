"""Shared passes and per-item shortcuts give what the plain code gave.

Third round of engine speed work: the number scan lowers the text once and
looks unit words up once per distinct word, grounding of output figures is
decided once per distinct figure, and the output's word tokens are split
once per evaluation for both word sets. Each property pits the new path
against the code it replaced.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.config import EngineConfig
from evaluators.context import EvalContext
from evaluators.lexical import terms
from evaluators.request import EvaluationRequest
from evaluators.rules import completeness, grounding, stub
from evaluators.rules import hallucination_grounded as hg
from evaluators.text.literals import LiteralFamily


def _texts(fragments: list[str], max_size: int = 30) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(fragments), max_size=max_size).map("".join)


NUMBER_FRAGS = [
    *"0123456789 .,%$-/\n",
    "€",
    "£",
    "٣",
    "İ",  # lowers to two characters: offsets of a lowered window would move
    "ſ",
    "K",
    "k",
    "M",
    "B",
    " days",
    " Hours",
    "ms",
    " ft-lb",
    " km/h",
    "/",
    " users",
    "x",
    "About ",
    "roughly ",
    "APPROX. ",
    "approx.",
    "~",
    "≈",
    "call it ",
    "More than ",
    "upwards of ",
    "\u2003",
    "1,234",
    "3.2",
    "12,480",
]


def _numbers_plain(text: str) -> list[hg.Num]:
    """``numbers`` as it was: the text lowered window by window, every unit
    word looked up afresh, each ``Num`` built through its constructor."""
    out: list[hg.Num] = []
    units = hg._UNIT_WORDS
    for m in hg._num_matches(text):
        raw, suf, pct_sign, unit_word = m.group("num", "suf", "pct", "unit")
        value = float(raw.replace(",", "")) if "," in raw else float(raw)
        scaled = value * hg._SCALE[suf] if suf else value
        pct = bool(pct_sign)
        start, end = m.span()
        unit: str | None = "%" if pct else None
        if unit is None and unit_word:
            word = unit_word.lower().rstrip("/")
            unit = units.get(word) or units.get(word.split("-")[0])
        before = text[max(0, start - 24) : start].rstrip().lower()
        approx = before.endswith(hg._APPROX_WORDS)
        out.append(hg.Num(value, scaled, pct, unit, approx, start, end, raw))
    return out


@settings(max_examples=600, deadline=None)
@given(_texts(NUMBER_FRAGS, 40))
def test_numbers_match_plain_scan(text: str) -> None:
    got = hg.numbers(text)
    assert got == _numbers_plain(text)
    assert all(type(n) is hg.Num for n in got)


_MATERIAL_FRAGS = ["12,480", "214", "0.31", "18%", "3.2%", "2,914,377", " ", "\n", "x", "7"]


@settings(max_examples=300, deadline=None)
@given(_texts(_MATERIAL_FRAGS, 20), _texts(NUMBER_FRAGS, 30))
def test_grounds_once_is_grounds(material: str, output: str) -> None:
    mat = hg.Material.build(material)
    nums = hg.numbers(output) * 2  # every figure asked twice: the second from the memo
    assert [mat.grounds_once(n) for n in nums] == [mat.grounds(n) for n in nums]


WORD_FRAGS = ["retention", "Sweep", "src/storage/x.ts", "getUserName", "snake_case", "it's"]
WORD_FRAGS += ["3rd", "'quoted'", " ", "\n", "-", ".", "é", "ß", "٣", "```", "The", "ran"]


@settings(max_examples=300, deadline=None)
@given(_texts(WORD_FRAGS, 30), st.booleans())
def test_shared_tokens_give_the_same_word_sets(text: str, terms_first: bool) -> None:
    ctx = EvalContext(EvaluationRequest(output=text), EngineConfig())
    if terms_first:
        term_set, word_set = ctx.output_term_set, ctx.output_word_set
    else:
        word_set, term_set = ctx.output_word_set, ctx.output_term_set
    assert word_set == frozenset(terms.words(text))
    assert term_set == frozenset(terms.content_terms(text))


def test_grounds_once_tells_scaled_figures_apart() -> None:
    """Same digits, another scale: "3" and "3K" against a material stating 3000."""
    mat = hg.Material.build("The cap is 3000 requests.")
    nums = hg.numbers("We saw 3 then 3K then 3% and 3.")
    assert [mat.grounds_once(n) for n in nums] == [mat.grounds(n) for n in nums]
    assert [mat.grounds(n) for n in nums] == [False, True, False, False]


def _is_echo_plain(ask: str, low: str) -> bool:
    a = " ".join(ask.lower().split())
    o = " ".join(low.split())
    return a in o and len(o) <= 1.2 * len(a)


ECHO_FRAGS = ["where is the sweep", " ", "  ", "\n", "\t", "\x1c", "\u2003", "x", "İ", "?"]


@settings(max_examples=400, deadline=None)
@given(_texts(ECHO_FRAGS, 12), _texts(ECHO_FRAGS, 14))
def test_echo_gate_is_exact(ask: str, out: str) -> None:
    low = out.strip().lower()
    assert completeness._is_echo(ask, low) == _is_echo_plain(ask, low)


def _near_miss_plain(out: str, nums: list[hg.Num], mat: hg.Material) -> list[hg.Signal]:
    """``_near_miss_numbers`` without its early return (empty twin tables)."""
    src_keys: dict[str, hg.Num] = {}
    src_sig: dict[str, hg.Num] = {}
    for s in mat.nums:
        if hg._is_year(s):
            continue
        if len(s.digits.replace(",", "").replace(".", "")) >= 3:
            src_keys.setdefault(hg._digit_key(s.digits), s)
        if s.value >= 10 or "." in s.digits:
            src_sig.setdefault(hg._sig_digits(s.value), s)
    found: list[hg.Signal] = []
    for n in nums:
        plain = n.digits.replace(",", "").replace(".", "")
        twin = src_keys.get(hg._digit_key(n.digits)) if len(plain) >= 3 else None
        if twin is None and (n.value >= 100 or "." in n.digits):
            cand = src_sig.get(hg._sig_digits(n.value))
            if cand is not None and cand.value != n.value and not (n.pct and cand.value < 1):
                twin = cand
        if twin is not None and twin.value != n.value:
            found.append(
                (
                    "figure_not_in_material",
                    n.start,
                    n.end,
                    f"{out[n.start : n.end]} does not appear in the material, which states "
                    f"{twin.digits}",
                )
            )
    return found


_TWIN_FRAGS = ["12,480", "14,280", "214", "2,140", "0.31", "0.031", "7", "2024", " ", "%", "x"]
_TWIN_FRAGS += ["0.5", "500", "25", "2.5", "007"]


@settings(max_examples=300, deadline=None)
@given(_texts(_TWIN_FRAGS, 8), _texts(_TWIN_FRAGS, 12))
def test_near_miss_numbers_match_plain(material: str, output: str) -> None:
    mat = hg.Material.build(material)
    nums = hg.numbers(output)
    assert list(hg._near_miss_numbers(output, nums, mat)) == _near_miss_plain(output, nums, mat)


def test_near_miss_twin_by_significant_digits_alone() -> None:
    """A material with no three-digit figure still gives tenfold twins."""
    mat = hg.Material.build("The ratio is 0.5 today.")
    nums = hg.numbers("It reached 500 and 12")
    got = list(hg._near_miss_numbers("It reached 500 and 12", nums, mat))
    assert got == _near_miss_plain("It reached 500 and 12", nums, mat)
    assert [s[0] for s in got] == ["figure_not_in_material"]


# -- one scan for the literal gates of the lowered output ---------------------------

_FAMILY_MEMBERS = [
    stub._NEEDS_SET,
    grounding._PROPOSAL_SET,
    hg._ATTRIBUTION_SET,
    hg._ABSENCE_VERB_SET,
    hg._ROLE_WORD_SET,
]
_FAMILY_FRAGS = sorted({lit for m in _FAMILY_MEMBERS for lit in m.literals})
_FAMILY_FRAGS += [" ", "x", "ſ", "é", "\ud800", "ceo", "found", "say"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_texts(_FAMILY_FRAGS, 12), st.integers(0, 4)), max_size=6))
def test_family_members_are_their_own_sets(asks: list[tuple[str, int]]) -> None:
    """Any text, any member, in any order (the family's memo of the last text
    must never answer for another text or another member)."""
    for text, k in asks:
        member = _FAMILY_MEMBERS[k]
        assert member.present(text) == {lit for lit in member.literals if lit in text}


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.text(alphabet="abc .", min_size=1, max_size=3), max_size=5), max_size=4),
    st.lists(st.tuples(st.text(alphabet="abc .", max_size=12), st.integers(0, 3)), max_size=8),
)
def test_a_family_of_any_sets(sets: list[list[str]], asks: list[tuple[str, int]]) -> None:
    """Members added between asks too: the union must grow with the family."""
    family = LiteralFamily()
    members = []
    for lits in sets:
        members.append(family.member(lits))
        for text, k in asks:
            i = k % len(members)
            want = {lit for lit in set(sets[i]) if lit and lit in text}
            assert members[i].present(text) == want


# -- the repeated-sentence test -------------------------------------------------------


def _sentence_repetition_plain(
    text: str, spans: list[tuple[int, int]] | None = None
) -> tuple[str, int] | None:
    """``_sentence_repetition`` as it was: every sentence stripped and tested."""
    if spans is None or "```" in text or len(text) > completeness._TEXT_CAP:
        body = completeness._FENCE.sub(" ", text[: completeness._TEXT_CAP])
        spans = completeness.split_sentences(body)
    else:
        body = text
    best, n = _most_repeated_plain(body, spans)
    if n < 5:
        return None
    nonws = completeness._non_space_count(body) or 1
    if len("".join(best.split())) * n >= 0.5 * nonws:
        return best, n
    return None


REPEAT_FRAGS = ["The sweep runs daily. ", "the SWEEP runs daily. ", "Ok. ", "Two words. ", "\n"]
REPEAT_FRAGS += ["It is done now! ", " ", "İt is done now. ", "```x``` ", "x"]


@settings(max_examples=400, deadline=None)
@given(_texts(REPEAT_FRAGS, 40), st.sampled_from(["given", "none", "loose"]))
def test_sentence_repetition_matches_plain(text: str, spans_from: str) -> None:
    spans: list[tuple[int, int]] | None = None
    if spans_from == "given":
        spans = completeness.split_sentences(text)
    elif spans_from == "loose":  # untrimmed stretches: the strip must still apply
        spans = [
            (max(0, s - 1), min(len(text), e + 1)) for s, e in completeness.split_sentences(text)
        ]
    assert completeness._sentence_repetition(text, spans) == _sentence_repetition_plain(text, spans)


def _most_repeated_plain(body: str, spans: list[tuple[int, int]]) -> tuple[str, int]:
    counts: dict[str, int] = {}
    low = body.lower() if body.isascii() else None
    for s, e in spans:
        sent = low[s:e].strip() if low is not None else body[s:e].strip().lower()
        if len(sent.split(None, 2)) >= 3:
            counts[sent] = counts.get(sent, 0) + 1
    return max(counts.items(), key=lambda kv: kv[1]) if counts else ("", 0)


@settings(max_examples=400, deadline=None)
@given(_texts(REPEAT_FRAGS, 20), st.booleans())
def test_most_repeated_matches_plain(text: str, loose: bool) -> None:
    spans = completeness.split_sentences(text)
    if loose:
        spans = [(max(0, s - 1), min(len(text), e + 1)) for s, e in spans]
    assert completeness._most_repeated(text, spans) == _most_repeated_plain(text, spans)
