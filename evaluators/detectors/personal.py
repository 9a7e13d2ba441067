"""Personal-data detectors: email, phone, SSN, payment card, IBAN, IP, DOB, MRN,
passport and street address.

Numbers are found by one pass over digit runs that groups neighbouring runs
into clusters (separators: space, hyphen, dot, parentheses, plus) and then
asks each shape (phone, SSN, card) whether a window of the cluster fits it.
A cluster may contain one extra space-split group - the trace of a tab or
line break inserted in the middle of a number - which is merged back.

The scans that locate candidates (the characters around each '@', digit
clusters, IPv4 shapes, IBAN and ZIP starts, cue literals) run in the C
module ``_piikernel`` when it is built; each has a pure-Python reference
here (``_email_shapes``, ``_number_clusters``, ``_ipv4_spans``,
``_iban_starts``, ...) that returns the same value and is used without it.
Validation of the few candidates stays in Python either way.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from functools import lru_cache

from evaluators.detectors.checks import iban_ok, luhn_ok, ssn_ok
from evaluators.detectors.findings import Candidate
from evaluators.detectors.gates import free_start, windowed_finditer
from evaluators.detectors.scan import ALNUM, scan_left
from evaluators.text.literals import LiteralSet
from evaluators.text.starts import class_mask, class_runs, digit_led_finditer, tried_at

# The compiled candidate scans (evaluators/detectors/_piikernel.c); absent when
# the package was installed without a C compiler, and then the pure-Python
# references below find the same candidates.
try:
    from evaluators.detectors import _piikernel
except ImportError:  # pragma: no cover - depends on the build
    _piikernel = None  # type: ignore[assignment]

PII = "pii"
# ``tuple.__new__`` on the class skips the NamedTuple's Python-level __new__.
_new_tuple = tuple.__new__

# --- email -----------------------------------------------------------------------
_LOCAL = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._%+-'")
_DOMAIN = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.-")
_RESERVED_DOMAINS = (
    "example.com",
    "example.org",
    "example.net",
    "example.edu",
    "test.com",
    "localhost",
    "invalid",
    "example",
    "test",
    "local",
)
_ROLE_LOCALS = frozenset(
    [
        "noreply",
        "no-reply",
        "donotreply",
        "do-not-reply",
        "support",
        "press",
        "info",
        "contact",
        "help",
        "sales",
        "hello",
        "admin",
        "webmaster",
        "postmaster",
        "abuse",
        "security",
        "privacy",
        "billing",
        "team",
        "careers",
        "jobs",
        "marketing",
        "media",
        "news",
        "feedback",
        "service",
        "customerservice",
        "office",
        "legal",
        "hr",
    ]
)
_AT_RE = re.compile("@")


def _domain_valid(domain: str) -> bool:
    labels = domain.split(".")
    return len(labels) >= 2 and all(labels) and labels[-1].isalpha() and len(labels[-1]) >= 2


_RESERVED_SET = frozenset(_RESERVED_DOMAINS)
_RESERVED_SUFFIXES = tuple("." + d for d in _RESERVED_DOMAINS)
# A run of _DOMAIN characters, as long as the scan below may take.
_DOMAIN_RUN = re.compile(r"[a-z0-9.\-]{0,253}")


def _reserved(domain: str) -> bool:
    return (
        domain in _RESERVED_SET
        or domain.endswith(_RESERVED_SUFFIXES)
        or ".example." in f".{domain}."
    )


def find_emails(t: str) -> list[Candidate]:
    """Addresses around each '@'; one space on either side of '@' or inside the
    domain is bridged, since a reader still sees the address. Reserved
    domains and role mailboxes are not personal data."""
    return _emails_from(_piikernel.emails(t) if _piikernel is not None else _email_shapes(t))


def _emails_from(shapes: list[tuple[int, int, str, str]]) -> list[Candidate]:
    """The candidates among ``_email_shapes`` results. Built with
    ``tuple.__new__`` (what ``Candidate(...)`` builds, without its Python-level
    ``__new__``): a trace repeats its addresses, so this runs several times
    per evaluation."""
    not_personal = _not_personal
    return [
        _new_tuple(Candidate, ("email", PII, ls, de, "email address", 20))
        for ls, de, local, domain in shapes
        if not not_personal(local, domain)
    ]


@lru_cache(maxsize=1024)
def _not_personal(local: str, domain: str) -> bool:
    """A reserved domain or a role mailbox. Memoised: a trace repeats its addresses."""
    return _reserved(domain) or local in _ROLE_LOCALS


def _email_shapes(t: str) -> list[tuple[int, int, str, str]]:
    """``(start, end, local part, domain)`` of each address shape around an '@'
    (the reference for ``_piikernel.emails``): a non-empty local part and a
    valid domain, before the reserved-domain and role-mailbox checks."""
    out: list[tuple[int, int, str, str]] = []
    n = len(t)
    for m in _AT_RE.finditer(t):
        at = m.start()
        left_end = at
        if at >= 2 and t[at - 1] == " " and t[at - 2] in _LOCAL:
            left_end = at - 1
        ls = scan_left(t, left_end, _LOCAL, 64)
        if ls == left_end:
            continue
        if left_end - ls <= 2 and ls >= 2 and t[ls - 1] == " " and t[ls - 2] in _LOCAL:
            ls = scan_left(t, ls - 1, _LOCAL, 64)
        local = t[ls:left_end].replace(" ", "").strip(".'")
        ds = at + 1
        if ds + 1 < n and t[ds] == " " and t[ds + 1] in _DOMAIN:
            ds += 1
        run = _DOMAIN_RUN.match(t, ds)  # {0,253}: always matches
        de = run.end() if run is not None else ds
        domain = t[ds:de].rstrip(".-")
        de = ds + len(domain)
        if not _domain_valid(domain) and de + 1 < n and t[de] == " " and t[de + 1] in _DOMAIN:
            k = de + 1
            while k < n and k - ds < 253 and t[k] in _DOMAIN:
                k += 1
            joined = (domain + t[de + 1 : k]).rstrip(".-")
            if _domain_valid(joined):
                domain, de = joined, de + 1 + len(joined) - len(domain)
        if not local or not _domain_valid(domain):
            continue
        while ls < at and t[ls] in ".'":
            ls += 1
        out.append((ls, de, local, domain))
    return out


# --- digit clusters: phone, SSN, card ---------------------------------------------
_DIGITS_RE = re.compile(r"\d+")
_SEP_CHARS = frozenset(" -.()")
_TOLL_FREE = frozenset({"800", "888", "877", "866", "855", "844", "833", "822"})
_TEST_CARDS = frozenset(
    {
        "4242424242424242",
        "4000056655665556",
        "5555555555554444",
        "2223003122003222",
        "5200828282828210",
        "5105105105105100",
        "378282246310005",
        "371449635398431",
        "6011111111111117",
        "6011000990139424",
        "3056930009020004",
        "36227206271667",
        "3566002020360505",
        "6200000000000005",
        "4111111111111111",
        "4012888888881881",
        "4222222222222",
        "5431111111111111",
        "6011601160116611",
        "378734493671000",
        "30569309025904",
        "38520000023237",
        "3530111333300000",
        "4917610000000000",
        "4000000000000002",
        "4000000000009995",
        "4000000000000077",
        "4000000000003220",
    }
)


class _Group:
    __slots__ = ("digits", "end", "sep", "start")

    def __init__(self, start: int, end: int, digits: str, sep: str) -> None:
        self.start = start
        self.end = end
        self.digits = digits
        self.sep = sep  # separator text before this group ("" for the first)


# A run of digits and separators long enough to hold 8 digits. Every shape below
# needs at least 8 digits (international phone), and a cluster never leaves
# the run of digit and separator characters it starts in.
_NUMBER_RUN_RE = re.compile(r"\d[\d .()\-]{7,}")
_ASCII_DIGITS = "0123456789"  # what \d means on ASCII text


def _clusters(t: str, lo: int = 0, hi: int | None = None) -> Iterator[tuple[str, list[_Group]]]:
    """Yield (prefix char, groups) for runs of digit groups joined by <=3 separator chars."""
    groups: list[_Group] = []
    prefix = ""
    prev_end = -10
    for m in _DIGITS_RE.finditer(t, lo, len(t) if hi is None else hi):
        s, e = m.start(), m.end()
        gap = t[prev_end:s] if groups else ""
        if (
            groups
            and s - prev_end <= 3
            and all(c in _SEP_CHARS for c in gap)
            and gap.count(" ") <= 2
        ):
            groups.append(_Group(s, e, m.group(), gap))
        else:
            if groups:
                yield prefix, groups
            groups = [_Group(s, e, m.group(), "")]
            j = s
            while j > 0 and t[j - 1] in "(":
                j -= 1
            prefix = "+" if j > 0 and t[j - 1] == "+" else ""
            if s > 0 and (
                t[s - 1] in ALNUM
                or t[s - 1] in "_/:$#"
                or (t[s - 1] in "-." and s > 1 and t[s - 2] in ALNUM)
            ):
                prefix = "x"  # glued to a word, version, path or amount: not a standalone number
        prev_end = e
    if groups:
        yield prefix, groups


def _merged_variants(groups: list[_Group]) -> Iterator[list[str]]:
    """The group digit lists as written, and with one space-split pair re-joined."""
    base = [g.digits for g in groups]
    yield base
    for i in range(1, len(groups)):
        if groups[i].sep == " " and not groups[i - 1].sep.endswith(")"):
            yield [*base[: i - 1], base[i - 1] + base[i], *base[i + 1 :]]


def _nanp_ok(area: str, exchange: str, line: str) -> bool:
    if area[0] in "01" or exchange[0] in "01":
        return False
    if area in _TOLL_FREE or area == "555" or area[1:] == "11" or exchange[1:] == "11":
        return False
    return exchange != "555"


def _window_spans(groups: list[_Group], size: int) -> Iterator[tuple[int, int]]:
    for i in range(0, len(groups) - size + 1):
        yield i, i + size


# The fewest digits any shape below accepts (the shortest international phone
# number); a window holding fewer is never classified.
_MIN_SHAPE_DIGITS = 8


def _classify(prefix: str, groups: list[_Group], t: str) -> Candidate | None:
    """Decide whether a window of digit groups is a phone, SSN or card number."""
    seps = [g.sep for g in groups[1:]]
    start, end = groups[0].start, groups[-1].end
    for variant in _merged_variants(groups):
        lens = [len(d) for d in variant]
        joined = "".join(variant)
        # SSN: 3-2-4 with hyphens
        if (
            lens == [3, 2, 4]
            and all("-" in s for s in seps if s.strip() != "")
            and "-" in "".join(seps)
        ):
            if ssn_ok(variant[0], variant[1], variant[2]):
                return Candidate("ssn", PII, start, end, "US social security number", 25)
            return None
        # Payment card: 4x4 (or 4-6-5 Amex), or a solid 15/16-digit run
        if (
            lens == [4, 4, 4, 4] or lens == [4, 6, 5] or (len(lens) == 1 and lens[0] in (15, 16))
        ) and _card_ok(joined):
            return Candidate("credit_card", PII, start, end, "payment card number (Luhn-valid)", 25)
        # North-American phone
        leading_one = len(variant) >= 2 and variant[0] == "1" and lens[0] == 1
        strip_one = (prefix == "+" and variant[0] == "1") or leading_one
        rest = variant[1:] if strip_one else variant
        rl = [len(d) for d in rest]
        if (rl == [3, 3, 4] or (rl == [10] and prefix == "+")) and _nanp_ok(
            joined[-10:-7], joined[-7:-4], joined[-4:]
        ):
            return Candidate("phone", PII, start, end, "phone number", 15)
        # International with explicit +CC
        # (UK drama-reserved ranges 020 7946 0xxx and 0113 496 0xxx are fiction, not people)
        if (
            prefix == "+"
            and variant[0] != "1"
            and len(variant) >= 2
            and 8 <= len(joined) <= 15
            and not joined.startswith(("4420794", "44113496"))
        ):
            return Candidate("phone", PII, start, end, "international phone number", 15)
    return None


def _card_ok(digits: str) -> bool:
    if digits in _TEST_CARDS or len(set(digits)) <= 3 or not luhn_ok(digits):
        return False
    d2 = int(digits[:2])
    d4 = int(digits[:4])
    return (
        digits[0] == "4"
        or 51 <= d2 <= 55
        or 2221 <= d4 <= 2720
        or d2 in (34, 37, 36, 38, 35, 62, 65)
        or digits.startswith(("6011", "644", "645", "646", "647", "648", "649"))
    )


#: One digit cluster worth classifying: its prefix ("" or "+") and its groups
#: as ``(start, end, sep_start)``, the separator being ``t[sep_start:start]``.
ClusterSpans = tuple[str, list[tuple[int, int, int]]]


def find_numbers(t: str) -> list[Candidate]:
    """Phones, SSNs and card numbers from digit clusters."""
    if _piikernel is not None:
        return _numbers_from(t, _piikernel.numbers(t, _MIN_SHAPE_DIGITS))
    return _numbers_from(t, _number_clusters(t, _MIN_SHAPE_DIGITS))


def _numbers_from(t: str, clusters: list[ClusterSpans]) -> list[Candidate]:
    """The phones, SSNs and cards among ``_number_clusters`` results."""
    out: list[Candidate] = []
    for pfx, spans in clusters:
        groups = [_Group(s, e, t[s:e], t[ss:s]) for s, e, ss in spans]
        _classify_groups(t, pfx, groups, out)
    return out


def _number_clusters(t: str, min_digits: int) -> list[ClusterSpans]:
    """The digit clusters worth classifying, in order (the reference for
    ``_piikernel.numbers``): a glued first or last group is dropped, and a
    cluster left with fewer than ``min_digits`` digits is skipped (no window
    of it holds enough digits for any shape)."""
    out: list[ClusterSpans] = []
    runs = class_runs(t, _ASCII_DIGITS, _ASCII_DIGITS + " .()-", 8)
    if runs is None:
        runs = (m.span() for m in _NUMBER_RUN_RE.finditer(t))
    for lo, hi in runs:
        for prefix, groups in _clusters(t, lo, hi):
            if prefix == "x":
                # a glued first group can still be followed by a real number: drop it
                groups = groups[1:]
                pfx = ""
            else:
                pfx = prefix
            if not groups:
                continue
            last_end = groups[-1].end
            if last_end < len(t) and (
                t[last_end] in ALNUM
                or (t[last_end] in "-." and last_end + 1 < len(t) and t[last_end + 1] in ALNUM)
            ):
                groups = groups[:-1]
            if sum(len(g.digits) for g in groups) < min_digits:
                continue
            out.append((pfx, [(g.start, g.end, g.start - len(g.sep)) for g in groups]))
    return out


def _classify_groups(t: str, pfx: str, groups: list[_Group], out: list[Candidate]) -> None:
    """Append the phones, SSNs and cards among the windows of one digit cluster."""
    taken_until = -1
    n = len(groups)
    for size in (5, 4, 3, 2, 1):
        for i, j in _window_spans(groups, size):
            if groups[i].start < taken_until:
                continue
            win = groups[i:j]
            p = pfx if i == 0 else ""
            if i > 0 and win[0].sep.strip() not in ("", "(") and "+" not in win[0].sep:
                continue
            if (
                j < n
                and groups[j].sep.strip(" ") in ("", "-", ".")
                and size < n
                and (groups[j].sep != " " or len(groups[j].digits) < 3)
            ):
                continue
            c = _classify(p, win, t)
            if c is not None:
                s = c.start - (1 if p == "+" and c.start > 0 and t[c.start - 1] == "+" else 0)
                if p == "+" and s == c.start and c.start > 1 and t[c.start - 2] == "+":
                    s = c.start - 2
                if t[s : c.start] == "" and c.start > 0 and t[c.start - 1] == "(":
                    s = c.start - 1
                out.append(Candidate(c.kind, c.category, s, c.end, c.detail, c.priority))
                taken_until = c.end


# --- IBAN ------------------------------------------------------------------------
_IBAN_LENGTHS = {
    "AD": 24,
    "AE": 23,
    "AL": 28,
    "AT": 20,
    "AZ": 28,
    "BA": 20,
    "BE": 16,
    "BG": 22,
    "BH": 22,
    "BR": 29,
    "CH": 21,
    "CR": 22,
    "CY": 28,
    "CZ": 24,
    "DE": 22,
    "DK": 18,
    "DO": 28,
    "EE": 20,
    "EG": 29,
    "ES": 24,
    "FI": 18,
    "FO": 18,
    "FR": 27,
    "GB": 22,
    "GE": 22,
    "GI": 23,
    "GL": 18,
    "GR": 27,
    "GT": 28,
    "HR": 21,
    "HU": 28,
    "IE": 22,
    "IL": 23,
    "IS": 26,
    "IT": 27,
    "JO": 30,
    "KW": 30,
    "KZ": 20,
    "LB": 28,
    "LI": 21,
    "LT": 20,
    "LU": 20,
    "LV": 21,
    "MC": 27,
    "MD": 24,
    "ME": 22,
    "MK": 19,
    "MR": 27,
    "MT": 31,
    "MU": 30,
    "NL": 18,
    "NO": 15,
    "PK": 24,
    "PL": 28,
    "PS": 29,
    "PT": 25,
    "QA": 29,
    "RO": 24,
    "RS": 22,
    "SA": 24,
    "SE": 24,
    "SI": 19,
    "SK": 24,
    "SM": 27,
    "TN": 24,
    "TR": 26,
    "UA": 29,
    "VG": 24,
    "XK": 20,
}
_DOC_IBANS = frozenset(
    {
        "GB82WEST12345698765432",
        "DE89370400440532013000",
        "GB29NWBK60161331926819",
        "FR1420041010050500013M02606",
    }
)
_IBAN_CUE_RE = re.compile(r"(?<![a-z])(?:iban|bank account|account (?:no|number))(?![a-z])")
# The check digits of an IBAN, followed by enough characters for the shortest
# one (15: two letters, two digits, 11 more). Led by a digit so ``re`` skips
# ahead in C; the two letters and the boundary before them are checked after.
_IBAN_DIGITS_RE = re.compile(r"\d\d(?=[a-z0-9 ]{11})")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")


def _iban_starts(t: str) -> Iterator[int]:
    """Starts of ``(?<![a-z0-9])[a-z]{2}\\d{2}`` in ``t`` that leave room for an IBAN."""
    mask = class_mask(t)
    if mask is not None:
        # ASCII: the letters-then-digits shape is one bytes.find; no earlier
        # ``\d\d`` match can cover these digits (a letter precedes them)
        c = mask.find(b"aa11")
        while c >= 0:
            if (c == 0 or t[c - 1] not in ALNUM) and _IBAN_DIGITS_RE.match(t, c + 2):
                yield c
            c = mask.find(b"aa11", c + 1)
        return
    for m in _IBAN_DIGITS_RE.finditer(t):
        s = m.start() - 2
        if s >= 0 and t[s] in _LOWER and t[s + 1] in _LOWER and (s == 0 or t[s - 1] not in ALNUM):
            yield s


def find_ibans(t: str) -> list[Candidate]:
    """Country-aware IBANs (length table + mod-97), written solid or in groups of four."""
    # two returns, not one conditional: mypy types the conditional as the C
    # scan's list, and the compiled module would refuse the generator
    if _piikernel is not None:
        return _ibans_from(t, _piikernel.iban_starts(t))
    return _ibans_from(t, _iban_starts(t))


def _ibans_from(t: str, starts: Iterable[int]) -> list[Candidate]:
    """The IBANs starting at ``_iban_starts`` places."""
    out: list[Candidate] = []
    n = len(t)
    for start in starts:
        cc = t[start : start + 2].upper()
        want = _IBAN_LENGTHS.get(cc)
        if want is None:
            continue
        chars: list[str] = []
        j = start
        spaces = 0
        while j < n and len(chars) < want:
            c = t[j]
            if c in ALNUM:
                chars.append(c)
            elif c == " " and j + 1 < n and t[j + 1] in ALNUM and spaces < 10:
                spaces += 1
            else:
                break
            j += 1
        if len(chars) != want or (j < n and t[j] in ALNUM):
            continue
        iban = "".join(chars).upper()
        if iban in _DOC_IBANS or not iban[2:4].isdigit():
            continue
        if iban_ok(iban):
            detail = f"IBAN ({cc} bank account, mod-97 valid)"
        elif _IBAN_CUE_RE.search(t, max(0, start - 24), start):
            detail = f"IBAN-labelled {cc} account number (checksum does not verify)"
        else:
            continue
        out.append(Candidate("iban", PII, start, j, detail, 25))
    return out


# --- IP addresses -----------------------------------------------------------------
_IPV4_RE = re.compile(r"(?<![0-9a-z.])\d{1,3}\.\d{1,3}\.?\s?\d{0,3}\.\s?\d{1,3}(?:\.\d{1,3})?")
# A dot followed by a digit: every IPv4 match contains one (found by a '.'-led search).
_IPV4_GATE_RE = re.compile(r"\.\d")
_IPV6_RE = re.compile(r"(?<![0-9a-z:])[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}(?![0-9a-z:])")
_IPV6_WIDTH = 4 + 7 * 5
# Two colons at most four hex digits apart: every IPv6 match contains one.
_IPV6_GATE_RE = re.compile(r":[0-9a-f]{0,4}:")
_PUBLIC_RESOLVERS = frozenset(
    {"8.8.8.8", "8.8.4.4", "1.1.1.1", "1.0.0.1", "9.9.9.9", "208.67.222.222", "208.67.220.220"}
)


def _ipv4_spans(t: str) -> list[tuple[int, int]]:
    """The spans of ``_IPV4_RE.finditer(t)``. ``_piikernel.ipv4`` returns these
    less the ones the checks in :func:`find_ips` certainly reject before the
    address checks (such as 127.0.0.1 or a version number), which Python
    would otherwise slice, split and parse one by one."""
    # a match opens with 1-3 digits and then a gate's dot: it starts 1-3 before one
    starts = [g.start() - k for g in _IPV4_GATE_RE.finditer(t) for k in (1, 2, 3)]
    return [m.span() for m in tried_at(_IPV4_RE, t, starts)]


def find_ips(t: str) -> list[Candidate]:
    """Public IPv4 and IPv6 addresses; private, reserved and documentation ranges pass."""
    if _piikernel is not None:
        return _ips_from(t, _piikernel.ipv4(t), _piikernel.ipv6_gates(t))
    return _ips_from(t, _ipv4_spans(t), [g.start() for g in _IPV6_GATE_RE.finditer(t)])


def _ips_from(t: str, spans: list[tuple[int, int]], gates: list[int]) -> list[Candidate]:
    """The public addresses among IPv4 matches ``spans`` and IPv6 matches around ``gates``."""
    out: list[Candidate] = []
    for start, end in spans:
        matched = t[start:end]
        text = matched.replace(" ", "")
        parts = text.split(".")
        if len(parts) != 4 or not all(parts) or matched.count(" ") > 1:
            continue
        if end < len(t) and (
            t[end] in ALNUM or (t[end] == "." and end + 1 < len(t) and t[end + 1].isdigit())
        ):
            continue
        if any(int(p) > 255 for p in parts):
            continue
        before = t[max(0, start - 12) : start]
        if "version" in before or before.endswith(("v", "v ")):
            continue
        if int(parts[0]) in (10, 127):
            continue  # private and loopback ranges are never global
        try:
            ip = ipaddress.IPv4Address(".".join(str(int(p)) for p in parts))
        except ValueError:
            continue
        if not ip.is_global or str(ip) in _PUBLIC_RESOLVERS:
            continue
        out.append(Candidate("ip_address", PII, start, end, "public IPv4 address", 12))
    for m in windowed_finditer(_IPV6_RE, t, gates, _IPV6_WIDTH, pad=6) if gates else ():
        text = m.group()
        hexdigits = sum(c != ":" for c in text)
        if hexdigits < 8 or ("::" not in text and text.count(":") != 7):
            continue
        try:
            ip6 = ipaddress.IPv6Address(text)
        except ValueError:
            continue
        if not ip6.is_global:
            continue
        out.append(Candidate("ip_address", PII, m.start(), m.end(), "public IPv6 address", 12))
    return out


# --- contextual: DOB, MRN, passport -----------------------------------------------
# Cue patterns start at a letter boundary, checked by free_start (see gates);
# each is only searched when one of its literal gates occurs.
_DOB_CUE_RE = re.compile(
    r"(?:dob|d\.o\.b\.?|date of birth|birth ?date|born(?: on)?|birthday)(?![a-z])"
)
_DOB_GATES = ("dob", "d.o.b", "birth", "born")
_MONTHS = (
    "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april"
    "|june|july|august|september|october|november|december"
)
_DATE_RE = re.compile(
    r"(?:\d{1,4} ?[/.\-] ?\d{1,2} ?[/.\-] ?\d{2,4}"
    rf"|(?:{_MONTHS})\.? ?\d{{1,2}}(?:st|nd|rd|th)?,? ?\d{{4}}"
    rf"|\d{{1,2}}(?:st|nd|rd|th)? (?:of )?(?:{_MONTHS})\.?,? ?\d{{4}})"
)
_MRN_CUE_RE = re.compile(r"(?:mrn|medical record (?:number|no\.?|#))(?![a-z])[\s:#.\"'=]{0,4}")
_MRN_GATES = ("mrn", "medical record")
_MRN_VALUE_RE = re.compile(r"[a-z0-9-]{6,14}(?![a-z0-9])")
_PASSPORT_CUE_RE = re.compile(r"passport(?![a-z])")
_PASSPORT_VALUE_RE = re.compile(r"(?<![a-z0-9])(?:[a-z]\d{8}|\d{9}|[a-z]{2}\d{7})(?![a-z0-9])")


_CUE_GATES = LiteralSet((*_DOB_GATES, *_MRN_GATES, "passport"))  # all cue gates, one pass
#: The literals the detectors here are gated on (see find_personal_candidates).
GATE_LITERALS: tuple[str, ...] = _CUE_GATES.literals


def _cues(
    t: str, rx: re.Pattern[str], gates: tuple[str, ...], present: AbstractSet[str]
) -> Iterator[re.Match[str]]:
    """``(?<![a-z])rx`` matches, searched only when a literal every match contains
    occurs (``present``: the ``_CUE_GATES`` literals found in ``t``)."""
    if any(g in present for g in gates):
        yield from free_start(rx, t, _LOWER)


def find_contextual(t: str, present: AbstractSet[str] | None = None) -> list[Candidate]:
    """Values that are only personal data next to a label: DOB, MRN, passport number.

    ``present``, when given, holds exactly those of the cue gates that occur in
    ``t`` (and maybe other strings)."""
    out: list[Candidate] = []
    if present is None:
        if _piikernel is not None:
            present = _piikernel.present(t, GATE_LITERALS)
        else:
            present = _CUE_GATES.present(t)
    if present.isdisjoint(GATE_LITERALS):
        return out
    for m in _cues(t, _DOB_CUE_RE, _DOB_GATES, present):
        d = _DATE_RE.search(t, m.end(), min(len(t), m.end() + 30))
        if d is not None and not t[m.end() : d.start()].strip(" :\"'=,-()is"):
            out.append(Candidate("dob", PII, d.start(), d.end(), "date of birth", 18))
    for m in _cues(t, _MRN_CUE_RE, _MRN_GATES, present):
        v = _MRN_VALUE_RE.match(t, m.end())
        if v is not None and any(c.isdigit() for c in v.group()):
            out.append(Candidate("mrn", PII, v.start(), v.end(), "medical record number", 18))
    for m in _cues(t, _PASSPORT_CUE_RE, ("passport",), present):
        v = _PASSPORT_VALUE_RE.search(t, m.end(), min(len(t), m.end() + 40))
        if v is not None:
            out.append(Candidate("passport", PII, v.start(), v.end(), "passport number", 18))
    return out


# --- street addresses -------------------------------------------------------------
_SUFFIXES = (
    "street|st|road|rd|avenue|ave|lane|ln|drive|dr|court|ct|terrace|ter|boulevard|blvd"
    "|way|place|pl|circle|cir|parkway|pkwy|highway|hwy|square|sq|trail|trl|grove|row"
    "|alley|close|crescent|cres|walk|plaza|loop|run|path|pike"
)
# Starts at a digit not following [a-z0-9.,-/] (checked by free_start).
_STREET_RE = re.compile(
    r"\d{1,5}[a-z]? (?:(?:rue|via|calle|avenida|chemin|strada|rua) "
    r"(?:[a-z'\-]{1,20} ){0,4}?[a-z'\-]{2,20}"
    rf"|(?:[a-z'\-]{{2,20}} ){{1,4}}(?:{_SUFFIXES})\.?)(?![a-z])"
)
_STATES = (
    "al|ak|az|ar|ca|co|ct|de|fl|ga|hi|id|il|in|ia|ks|ky|la|me|md|ma|mi|mn|ms|mo|mt|ne|nv"
    "|nh|nj|nm|ny|nc|nd|oh|ok|or|pa|ri|sc|sd|tn|tx|ut|vt|va|wa|wv|wi|wy|dc"
)
_ZIP_RE = re.compile(
    rf"(?<![a-z0-9])(?:(?:{_STATES}),? \d{{5}}(?:-\d{{4}})?|zip(?: code)?:? \d{{5}})"
    r"(?![0-9])"
)
# The part of _ZIP_RE before its digits, ending where the search is cut off.
_ZIP_HEAD_RE = re.compile(rf"(?<![a-z0-9])(?:(?:{_STATES}),? |zip(?: code)?:? )\Z")


# What the two characters before a head's closing space can be: a state code
# ("ny 10001"), or the end of "zip", "zip:", "zip code", "zip code:". With a
# comma ("ny, 10001") the state sits one character further back.
_STATE_CODES = frozenset(_STATES.split("|"))
_ZIP_HEAD_TAILS = _STATE_CODES | {"ip", "p:", "de", "e:"}


_STREET_NOT_AFTER = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.,-/")
_FIVE_DIGITS_RE = re.compile(r"\d{5}")


def _may_have_zip(t: str, starts: Iterable[int] | None = None) -> bool:
    """Whether ``_ZIP_RE`` can match anywhere, even in a search cut off after the digits.

    Its five digits start a digit run (a space or ':' precedes them), and every
    run start is a ``_FIVE_DIGITS_RE`` match start; the head before them is at
    most 10 characters ("zip code: "). ``starts``: those match starts, when
    already found. The head's search only runs where it can match: each of
    its alternatives ends with one space after a state code, a state code and
    a comma, or a form of "zip" (two slices instead of a search of ten places
    through fifty alternatives); most five-digit runs (ports, counts) fail
    that at once.
    """
    if starts is None:
        if _piikernel is not None:
            starts = _piikernel.five_digit_starts(t)
        else:
            starts = (m.start() for m in digit_led_finditer(_FIVE_DIGITS_RE, t, 5))
    tails, states, head = _ZIP_HEAD_TAILS, _STATE_CODES, _ZIP_HEAD_RE.search
    for p in starts:
        # inline, not a helper: a Python call per start costs more than the test
        if p < 3 or t[p - 1] != " ":
            continue
        tail = t[p - 3 : p - 1] in tails or (t[p - 2] == "," and t[p - 4 : p - 2] in states)
        if tail and head(t, max(0, p - 10), p) is not None:
            return True
    return False


def find_addresses(t: str, five_digit_starts: Iterable[int] | None = None) -> list[Candidate]:
    """A numbered street followed, within a short distance, by a state + ZIP (or 'zip NNNNN').

    ``five_digit_starts``, when given, are the starts of ``_FIVE_DIGITS_RE``
    matches in ``t``."""
    out: list[Candidate] = []
    if not _may_have_zip(t, five_digit_starts):
        return out  # no ZIP code, so no address
    for m in free_start(_STREET_RE, t, _STREET_NOT_AFTER):
        z = _ZIP_RE.search(t, m.end(), min(len(t), m.end() + 140))
        if z is None:
            continue
        out.append(Candidate("address", PII, m.start(), z.end(), "street address", 14))
    return out


def find_personal_candidates(t: str, present: AbstractSet[str] | None = None) -> list[Candidate]:
    """All personal-data candidates in normalised text ``t``; ``present`` as for
    :func:`find_contextual` (the caller may have found it with other literals).

    With the C module, one call locates every detector's candidates and only
    the detectors that got some run: most texts hold no digit cluster, IBAN,
    IP or ZIP shape at all, and each detector call costs more than the scan.
    """
    if _piikernel is not None:
        shapes, clusters, ibans, v4, v6, fives = _piikernel.scan(t, _MIN_SHAPE_DIGITS)
        out = _emails_from(shapes) if shapes else []
        if clusters:
            out += _numbers_from(t, clusters)
        if ibans:
            out += _ibans_from(t, ibans)
        if v4 or v6:
            out += _ips_from(t, v4, v6)
        out += find_contextual(t, present)
        if fives:
            out += find_addresses(t, fives)
        return out
    return (
        find_emails(t)
        + find_numbers(t)
        + find_ibans(t)
        + find_ips(t)
        + find_contextual(t, present)
        + find_addresses(t)
    )
