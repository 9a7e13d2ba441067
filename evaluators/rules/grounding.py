"""``grounded_in_reads``: a cited location nothing the agent read supports.

The ground (ask, every tool output, inputs of calls that succeeded) is split
into whitespace tokens and their trailing path-segment sequences with plain
string operations — tool output is attacker-controlled, so no regex touches
it. Claims are extracted from the agent's own output.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from evaluators.context import EvalContext, Step
from evaluators.rules.base import Outcome, count, outcome, skip
from evaluators.rules.scan import anchored_finditer, lowered_twin
from evaluators.rules.tool_failure import failure_reason_of
from evaluators.text.case import lower
from evaluators.text.literals import LOWERED_OUTPUT

KNOWN_EXTENSIONS = frozenset(
    [
        "ts",
        "tsx",
        "js",
        "jsx",
        "mjs",
        "cjs",
        "py",
        "pyi",
        "rb",
        "go",
        "rs",
        "java",
        "kt",
        "c",
        "h",
        "cc",
        "cpp",
        "hpp",
        "cs",
        "md",
        "mdx",
        "rst",
        "txt",
        "json",
        "jsonl",
        "yaml",
        "yml",
        "toml",
        "ini",
        "cfg",
        "conf",
        "env",
        "sh",
        "bash",
        "zsh",
        "ps1",
        "sql",
        "html",
        "htm",
        "css",
        "scss",
        "less",
        "xml",
        "csv",
        "tsv",
        "lock",
        "log",
        "ipynb",
        "php",
        "swift",
        "vue",
        "svelte",
        "proto",
        "gradle",
        "properties",
        "dockerfile",
        "tf",
        "hcl",
        "pem",
        "crt",
        "key",
        "pdf",
        "png",
        "jpg",
        "jpeg",
        "svg",
        "gif",
    ]
)
UBIQUITOUS = frozenset(
    [
        "package.json",
        "package-lock.json",
        "readme.md",
        "readme",
        "src",
        "node_modules",
        "dist",
        "build",
        "index.ts",
        "index.js",
        "main.py",
        "__init__.py",
        "setup.py",
        "pyproject.toml",
        "requirements.txt",
        "makefile",
        "dockerfile",
        ".gitignore",
        "tsconfig.json",
        "license",
        "changelog.md",
        "src/index.ts",
        "src/index.js",
        "src/main.py",
        ".env",
        ".env.example",
    ]
)
_PROPOSAL = re.compile(
    r"\b(?:i would|i'd|you could|you can|we could|could create|could put|for example|e\.g\.|"
    r"such as|consider|suggest|"
    r"i created|i'll create|i will create|rename|create a|create an|add a new|new file|should live|"
    r"might)\b",
    re.I,
)
_PROPOSAL_LOWER = lowered_twin(_PROPOSAL)
# The alternatives of _PROPOSAL, as literals: every match is one of them.
_PROPOSAL_LITERALS = (
    "i would",
    "i'd",
    "you could",
    "you can",
    "we could",
    "could create",
    "could put",
    "for example",
    "e.g.",
    "such as",
    "consider",
    "suggest",
    "i created",
    "i'll create",
    "i will create",
    "rename",
    "create a",
    "create an",
    "add a new",
    "new file",
    "should live",
    "might",
)
_PROPOSAL_SET = LOWERED_OUTPUT.member(_PROPOSAL_LITERALS)
_URL = re.compile(r"https?://[^\s<>()\"'`\]]+")
# The lookahead skips plain words at once: a location has a dot or a slash
# somewhere in its run, so nothing without one needs the per-match work below.
_PATHISH = re.compile(
    r"(?<![\w@/.-])(?=[A-Za-z0-9_.\-/]*[./])(?:\.{0,2}/)?[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.\-]+)*/?"
)
_TRAIL = ".,;:)]}'\"`!?"
# A _PATHISH match begins where a run of its characters begins (its
# lookbehind refuses all of them) and lies inside that run. Only a match with
# a slash, or with a dot that some other character follows (the dot inside
# ``a.ts``), can be a location: a run with neither (``boot.`` at the end of a
# sentence) is not tried at all.
_PATHISH_RUN = re.compile(r"[A-Za-z0-9_./\-]*")
_LOCATION_ANCHOR = re.compile(r"/|\.[A-Za-z0-9_\-]")


def fold_location(loc: str) -> str:
    if "#" in loc:
        loc = loc.split("#", 1)[0]
    if "?" in loc:
        loc = loc.split("?", 1)[0]
    loc = lower(loc.rstrip(_TRAIL).rstrip("/"))
    if "://" in loc:
        loc = loc.split("://", 1)[1]
    return loc.replace("_", "-")


def _segments(loc: str) -> list[str]:
    return [s for s in fold_location(loc).split("/") if s and s != "."]


def _has_ext(seg: str) -> bool:
    if "." not in seg.strip("."):
        return False
    ext = seg.rsplit(".", 1)[1]
    return ext in KNOWN_EXTENSIONS


# The compiled location scan (evaluators/rules/_numkernel.c); absent when the
# package was installed without a C compiler, and then the reference below
# runs instead, with the same locations.
try:
    from evaluators.rules import _numkernel
except ImportError:  # pragma: no cover - depends on the build
    _numkernel = None  # type: ignore[assignment]


def extract_claims(text: str) -> list[tuple[int, int, str]]:
    """Locations the output cites: URLs with a path, paths, known-extension files.

    The compiled scan when it is built: one pass over the characters instead
    of a regex attempt per path-like run and a Python loop per token (half
    of the rule's cost)."""
    if _numkernel is not None:
        return _numkernel.locations(text, KNOWN_EXTENSIONS)
    return extract_claims_reference(text)


def extract_claims_reference(text: str) -> list[tuple[int, int, str]]:
    """:func:`extract_claims` in pure Python: the reference the C scan must equal."""
    found: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []
    for m in _URL.finditer(text):
        url = m.group(0).rstrip(_TRAIL)
        rest = url.split("://", 1)[1]
        if "/" in rest and rest.split("/", 1)[1].strip("/"):
            found.append((m.start(), m.start() + len(url), url))
            taken.append((m.start(), m.end()))
    for m in anchored_finditer(_PATHISH, _LOCATION_ANCHOR, text, _PATHISH_RUN):
        if taken and any(a <= m.start() < b for a, b in taken):
            continue
        tok = m.group(0).rstrip(_TRAIL.replace("/", ""))
        if not tok:
            continue
        segs = [s for s in tok.split("/") if s]
        if not segs:
            continue
        last = segs[-1].rstrip(".")
        is_loc = (
            _has_ext(last)
            or (
                tok.endswith("/")
                and len(segs) >= 1
                and not tok.startswith("/")
                and any(c.isalpha() for c in tok)
            )
            or (len(segs) >= 2 and not tok.startswith("/") and _has_ext(last))
        )
        if is_loc:
            end = m.start() + len(tok)
            found.append((m.start(), end, tok))
    return found


# Quote, bracket and separator characters split ground tokens like whitespace;
# one translate + split replaces eleven nested splits per token.
_SEPARATORS = str.maketrans(dict.fromkeys("\"'`,()[]{}=", " "))


def _ground_add(ground: set[str], text: str) -> None:
    """Adds every location ``text`` can ground: each token folded, and each
    trailing run of a path's segments. The compiled scan when it is built
    (it folds ASCII tokens itself and hands others to ``_ground_token``)."""
    if _numkernel is not None:
        _numkernel.ground_add(ground, text, _ground_token)
    else:
        _ground_add_reference(ground, text)


def _ground_add_reference(ground: set[str], text: str) -> None:
    """:func:`_ground_add` in pure Python: the reference the C scan must equal."""
    for tok in text.translate(_SEPARATORS).split():
        _ground_token(ground, tok)


def _ground_token(ground: set[str], tok: str) -> None:
    if "/" not in tok:
        folded = fold_location(tok)
        if folded and folded != ".":
            ground.add(folded)
        return
    segs = _segments(tok)
    for i in range(len(segs)):
        ground.add("/".join(segs[i:]))


def _in_proposal(out: str, start: int, end: int) -> bool:
    """The sentence holding ``out[start:end]`` proposes rather than reports."""
    sent_start = max(out.rfind(".", 0, start), out.rfind("\n", 0, start)) + 1
    sent_end_candidates = [i for i in (out.find(". ", end), out.find("\n", end)) if i >= 0]
    sentence = out[sent_start : min(sent_end_candidates) if sent_end_candidates else len(out)]
    found = (
        _PROPOSAL_LOWER.search(lower(sentence))
        if sentence.isascii()
        else _PROPOSAL.search(sentence)
    )
    return found is not None


def _no_proposal_anywhere(out: str, low: str | None = None) -> bool:
    """No sentence of ``out`` can match ``_PROPOSAL``: on ASCII text (where each
    sentence takes the lowered twin) none of its literal alternatives occurs
    in the lowered output (``low``, when the caller has it). Other text is
    left to the per-sentence search, since re.I folds some non-ASCII letters
    onto ASCII ones."""
    if not out.isascii():
        return False
    return not _PROPOSAL_SET.present(lower(out) if low is None else low)


def _unsupported(loc: str, ground: set[str], long_tails: list[str]) -> bool:
    """(The eager form of :func:`_unsupported_in`, kept as its reference.)
    ``loc`` is not ubiquitous, and neither it nor its last segment is in
    the ground nor continues a read's last token (a listing cut mid-name)."""
    folded = fold_location(loc)
    if folded in UBIQUITOUS or not folded:
        return False
    # _segments(loc), from the one fold
    segs = [s for s in folded.split("/") if s and s != "."]
    last = segs[-1] if segs else folded
    return not (
        folded in ground
        or last in ground
        or any(last.startswith(t) and t != last for t in long_tails)
    )


class _Ground:
    """The ground of one evaluation, built on first use.

    Whether a cited location is supported is only asked when the output cites
    one that is neither ubiquitous nor empty; an output citing nothing, or
    only ``package.json``, never needs the ground at all. Tool outputs run up
    to 256 KB each, so tokenising all of them into a set only when a location
    is looked up saves the rule's largest cost on such outputs. The texts are
    the ones the eager build would have added (a set: order is immaterial)."""

    __slots__ = ("_inputs", "_long_tails", "_set", "_tails", "_texts")

    def __init__(self, texts: list[str], tails: list[str], inputs: Sequence[Step] = ()) -> None:
        self._texts = texts
        self._tails = tails  # each read's last whitespace-separated token, unfolded
        # steps whose input's text is ground too: read (``Step.input_text``,
        # a JSON dump) only with the rest, when a location is looked up
        self._inputs = inputs
        self._set: set[str] | None = None
        self._long_tails: list[str] | None = None

    def tokens(self) -> set[str]:
        ground = self._set
        if ground is None:
            ground = self._set = set()
            for text in self._texts:
                _ground_add(ground, text)
            for st in self._inputs:
                _ground_add(ground, st.input_text)
        return ground

    def long_tails(self) -> list[str]:
        """The reads' last tokens' last segments of three characters or more."""
        long_tails = self._long_tails
        if long_tails is None:
            folded = (fold_location(last).rsplit("/", 1)[-1] for last in self._tails)
            long_tails = self._long_tails = [t for t in folded if len(t) >= 3]
        return long_tails


def _unsupported_in(loc: str, ground: _Ground) -> bool:
    """:func:`_unsupported` against a lazily built ground: the ground is only
    built for a location that is neither ubiquitous nor empty, and the read
    tails only folded when the ground lacks both forms of it."""
    folded = fold_location(loc)
    if folded in UBIQUITOUS or not folded:
        return False
    # _segments(loc), from the one fold
    segs = [s for s in folded.split("/") if s and s != "."]
    last = segs[-1] if segs else folded
    tokens = ground.tokens()
    if folded in tokens or last in tokens:
        return False
    return not any(last.startswith(t) and t != last for t in ground.long_tails())


def _unsupported_claims(
    claims: list[tuple[int, int, str]], ground: _Ground
) -> list[tuple[int, int, str]]:
    """The claims whose location :func:`_unsupported_in` calls unsupported, in
    order (repeats kept). The compiled loop when it is built: the fold, the
    ground lookups and the read tails' prefix test per distinct location were
    most of the rule's own Python."""
    if _numkernel is not None:
        return _numkernel.unsupported(
            claims, ground.tokens, ground._tails, UBIQUITOUS, fold_location
        )
    return _unsupported_claims_reference(claims, ground)


def _unsupported_claims_reference(
    claims: list[tuple[int, int, str]], ground: _Ground
) -> list[tuple[int, int, str]]:
    """:func:`_unsupported_claims` in pure Python: each distinct location
    decided once (an output cites the same one many times)."""
    unsupported: dict[str, bool] = {}
    out: list[tuple[int, int, str]] = []
    for claim in claims:
        loc = claim[2]
        need = unsupported.get(loc)
        if need is None:
            need = unsupported[loc] = _unsupported_in(loc, ground)
        if need:
            out.append(claim)
    return out


_UNGROUNDED = "location nothing read supports"


def grounded_in_reads(ctx: EvalContext) -> Outcome:
    texts: list[str] = [ctx.input or ""]
    tails: list[str] = []
    inputs: list[Step] = []  # their input_text is ground, made only when read
    for st in ctx.steps:
        out = st.output_text
        if out:
            if "truncated" in lower(out[-200:]):
                return skip(
                    f"the read of call #{st.index} was truncated; an absent location proves "
                    "nothing",
                    "defeated",
                )
            texts.append(out)
            tail = out.rsplit(None, 1)  # the last whitespace-separated token
            last = tail[-1] if tail else ""
            if last:
                tails.append(last)
        if failure_reason_of(ctx, st) is None:
            inputs.append(st)
    claims = extract_claims(ctx.output)
    ungrounded = _unsupported_claims(claims, _Ground(texts, tails, inputs))
    # (the context's lowered output, shared with the other rules that lower
    # it, is only read once a location turns out unsupported)
    if ungrounded and not _no_proposal_anywhere(ctx.output, ctx.output_lower):
        out = ctx.output
        ungrounded = [c for c in ungrounded if not _in_proposal(out, c[0], c[1])]
    ev: list[dict[str, Any]] = [
        count("ungrounded_locations", "locations", len(ungrounded), 0, "rule"),
        count("locations_cited", "locations", len(claims)),
    ]
    # span("output", s, e, label) as literals: up to ten per output
    ev += [
        {"type": "span", "source": "output", "start": s, "end": e, "label": _UNGROUNDED}
        for s, e, _ in ungrounded[:10]
    ]
    saw = ("output", "input", "tool_calls", "tool_outputs")
    if ungrounded:
        names = ", ".join([loc for _, _, loc in ungrounded[:3]])
        return outcome(
            False,
            0.0,
            f"{len(ungrounded)} cited location(s) appear in neither the ask nor any tool result: "
            f"{names}.",
            ev,
            saw=saw,
        )
    return outcome(
        True,
        1.0,
        f"All {len(claims)} cited location(s) are grounded in the ask or the reads.",
        ev,
        saw=saw,
    )
