"""Each fast path finds exactly what the plain scan it replaces finds.

The engine's speed work swapped per-literal ``in`` tests for one-pass literal
sets, charset-led regex scans for ``bytes.find`` over a character mask, and
windowed searches for tries at the places a match can start. Every one of
those is an exactness claim; these properties check them against the
straightforward scan on texts built from the patterns' own edges (literals,
spaces inside words, digits of other scripts, case look-alikes, surrogates).
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.detectors import injection, personal, secrets
from evaluators.detectors.gates import GatedPattern, occurrences, spaced_occurrences
from evaluators.lexical import sentences
from evaluators.rules import grounding, hallucination_grounded
from evaluators.text.literals import LiteralSet
from evaluators.text.normalize import normalize
from evaluators.text.starts import (
    CharStarts,
    class_mask,
    class_runs,
    digit_led_finditer,
    tried_at,
)


def _spans(it: object) -> list[tuple[tuple[int, int], str]]:
    return [(m.span(), m.group(0)) for m in it]  # type: ignore[attr-defined]


def _texts(fragments: list[str], max_size: int = 30) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(fragments), max_size=max_size).map("".join)


EDGE = [" ", "  ", "\n", ".", "-", "_", "'", ":", "é", "٣", "\u212a", "ſ", "\ud800", "x", "A"]

# -- LiteralSet ---------------------------------------------------------------

INJECTION_LITERALS = sorted(injection._COMPACT_LITERALS.literals)


@settings(max_examples=400, deadline=None)
@given(_texts(INJECTION_LITERALS + EDGE + ["ig", "nore", "sys", "tem"]))
def test_literal_set_matches_in_tests(text: str) -> None:
    lits = injection._COMPACT_LITERALS
    assert lits.present(text) == {lit for lit in lits.literals if lit in text}


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80), st.lists(st.text(alphabet="abc.-'", min_size=1, max_size=4)))
def test_literal_set_on_any_text(text: str, literals: list[str]) -> None:
    s = LiteralSet(literals)
    assert s.present(text) == {lit for lit in set(literals) if lit in text}


def test_literal_set_holds_on_a_text_with_every_literal() -> None:
    """Every DFA state at once: the set must still report all of them."""
    lits = injection._COMPACT_LITERALS
    text = "|".join(lits.literals) * 3
    assert lits.present(text) == frozenset(lits.literals)


# -- CharStarts and digit masks ---------------------------------------------------

NUMBER_FRAGS = [*"0123456789$€£.,%kKMB -/", "1,234", "3.2", "v2.0.1", "٣", "x", "\n", "a", "é"]
NUMBER_FRAGS += [" ms", "-day", " - h", "Hours", "km/h", "ft-lb", "\u00a0", "\t"]


@settings(max_examples=400, deadline=None)
@given(_texts(NUMBER_FRAGS))
def test_number_starts(text: str) -> None:
    h = hallucination_grounded
    fast = list(h._num_matches(text))
    assert _spans(fast) == _spans(h._NUM.finditer(text))
    for m in fast:  # the folded-in unit lookahead reads what _UNIT_AFTER reads
        u = h._UNIT_AFTER.match(text, m.end())
        assert m.group("unit") == (u.group(1) if u else None)


def _split_sentences_plain(text: str) -> list[tuple[int, int]]:
    """The splitter with the full abbreviation test at every single dot."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in sentences._END.finditer(text):
        end = m.end()
        if m.group(0) == ".":
            last = sentences._last_word(text, start, m.start()).lower().rstrip(".")
            if last in sentences._ABBREV or (len(last) == 1 and last.isalpha()):
                continue
        if sentences._CONTENT.search(text, start, end):
            spans.append(sentences._trim(text, start, end))
        start = end
    if sentences._CONTENT.search(text, start):
        spans.append(sentences._trim(text, start, len(text)))
    return spans


SENTENCE_FRAGS = [*".!?\"')] \nAbcxz", "Dr.", "e.g.", "approx.", "Approx", "3.2", "é", "İ"]
SENTENCE_FRAGS += ["...", "?!", "sentence", "Engineering", "x.", "ſ", "Ǆ", "words"]
# whitespace that is not _CONTENT's own (content for it, space for the trim)
SENTENCE_FRAGS += ["\t", "\r", "\x0b", "\x0c", "\x1c", "\u2003", "\u3000", "e.g", " ab."]


@settings(max_examples=600, deadline=None)
@given(_texts(SENTENCE_FRAGS, 25))
def test_sentence_split(text: str) -> None:
    assert sentences.split_sentences(text) == _split_sentences_plain(text)


def test_char_starts_refuses_wider_patterns() -> None:
    try:
        CharStarts(re.compile(r"ab|c"))
    except ValueError:
        return
    raise AssertionError("a two-character pattern was accepted")


DIGIT_FRAGS = [*"0123456789 :-", "zip ", "ca, ", "gb82", "de", "٣", "x", "é", "12345", "aa"]


@settings(max_examples=400, deadline=None)
@given(_texts(DIGIT_FRAGS))
def test_digit_led_finditer(text: str) -> None:
    for rx, lead in ((personal._FIVE_DIGITS_RE, 5), (personal._IBAN_DIGITS_RE, 2)):
        assert _spans(digit_led_finditer(rx, text, lead)) == _spans(rx.finditer(text))


def _iban_starts_plain(t: str) -> list[int]:
    out = []
    for m in personal._IBAN_DIGITS_RE.finditer(t):
        s = m.start() - 2
        if (
            s >= 0
            and t[s] in personal._LOWER
            and t[s + 1] in personal._LOWER
            and (s == 0 or t[s - 1] not in personal.ALNUM)
        ):
            out.append(s)
    return out


@settings(max_examples=400, deadline=None)
@given(_texts([*DIGIT_FRAGS, "gb82 west 1234", "a1", "ab", "AB12"]))
def test_iban_starts(text: str) -> None:
    assert list(personal._iban_starts(text)) == _iban_starts_plain(text)


@given(st.text(max_size=40))
def test_class_mask_is_one_byte_per_character(text: str) -> None:
    mask = class_mask(text)
    if mask is None:
        assert not text.isascii()
        return
    assert len(mask) == len(text)
    for ch, b in zip(text, mask, strict=True):
        want = "1" if ch.isdigit() else "a" if "a" <= ch <= "z" else "." if ch == "." else "\0"
        assert chr(b) == want


# -- gated patterns: presence sets, heads, tried places ----------------------------

PHRASE_FRAGS = [
    "ignore ",
    "all ",
    "previous ",
    "instructions",
    "the ",
    "system ",
    "prompt",
    "reveal ",
    "you are now ",
    "a ",
    "an ",
    "ai",
    "assistant",
    "from now on, ",
    "pretend ",
    "do not ",
    "tell ",
    "user",
    "override",
    "directive",
    "note",
    ":",
    "-",
    "ign ore ",
    "i g",
    "nore ",
    "my ",
    "bot",
    "should ",
    "call ",
    "decode ",
    "x",
    " ",
]
GATED: list[GatedPattern] = list(injection._GATED)


@settings(max_examples=300, deadline=None)
@given(_texts(PHRASE_FRAGS, 25))
def test_gated_patterns_match_plain_finditer(text: str) -> None:
    t = normalize(text).text
    compact = t.replace(" ", "")
    present = injection._COMPACT_LITERALS.present(compact)
    for pat in GATED:
        plain = _spans(pat.rx.finditer(t))
        assert _spans(pat.finditer(t, compact, present)) == plain, pat.rx.pattern[:60]
        assert _spans(pat.finditer(t, compact)) == plain, pat.rx.pattern[:60]


def test_most_phrase_patterns_have_a_head() -> None:
    """The start-anchored path is the common one (a template opening with an
    optional group has no head and keeps the windowed search)."""
    with_head = [pat for pat in GATED if pat.head[0]]
    assert len(with_head) >= len(GATED) - 3


@settings(max_examples=300, deadline=None)
@given(_texts([*"0123456789. ab", "127.0.0.1", "8.8.4.4", "٣", "v1.2", "1.2.3.4.5", "\n"]))
def test_ipv4_tried_at_dot_digits(text: str) -> None:
    starts = [g.start() - k for g in personal._IPV4_GATE_RE.finditer(text) for k in (1, 2, 3)]
    got = _spans(tried_at(personal._IPV4_RE, text, starts))
    assert got == _spans(personal._IPV4_RE.finditer(text))


TOKEN_FRAGS = [lit for lit, _ in secrets._PREFIX_LOCATORS] + ["sk_live_", "rk_live_", "dop_v1_"]
TOKEN_FRAGS += ["ab", "-", "_", "x", " ", "a", "kia", "1"]


@settings(max_examples=300, deadline=None)
@given(_texts(TOKEN_FRAGS, 20))
def test_vendor_prefixes(text: str) -> None:
    assert _spans(secrets._prefix_matches(text)) == _spans(secrets._PREFIX_RE.finditer(text))


# -- grounding: the proposal gate ---------------------------------------------------


def test_proposal_literals_are_the_pattern_alternatives() -> None:
    src = grounding._PROPOSAL.pattern
    body = src[src.index("(?:") + 3 : src.rindex(")")]
    alts = {a.replace("\\.", ".") for a in body.split("|")}
    assert alts == set(grounding._PROPOSAL_LITERALS)


@settings(max_examples=300, deadline=None)
@given(_texts([*grounding._PROPOSAL_LITERALS, "I Would", "MIGHT", "x", " ", ".", "\n", "ſ"]))
def test_no_proposal_anywhere_is_exact(text: str) -> None:
    if grounding._no_proposal_anywhere(text):
        assert grounding._PROPOSAL.search(text) is None


# -- word tokens ---------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(_texts([*"aZ09' -_.\n\t", "fooBar", "3abc", "'x", "x'", "é", "٣", "ß", "\u212a", "ab'c"]))
def test_distinct_tokens(text: str) -> None:
    from evaluators.lexical import terms

    assert terms._distinct_tokens(text) == set(terms._WORD.findall(text))


@settings(max_examples=400, deadline=None)
@given(_texts([*"0123456789 .()-x", "127.0.0.1", "(415) 555-0132", "٣", "\n", "é"]))
def test_number_runs(text: str) -> None:
    runs = class_runs(text, "0123456789", "0123456789 .()-", 8)
    want = [m.span() for m in personal._NUMBER_RUN_RE.finditer(text)]
    if runs is None:
        assert not text.isascii()
    else:
        assert list(runs) == want


@settings(max_examples=400, deadline=None)
@given(
    _texts(["ign", "ore", "i", "g", " ", "  ", "aba", "ab", "x", "é", "\n"], 20),
    st.sampled_from(["ignore", "ig", "abab", "aba", "ab", "a b", "x"]),
)
def test_spaced_occurrences(text: str, literal: str) -> None:
    compact = text.replace(" ", "")
    assert spaced_occurrences(text, compact, literal) == occurrences(text, literal, True)


DATE_FRAGS = ["Jan", "jan", "SEPT", "sept.", "March", "may", "Dec", "decide", "of ", "the ", " "]
DATE_FRAGS += [*"0123456789-:,.\n", "1st", "2nd", "22", "2026", "2026-09-01", "12:30", "pm", "A.M."]
DATE_FRAGS += ["é", "ſep", "\u212a", "٣", "x"]


def _groups(ms: object) -> list[tuple[tuple[int, int], tuple[str | None, ...]]]:
    return [(m.span(), m.groups()) for m in ms]  # type: ignore[attr-defined]


@settings(max_examples=400, deadline=None)
@given(_texts(DATE_FRAGS, 20))
def test_date_and_time_scans(text: str) -> None:
    h = hallucination_grounded
    named = [*h._DATE_NAMED.finditer(text), *h._DATE_DAY_FIRST.finditer(text)]
    fast = list(h._named_date_matches(text))
    assert [m.span() for m in fast] == [m.span() for m in named]
    assert [m.group("mon").lower() for m in fast] == [m.group("mon").lower() for m in named]
    assert [m.group("day", "year") for m in fast] == [m.group("day", "year") for m in named]
    iso = h._DIGIT_STARTS.finditer(h._DATE_ISO, text)
    assert _groups(iso) == _groups(h._DATE_ISO.finditer(text))
    plain_times = [] if ":" not in text else _groups(h._TIME.finditer(text))
    assert _groups(h._DIGIT_STARTS.finditer(h._TIME, text)) == plain_times
    assert not (":" not in text and list(h._TIME.finditer(text)))


PHONE_FRAGS = [*"0123456789 -.()+x", "555", "415", "1", "4111", "123-45-6789", "٣", "\n", "v1."]


@settings(max_examples=400, deadline=None)
@given(_texts(PHONE_FRAGS, 30))
def test_short_clusters_skipped_exactly(text: str) -> None:
    """Skipping clusters with fewer than eight digits finds what trying every
    window of them finds."""
    fast = personal.find_numbers(text)
    saved = personal._MIN_SHAPE_DIGITS
    personal._MIN_SHAPE_DIGITS = 0
    try:
        assert personal.find_numbers(text) == fast
    finally:
        personal._MIN_SHAPE_DIGITS = saved


def _blank_denials_plain(low: str) -> str:
    from evaluators.rules.tool_failure import DENIAL_PHRASES

    for d in DENIAL_PHRASES:
        if d in low:
            low = low.replace(d, " " * len(d))
    return low


def _acknowledges_plain(lowered: str, hedges: bool) -> bool:
    from evaluators.rules import tool_failure as tf

    low = _blank_denials_plain(lowered)
    if any(p in low for p in tf.ACKNOWLEDGEMENT_PHRASES):
        return True
    if hedges and any(p in low for p in tf.UNCERTAINTY_PHRASES):
        return True
    i = low.find("neither ")
    return i >= 0 and " nor " in low[i : i + 200]


def _phrase_fragments() -> list[str]:
    from evaluators.rules import tool_failure as tf

    words = [*tf.ACKNOWLEDGEMENT_PHRASES, *tf.UNCERTAINTY_PHRASES, *tf.DENIAL_PHRASES]
    return [*words, " ", "not ", "no ", "neither ", " nor ", "x", ".", "é"]


@settings(max_examples=400, deadline=None)
@given(_texts(_phrase_fragments(), 8), st.booleans())
def test_acknowledgement_sets(text: str, hedges: bool) -> None:
    from evaluators.rules import tool_failure as tf

    low = text.lower()
    assert tf._blank_denials(low) == _blank_denials_plain(low)
    assert tf._acknowledges_lower(low, hedges) == _acknowledges_plain(low, hedges)


@given(st.text(alphabet=st.sampled_from([*" \t\n\r\x0b\x0c\x1c\x1f\x85\u00a0ab.é"]), max_size=60))
def test_non_space_count(text: str) -> None:
    from evaluators.rules.completeness import _non_space_count

    assert _non_space_count(text) == sum(map(len, text.split()))


def _seed_phrases_plain(t: str, raw_breaks: object) -> list[object]:
    """The seed-phrase scan walking the window one character at a time."""
    from evaluators.detectors.findings import Candidate
    from evaluators.detectors.gates import free_start

    word_re = re.compile(r"[a-z0-9]{1,8}")
    out: list[object] = []
    last_end = -1
    if not any(g in t for g in secrets._SEED_GATES):
        return out
    for m in free_start(secrets._SEED_CUE_RE, t, secrets._LETTERS):
        if m.start() < last_end:
            continue
        last_end = min(len(t), m.end() + 600)
        window_end = min(len(t), m.end() + 600)
        pos = m.end()
        run: list[tuple[int, int]] = []
        best: list[tuple[int, int]] = []
        while pos < window_end:
            while pos < window_end and not ("a" <= t[pos] <= "z" or "0" <= t[pos] <= "9"):
                pos += 1
            wm = word_re.match(t, pos)
            k = pos
            while k < window_end and ("a" <= t[k] <= "z" or "0" <= t[k] <= "9"):
                k += 1
            ok_word = wm is not None and wm.end() == k and t[pos:k] not in secrets._STOPWORDS
            sep_ok = run and t[run[-1][1] : pos] == " "
            if (
                ok_word
                and (not run or sep_ok)
                and not (run and len(run) >= 12 and raw_breaks(run[-1][1], pos))  # type: ignore[operator]
            ):
                run.append((pos, k))
            else:
                if len(run) > len(best):
                    best = run
                run = [(pos, k)] if ok_word else []
                if best and len(best) >= 12:
                    break
            if not run and not best and pos - m.end() > 160:
                break
            pos = max(k, pos + 1)
        if len(run) > len(best):
            best = run
        if len(best) < 12:
            continue
        best = best[:26]
        if sum(1 for s, e in best if e - s < 3) > 2:
            continue
        s, e = best[0][0], best[-1][1]
        out.append(
            Candidate(
                "seed_phrase",
                secrets.CREDENTIAL,
                s,
                e,
                f"wallet seed phrase ({len(best)} words)",
                35,
            )
        )
        last_end = e
    return out


SEED_FRAGS = ["seed ", "seed phrase: ", "mnemonic ", "abandon ", "zoo ", "wallet ", "the ", " "]
SEED_FRAGS += ["abcdefgh", "abcdefghij", "x1 ", "\n", ".", "9", "legal ", "winner ", "é"]


@settings(max_examples=400, deadline=None)
@given(_texts(SEED_FRAGS, 60), st.integers(min_value=0, max_value=3))
def test_seed_phrase_scan(text: str, breaks_every: int) -> None:
    def raw_breaks(a: int, b: int) -> bool:
        return bool(breaks_every) and a % (breaks_every + 1) == 0

    assert secrets._seed_phrases(text, raw_breaks) == _seed_phrases_plain(text, raw_breaks)


def test_seed_phrase_scan_finds_a_phrase() -> None:
    words = "abandon zoo wallet legal winner thank year wave sausage worth useful legal will"
    text = f"my seed phrase: {words} ok"
    found = secrets._seed_phrases(text, lambda a, b: False)
    assert found and found == _seed_phrases_plain(text, lambda a, b: False)
