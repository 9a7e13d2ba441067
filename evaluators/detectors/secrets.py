"""Credential detectors: vendor-shaped tokens, JWTs, PEM keys, assignments, seed phrases.

All matching runs on the normalised (lower-cased) view, so prefixes are
written in lower case. Regexes here only locate short fixed prefixes or use
bounded, non-nested quantifiers; token bodies are extended by the bounded
scanner in :mod:`evaluators.detectors.scan`.

Each detector is gated on literals every one of its matches contains.
:func:`find_secret_candidates` finds which of all those literals occur in one
pass (``_piikernel.present``, when the C module is built) and hands the set
to every detector (``present``); called without it, each detector tests its
own literals as before, with the same result.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from evaluators.detectors.checks import char_classes, is_placeholder, looks_random
from evaluators.detectors.findings import Candidate, mask
from evaluators.detectors.gates import GatedPattern, free_start, occurrences, windowed_finditer
from evaluators.detectors.scan import ALNUM, B64URL, TOKEN, Reach, boundary_after, scan_token
from evaluators.text.literals import LiteralSet

# The compiled literal scan (evaluators/detectors/_piikernel.c); absent when the
# package was installed without a C compiler, and then each detector tests its
# own gate literals.
try:
    from evaluators.detectors import _piikernel
except ImportError:  # pragma: no cover - depends on the build
    _piikernel = None  # type: ignore[assignment]

CREDENTIAL = "credential"


@dataclass(frozen=True, slots=True)
class _TokenSpec:
    kind: str
    label: str
    charset: frozenset[str]
    min_len: int
    max_len: int
    extra: Callable[[str], bool] | None = None


def _sendgrid_ok(body: str) -> bool:
    parts = body.split(".")
    return len(parts) == 2 and 16 <= len(parts[0]) <= 40 and 16 <= len(parts[1]) <= 80


def _jwt_ok(body: str) -> bool:
    parts = body.split(".")
    return len(parts) == 3 and all(len(p) >= 8 for p in parts)


_SPECS: dict[str, tuple[str, _TokenSpec]] = {
    # group name -> (prefix regex, spec)
    "aws": (
        r"a(?:kia|sia|bia|cca|gpa|ida|ipa|npa|nva|roa|pka|sca)",
        _TokenSpec("aws_access_key", "AWS access key id", ALNUM, 16, 16),
    ),
    "ghpat": (r"github_pat_", _TokenSpec("github_token", "GitHub token", ALNUM | {"_"}, 40, 255)),
    "gh": (r"gh[pousr]_", _TokenSpec("github_token", "GitHub token", ALNUM, 30, 255)),
    "gitlab": (r"glpat-", _TokenSpec("gitlab_token", "GitLab token", B64URL, 20, 64)),
    "slack": (r"xox[abprse]-", _TokenSpec("slack_token", "Slack token", ALNUM | {"-"}, 20, 255)),
    "slackhook": (
        r"hooks\.slack\.com/services/",
        _TokenSpec("slack_webhook", "Slack webhook", ALNUM | {"/"}, 20, 120),
    ),
    "stripe": (r"(?:sk|rk)_live_", _TokenSpec("stripe_key", "Stripe live key", ALNUM, 16, 255)),
    "anthropic": (r"sk-ant-", _TokenSpec("anthropic_key", "Anthropic API key", B64URL, 32, 255)),
    "openai": (r"sk-", _TokenSpec("openai_key", "OpenAI-style sk- key", B64URL, 20, 255)),
    "google": (r"aiza", _TokenSpec("google_api_key", "Google API key", B64URL, 30, 40)),
    "sendgrid": (
        r"sg\.",
        _TokenSpec("sendgrid_key", "SendGrid key", B64URL | {"."}, 33, 121, _sendgrid_ok),
    ),
    "npm": (r"npm_", _TokenSpec("npm_token", "npm token", ALNUM, 30, 64)),
    "digitalocean": (
        r"do[pro]_v1_",
        _TokenSpec("digitalocean_token", "DigitalOcean token", ALNUM, 50, 70),
    ),
    "mailgun": (r"key-", _TokenSpec("mailgun_key", "Mailgun key", ALNUM, 32, 32)),
    "huggingface": (r"hf_", _TokenSpec("huggingface_token", "Hugging Face token", ALNUM, 30, 40)),
    "pypi": (r"pypi-", _TokenSpec("pypi_token", "PyPI token", B64URL, 50, 255)),
    "facebook": (r"eaa", _TokenSpec("facebook_token", "Meta access token", ALNUM, 60, 400)),
    "jwt": (r"eyj", _TokenSpec("jwt", "JSON Web Token", B64URL | {"."}, 40, 4000, _jwt_ok)),
}

_PREFIX_RE = re.compile(
    r"(?<![a-z0-9_\-])(?:" + "|".join(f"(?P<{g}>{p})" for g, (p, _) in _SPECS.items()) + ")"
)

# Literals that locate every prefix above: (literal, offset of the prefix start
# before it). Which of them occur is one pass of a LiteralSet; only those are
# then found with str.find, where the alternation above would be tried at
# every character of the text.
_PREFIX_LOCATORS: tuple[tuple[str, int], ...] = (
    *(
        ("a" + tail, 0)
        for tail in [
            "kia",
            "sia",
            "bia",
            "cca",
            "gpa",
            "ida",
            "ipa",
            "npa",
            "nva",
            "roa",
            "pka",
            "sca",
            "iza",
        ]
    ),
    *((f"gh{c}_", 0) for c in "pousr"),
    *((f"xox{c}-", 0) for c in "abprse"),
    ("github_pat_", 0),
    ("glpat-", 0),
    ("hooks.slack.com/services/", 0),
    ("_live_", 2),
    ("sk-", 0),
    ("sg.", 0),
    ("npm_", 0),
    ("_v1_", 3),
    ("key-", 0),
    ("hf_", 0),
    ("pypi-", 0),
    ("eaa", 0),
    ("eyj", 0),
)
_LOCATOR_SET = LiteralSet(lit for lit, _ in _PREFIX_LOCATORS)


def _prefix_matches(t: str, present: AbstractSet[str] | None = None) -> list[re.Match[str]]:
    """Exactly ``_PREFIX_RE.finditer(t)``, evaluated only where a prefix literal occurs
    (``present``: a set holding exactly those of the locators that occur in ``t``)."""
    if present is None:
        present = _LOCATOR_SET.present(t)
    if present.isdisjoint(_LOCATOR_SET.literals):
        return []
    starts: set[int] = set()
    for loc, back in _PREFIX_LOCATORS:
        if loc in present:
            starts.update(i - back for i in occurrences(t, loc) if i >= back)
    out: list[re.Match[str]] = []
    last = 0
    for p in sorted(starts):
        if p < last:
            continue
        m = _PREFIX_RE.match(t, p)
        if m is not None:
            out.append(m)
            last = m.end()
    return out


# The jwt.io homepage token is published documentation, not a credential.
_PUBLIC_JWT_SIGNATURES = ("sflkxwrjsmekkf2qt4fwpmejf36pok6yjv_adqssw5c",)
_DOC_CONTEXT = ("jwt.io", "your-256-bit-secret", "example token", "sample token")


def _vendor_tokens(t: str, present: AbstractSet[str] | None = None) -> list[Candidate]:
    out: list[Candidate] = []
    reaches: dict[str, Reach] = {}
    for m in _prefix_matches(t, present):
        group = m.lastgroup
        if group is None:
            continue
        reach = reaches.setdefault(group, Reach())
        if reach.seen(m.start()):
            continue
        spec = _SPECS[group][1]
        extra = spec.extra

        def valid(
            body: str, spec: _TokenSpec = spec, extra: Callable[[str], bool] | None = extra
        ) -> bool:
            if not spec.min_len <= len(body) <= spec.max_len:
                return False
            if extra is not None and not extra(body):
                return False
            return looks_random(
                body.replace(".", ""), min_len=min(spec.min_len, 16), min_entropy=2.5
            )

        got = scan_token(t, m.end(), spec.charset, spec.max_len, valid, reach)
        if got is None:
            continue
        end, body = got
        if not boundary_after(t, end, spec.charset | ALNUM):
            continue
        if spec.kind == "jwt":
            window = t[max(0, m.start() - 300) : m.start()]
            if body.endswith(_PUBLIC_JWT_SIGNATURES) or any(c in window for c in _DOC_CONTEXT):
                continue
        prefix = t[m.start() : m.end()]
        out.append(
            Candidate(
                spec.kind,
                CREDENTIAL,
                m.start(),
                end,
                f"{spec.label} ({mask(prefix + body, len(prefix) + 3)})",
                30,
            )
        )
    return out


# key = value assignments whose key names a secret ---------------------------------
_ASSIGN_RE = re.compile(
    r"(?<![a-z0-9])(?P<key>[a-z0-9_.\-]{0,30}?"
    r"(?P<word>password|passwd|passphrase|pwd|secret|token|api[_\-]?key|apikey|access[_\-]?key"
    r"|auth[_\-]?key|private[_\-]?key|accountkey|sharedaccesskey|credentials?)"
    r"[a-z0-9_\-]{0,20})[\"'`]? ?(?:=>|:=|=|:) ?[\"'`]?"
)
# Every key word above contains one of these.
_ASSIGN = GatedPattern(
    _ASSIGN_RE, [("pass", "pwd", "secret", "token", "key", "credential")], tolerant=False, min_len=3
)
# How far after the start of a key word's gate literal its ":" / "=" can be: the
# literal ends the word at most 11 characters on ("credentials"), then come up to
# 20 key characters, an optional quote and an optional space. 40 leaves margin.
_OPERATOR_REACH = 40
_OPERATORS = ":="


def _near_reference(t: str, literals: tuple[str, ...], chars: str, reach: int) -> list[int]:
    """The sorted, distinct starts of the literals' occurrences (overlapping ones
    included) with one of ``chars`` in ``t[p : p + reach]``: the reference for
    ``_piikernel.near``, which reads only the stretches before each of those
    characters instead of a ``str.find`` per place and character."""
    if reach < 0:
        raise ValueError("near(): reach must not be negative")
    return sorted(
        {
            p
            for lit in literals
            for p in occurrences(t, lit)
            if any(t.find(c, p, p + reach) >= 0 for c in chars)
        }
    )


def _assign_matches(t: str, present: AbstractSet[str] | None) -> Iterator[re.Match[str]]:
    """Exactly ``_ASSIGN.finditer(t, t, present)``, searching fewer windows.

    Why: prose is full of "token" and "key" with no assignment after them, and
    each locator place costs a ~160-character window where ``_ASSIGN_RE`` is
    tried at every position. Every match's key *word* holds a gate literal
    with the match's ":" or "=" at most ``_OPERATOR_REACH`` characters after
    its start, so places with neither there are dropped (by one
    ``_piikernel.near`` call) and the remaining ones still meet :func:`windowed_finditer`'s
    contract (every match contains one of them).
    """
    locator = _ASSIGN.locator
    if locator is None:  # pragma: no cover - _ASSIGN is built with a locator
        yield from _ASSIGN.finditer(t, t, present)
        return
    if not _ASSIGN.gates_hold(t, present):
        return
    # a literal absent from the text has no places, so this is the locator's
    # positions (or positions_of, given ``present``) with the far ones dropped
    if _piikernel is not None:
        near = _piikernel.near(t, locator.literals, _OPERATORS, _OPERATOR_REACH)
    else:
        near = _near_reference(t, locator.literals, _OPERATORS, _OPERATOR_REACH)
    if near:
        yield from windowed_finditer(_ASSIGN_RE, t, near, _ASSIGN.width, locator.max_len())


_VALUE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-.~+/=!@#$%^&*?")
_PASSWORD_WORDS = ("password", "passwd", "passphrase", "pwd")
_HASH_PREFIXES = ("$2a$", "$2b$", "$2y$", "$argon2", "$pbkdf2", "$6$", "$5$", "sha256:")


def _value_ok(word: str, key: str, value: str) -> bool:
    if is_placeholder(value) or value.startswith(_HASH_PREFIXES) or "hash" in key:
        return False
    if word in _PASSWORD_WORDS:
        return len(value) >= 8 and char_classes(value) >= 2 and "(" not in value
    return looks_random(value.rstrip("="), min_len=16, min_entropy=3.0)


def _assignments(t: str, present: AbstractSet[str] | None = None) -> list[Candidate]:
    out: list[Candidate] = []
    if ":" not in t and "=" not in t:
        return out  # every _ASSIGN_RE match holds its ":" / "=" / "=>" / ":="
    reach = Reach()
    for m in _assign_matches(t, present):
        if reach.seen(m.start()):
            continue
        word = m.group("word").replace("-", "_")
        key = m.group("key")

        def valid(v: str, word: str = word, key: str = key) -> bool:
            return _value_ok(word, key, v)

        got = scan_token(t, m.end(), _VALUE_CHARS, 256, valid, reach)
        if got is None:
            continue
        end, body = got
        kind = "password" if word in _PASSWORD_WORDS else "api_key"
        out.append(
            Candidate(
                kind, CREDENTIAL, m.end(), end, f"secret assigned to '{key}' ({mask(body)})", 10
            )
        )
    return out


_URL_PARAM_RE = re.compile(
    r"[?&;](?P<key>access_token|auth_token|id_token|refresh_token|token|api_key|apikey|key"
    r"|sig|signature|x-amz-signature|x-amz-security-token|secret|client_secret|password"
    r"|session|sessionid|auth)="
)


def _url_tokens(t: str) -> list[Candidate]:
    out: list[Candidate] = []
    if "=" not in t:
        return out  # every _URL_PARAM_RE match ends with "="
    reach = Reach()
    for m in _URL_PARAM_RE.finditer(t):
        if reach.seen(m.start()):
            continue
        got = scan_token(
            t,
            m.end(),
            TOKEN - {"&", ";"},
            512,
            lambda v: looks_random(v, min_len=20, min_entropy=3.0),
            reach,
        )
        if got is None:
            continue
        end, body = got
        out.append(
            Candidate(
                "url_token",
                CREDENTIAL,
                m.end(),
                end,
                f"access token in URL parameter '{m.group('key')}' ({mask(body)})",
                12,
            )
        )
    return out


_BEARER_RE = re.compile(r"bearer ")  # must not follow [a-z0-9]: see free_start


def _bearer(t: str, present: AbstractSet[str] | None = None) -> list[Candidate]:
    out: list[Candidate] = []
    if present is not None and "bearer " not in present:
        return out  # every match is the literal itself
    reach = Reach()
    for m in free_start(_BEARER_RE, t, ALNUM):
        if reach.seen(m.start()):
            continue
        got = scan_token(
            t, m.end(), TOKEN, 1024, lambda v: looks_random(v, min_len=20, min_entropy=3.0), reach
        )
        if got is None:
            continue
        end, body = got
        out.append(
            Candidate("bearer_token", CREDENTIAL, m.end(), end, f"bearer token ({mask(body)})", 8)
        )
    return out


_URL_CRED_RE = re.compile(r"[a-z][a-z0-9+.\-]{1,15}://[a-z0-9._~%\-]{1,64}:")
_URL_CRED = GatedPattern(_URL_CRED_RE, [("://",)], tolerant=False, min_len=3)


def _url_credentials(t: str, present: AbstractSet[str] | None = None) -> list[Candidate]:
    out: list[Candidate] = []
    for m in _URL_CRED.finditer(t, t, present):
        j = m.end()
        k = j
        limit = min(len(t), j + 128)
        while k < limit and t[k] not in "@/ \"'`":
            k += 1
        if k >= len(t) or t[k] != "@":
            continue
        pw = t[j:k]
        if len(pw) >= 8 and char_classes(pw) >= 2 and not is_placeholder(pw):
            out.append(
                Candidate(
                    "password", CREDENTIAL, j, k, f"password embedded in a URL ({mask(pw, 2)})", 9
                )
            )
    return out


_PEM_BEGIN_RE = re.compile(r"-----begin (?P<label>[a-z0-9 ]{0,30})private key(?: block)?-----")
_PEM_END = "-----end "
_PEM_BEGIN = "-----begin "  # the literal every _PEM_BEGIN_RE match opens with


def _pem_blocks(t: str, present: AbstractSet[str] | None = None) -> list[Candidate]:
    out: list[Candidate] = []
    if present is not None and _PEM_BEGIN not in present:
        return out
    for m in _PEM_BEGIN_RE.finditer(t):
        end_at = t.find(_PEM_END, m.end(), m.end() + 20000)
        if end_at < 0:
            body_end = m.end()
            limit = min(len(t), m.end() + 20000)
            while body_end < limit and (t[body_end] in ALNUM or t[body_end] in "+/= "):
                body_end += 1
            stop = body_end
        else:
            close = t.find("-----", end_at + len(_PEM_END), end_at + 80)
            stop = close + 5 if close >= 0 else end_at + len(_PEM_END)
            body_end = end_at
        body = t[m.end() : body_end].replace(" ", "")
        if len(body) < 40 or is_placeholder(body):
            continue
        out.append(
            Candidate("private_key", CREDENTIAL, m.start(), stop, "PEM private-key block", 40)
        )
    return out


# Seed phrases ---------------------------------------------------------------------
_SEED_CUE_RE = re.compile(
    r"(?:(?:seed|recovery|mnemonic|backup|secret|wallet) (?:phrase|words|sentence)"
    r"|mnemonic|seed)(?![a-z])"
)  # must not follow a letter: see free_start
_SEED_GATES = ("seed", "mnemonic", " phrase", " words", " sentence")
_SEED_GATE_SET = LiteralSet(_SEED_GATES)  # whether any occurs, in one pass
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")
_ALNUM_RUN = re.compile(r"[a-z0-9]+")
_ALNUM_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_STOPWORDS = frozenset(
    [
        "the",
        "and",
        "your",
        "you",
        "with",
        "this",
        "these",
        "that",
        "them",
        "they",
        "their",
        "there",
        "then",
        "than",
        "are",
        "was",
        "were",
        "from",
        "into",
        "have",
        "has",
        "had",
        "will",
        "would",
        "should",
        "could",
        "what",
        "which",
        "who",
        "whose",
        "its",
        "our",
        "for",
        "not",
        "but",
        "been",
        "being",
        "does",
        "did",
        "here",
        "her",
        "his",
        "she",
        "him",
        "we",
        "us",
        "is",
        "it",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "or",
        "as",
        "be",
        "an",
        "if",
        "so",
        "do",
        "my",
        "me",
        "no",
    ]
)


def _seed_phrases(
    t: str, raw_breaks: Callable[[int, int], bool], present: AbstractSet[str] | None = None
) -> list[Candidate]:
    out: list[Candidate] = []
    last_end = -1
    if present is None:
        present = _SEED_GATE_SET.present(t)
    if present.isdisjoint(_SEED_GATES):
        return out
    n = len(t)
    for m in free_start(_SEED_CUE_RE, t, _LETTERS):
        if m.start() < last_end:
            continue  # already inside a window scanned from an earlier cue
        last_end = min(len(t), m.end() + 600)
        window_end = min(len(t), m.end() + 600)
        run: list[tuple[int, int]] = []
        best: list[tuple[int, int]] = []
        # each run of [a-z0-9] in the window (cut at its end), in order; a word
        # is what [a-z0-9]{1,8} reads there: the whole run, 1-8 long (a run the
        # window cuts counts only when cut at exactly 8 or at its real end)
        for word in _ALNUM_RUN.finditer(t, m.end(), window_end):
            pos, k = word.span()
            size = k - pos
            whole = size == 8 or (
                size < 8 and (k < window_end or k == n or t[k] not in _ALNUM_CHARS)
            )
            ok_word = whole and t[pos:k] not in _STOPWORDS
            sep_ok = run and t[run[-1][1] : pos] == " "
            if (
                ok_word
                and (not run or sep_ok)
                and not (run and len(run) >= 12 and raw_breaks(run[-1][1], pos))
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
        if len(run) > len(best):
            best = run
        if len(best) < 12:
            continue
        best = best[:26]
        short = sum(1 for s, e in best if e - s < 3)
        if short > 2:
            continue
        s, e = best[0][0], best[-1][1]
        out.append(
            Candidate(
                "seed_phrase", CREDENTIAL, s, e, f"wallet seed phrase ({len(best)} words)", 35
            )
        )
        last_end = e
    return out


#: Every literal a detector above is gated on: which of them occur in a text
#: is one ``_piikernel.present`` pass.
GATE_LITERALS: tuple[str, ...] = tuple(
    sorted(
        {
            *_LOCATOR_SET.literals,
            *_ASSIGN.literals(),
            *_URL_CRED.literals(),
            "bearer ",
            _PEM_BEGIN,
            *_SEED_GATES,
        }
    )
)


def find_secret_candidates(
    t: str, raw_breaks: Callable[[int, int], bool], present: AbstractSet[str] | None = None
) -> list[Candidate]:
    """All credential candidates in normalised text ``t`` (overlaps resolved later).

    ``present``, when given, holds exactly those of :data:`GATE_LITERALS` that
    occur in ``t`` (it may hold other strings too); without it, the C module
    finds them in one pass, or each detector tests its own.
    """
    if present is None and _piikernel is not None:
        present = _piikernel.present(t, GATE_LITERALS)
    if present is not None and present.isdisjoint(GATE_LITERALS):
        # the usual case: every detector but the URL-parameter one is gated on
        # a literal of GATE_LITERALS and finds nothing without it
        return _url_tokens(t)
    return (
        _vendor_tokens(t, present)
        + _assignments(t, present)
        + _url_tokens(t)
        + _bearer(t, present)
        + _url_credentials(t, present)
        + _pem_blocks(t, present)
        + _seed_phrases(t, raw_breaks, present)
    )
