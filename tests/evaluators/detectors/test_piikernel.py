"""The C candidate scans (``_piikernel``) return exactly what their Python references return.

Every scan of the no_pii detector that runs in C has a pure-Python
reference in ``personal.py`` / ``secrets.py``; the engine must give the same
results with or without the compiled module. These properties hold each C
function to its reference on arbitrary Unicode, on texts built from the
characters the scans branch on (digits of every script, separators,
whitespace of every kind, combining marks, astral characters, case oddities),
on every text of the proof corpus and on the bench outputs, and check that the
public detectors agree when the module is missing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluators.detectors import personal, pii, secrets
from evaluators.detectors.findings import Finding
from evaluators.text.normalize import normalize
from tests.support.texts import bench_cases, corpus_strings

kernel = pytest.importorskip("evaluators.detectors._piikernel")

ROOT = Path(__file__).resolve().parents[3]

# whitespace of every kind (\s and more), digits of other scripts (decimal or
# not), letters that change under case mapping, combining marks, astral text
_ODD = [
    *"\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2007\u2028\u2029\u202f\u205f\u3000\u200b",
    *"٣১０𝟙²½",
    *"éİıßſ\u212aаﬁ\u0301\u0327",
    "😀",
    "\U00010400",
]
_FRAGMENTS = [
    *"0123456789 .-()+@_%'x:/$#=vaz",
    *_ODD,
    "127.0.0.1",
    "10.0.0.",
    "255.",
    "256",
    "8.8.8.8",
    "81.2.69.160",
    "1.2.3",
    " 4",
    "version ",
    "v ",
    "jo.doe@gmail.com",
    "ops@acme-corp.io",
    "info@",
    "@ ",
    " @",
    "example.com",
    ".co",
    "a. b",
    "gb82",
    "de89 3704 0044 0532 0130 00",
    "zip 12345",
    "ny 10001",
    "(415) 555-0132",
    "+44 20 7946 0000",
    "4716 3402 8851 9272",
    "123-45-6789",
    ".8.8.8.8",
    "a.81.2.69.160",
    "192.5.5.241",
    "192.168.1.1",
    "010.1.1.1",
    "v1.2.3.4",
    "1.2. 3.4",
    "1.2.3.4.5",
    "2001:db8::1",
    "2a00:1450:4001:82a::200e",
    "fe80:",
    "::",
    ":abcde:",
    *secrets.GATE_LITERALS,
    *personal.GATE_LITERALS,
]
_built = st.lists(st.sampled_from(_FRAGMENTS), max_size=30).map("".join)
_texts = _built | st.text(max_size=120) | st.text(st.sampled_from(_FRAGMENTS[:40]), max_size=80)


def _assert_scans_agree(t: str) -> None:
    assert kernel.emails(t) == personal._email_shapes(t)
    for least in (0, 8):
        assert kernel.numbers(t, least) == personal._number_clusters(t, least)
    # the C scan leaves out only matches find_ips rejects (checked with find_ips below)
    ipv4 = kernel.ipv4(t)
    assert [span for span in personal._ipv4_spans(t) if span in ipv4] == ipv4
    assert personal._ipv4_spans(t) == [m.span() for m in personal._IPV4_RE.finditer(t)]
    assert kernel.iban_starts(t) == list(personal._iban_starts(t))
    assert kernel.ipv6_gates(t) == [m.start() for m in personal._IPV6_GATE_RE.finditer(t)]
    assert kernel.five_digit_starts(t) == [m.start() for m in personal._FIVE_DIGITS_RE.finditer(t)]
    assert kernel.present(t, personal.GATE_LITERALS) == personal._CUE_GATES.present(t)
    assert kernel.scan(t, 8) == (
        kernel.emails(t),
        kernel.numbers(t, 8),
        kernel.iban_starts(t),
        kernel.ipv4(t),
        kernel.ipv6_gates(t),
        kernel.five_digit_starts(t),
    )
    assert kernel.present(t, secrets.GATE_LITERALS) == frozenset(
        lit for lit in secrets.GATE_LITERALS if lit in t
    )


def _outcome(fn: Callable[[str], Any], t: str) -> tuple[Any, ...]:
    """A call's value, or its exception (find_ips on raw text can raise, and must
    raise the same way in both paths)."""
    try:
        return ("value", fn(t))
    except Exception as exc:  # compared, not swallowed
        return ("raised", type(exc), str(exc))


@pytest.fixture
def no_kernel(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The detectors as installed without a C compiler."""
    monkeypatch.setattr(personal, "_piikernel", None)
    monkeypatch.setattr(secrets, "_piikernel", None)
    yield


def _without_kernel(fn: Callable[[str], Any], t: str) -> tuple[Any, ...]:
    saved = personal._piikernel, secrets._piikernel
    personal._piikernel = secrets._piikernel = None  # type: ignore[assignment]
    try:
        return _outcome(fn, t)
    finally:
        personal._piikernel, secrets._piikernel = saved


# Texts at the edges of each scan, checked on every run (the property tests
# reach them only by chance).
EDGES = [
    ".8.8.8.8 x.81.2.69.160 _192.5.5.241 192.5.5.241 192.5.5.241.7 1.2.3.4.5.6.7.8",
    "010.1.1.1 127.0.0.1 10.0.0.1 256.1.1.1 1.2.3.4x 1.2.3.4.5 v1.2.3.4 version 9.9.9.10",
    "v 81.2.69.160 w 81.2.69.160 version 81.2.69.160 version: 81.2.69.160",
    "81.2. 69.160 81.2 .69.160 81. 2.69.160 81.2.69. 160 81.2.69.160.",
    "2001:db8::1 2a00:1450:4001:82a::200e :abcde: :: fe80::1%eth0 a:b:c:d:e:f:1:2",
    "call 617-482-3319 or (415) 555-0132, +44 20 7946 0000, +1 312 664 0973, 1234567",
    "ssn 501-24-8837 card 4716 3402 8851 9272 v1.617-482-3319 x617-482-3319 617-482-3319x",
    "jo.doe@gmail.com . jo @ gmail.com jo@ gmail .com info@acme.io a@b.c 'x'@y.co @",
    "iban gb82 west 1234 5698 7654 32 de89370400440532013000 ab12cdefghijklmn",
    "zip 12345 ny 10001 1234567890 ١٢٣٤٥ 12 Main Street, springfield, il 62704",
]


@pytest.mark.parametrize("t", EDGES)
def test_scans_equal_references_on_edges(t: str) -> None:
    for text in (t, normalize(t).text):
        _assert_scans_agree(text)
        for fn in (personal.find_ips, personal.find_personal_candidates, pii.find_pii):
            assert _outcome(fn, text) == _without_kernel(fn, text)


def test_the_kernel_is_built_and_used() -> None:
    """CI machines have a compiler: the detector must run the C scans there."""
    assert personal._piikernel is kernel
    assert secrets._piikernel is kernel


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_texts)
def test_scans_equal_references(t: str) -> None:
    _assert_scans_agree(t)
    _assert_scans_agree(normalize(t).text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_texts)
def test_detectors_equal_without_kernel(t: str) -> None:
    norm = normalize(t).text
    for text in (t, norm):
        for fn in (personal.find_ips, personal.find_emails, personal.find_numbers):
            assert _outcome(fn, text) == _without_kernel(fn, text)
        assert _outcome(personal.find_ibans, text) == _without_kernel(personal.find_ibans, text)
    for fn in (personal.find_personal_candidates, personal.find_addresses):
        assert _outcome(fn, norm) == _without_kernel(fn, norm)
    assert _outcome(pii.find_pii, t) == _without_kernel(pii.find_pii, t)


@settings(max_examples=300, deadline=None)
@given(
    st.text(max_size=80) | _built,
    st.lists(st.text(st.sampled_from("ab@. -é1"), min_size=1, max_size=4), max_size=12)
    | st.lists(st.sampled_from(_FRAGMENTS[40:]), max_size=12),
)
def test_present_is_membership(t: str, literals: list[str]) -> None:
    lits = tuple(lit for lit in literals if lit.isascii())
    assert kernel.present(t, lits) == frozenset(lit for lit in lits if lit in t)


def test_present_refuses_what_it_cannot_test() -> None:
    with pytest.raises(ValueError):
        kernel.present("abc", ("é",))
    with pytest.raises(ValueError):
        kernel.present("abc", ("",))
    with pytest.raises(TypeError):
        kernel.present("abc", ["a"])
    with pytest.raises(ValueError):
        kernel.present("abc", tuple(f"x{i}" for i in range(300)))


@lru_cache(maxsize=1)
def _corpus_texts() -> tuple[str, ...]:
    """Every string of the proof corpus and every bench output, raw and normalised."""
    found = dict.fromkeys([*corpus_strings(), *(case.output for case in bench_cases(500))])
    for s in list(found):
        found[normalize(s).text] = None
    return tuple(found)


def test_scans_equal_references_on_corpus_and_bench() -> None:
    texts = _corpus_texts()
    assert len(texts) > 1000
    for t in texts:
        _assert_scans_agree(t)


def test_find_pii_equal_without_kernel_on_corpus(no_kernel: None) -> None:
    """The public detector without the module finds what it finds with it."""
    texts = [t for t in _corpus_texts() if len(t) > 12]
    plain = [pii.find_pii(t) for t in texts]
    personal._piikernel = secrets._piikernel = kernel
    fast = [pii.find_pii(t) for t in texts]
    assert fast == plain
    assert any(fast)  # the corpus does hold personal data


def test_fallback_finds_the_seeds(no_kernel: None) -> None:
    """Without the module the pure-Python scans still find each kind."""
    found: list[Finding] = pii.find_pii(
        "mail jo.doe@gmail.com or call 617-482-3319 from 81.2.69.160, "
        "card 4716 3402 8851 9272, token ghp_8fK2mQ9xL4vR7tY1wE3uI6oP0aS5dF2gH4jK"
    )
    assert {f.kind for f in found} >= {"email", "phone", "ip_address", "credit_card"}


def test_ipv4_scan_drops_what_find_ips_rejects() -> None:
    """The point of the C-side checks: loopback, private-10, version numbers and
    glued matches never reach Python (only a kept span is a cost, not an error)."""
    assert kernel.ipv4("127.0.0.1 10.1.2.3 version 81.2.69.160 v 81.2.69.160 1.2.3.4x") == []
    assert kernel.ipv4("at 81.2.69.160 and 192.168.1.1") == [(3, 14), (19, 30)]
