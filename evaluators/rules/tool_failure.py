"""``no_silent_tool_failure``: a failed call the final answer never owns.

Tool outputs are attacker-controlled, so every test here is a literal scan
over a capped slice — never a regular expression (SPEC §8.22, §9.4).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from evaluators.context import EvalContext, Step
from evaluators.jsontext import sorted_ascii
from evaluators.rules.base import Outcome, count, outcome, span, tool_call
from evaluators.rules.cost import TARGET_KEYS
from evaluators.text.case import lower
from evaluators.text.literals import LOWERED_OUTPUT, LiteralSet

ERROR_LINE_PREFIXES: tuple[str, ...] = (
    "error:",
    "error -",
    "error!",
    "fatal:",
    "fatal error",
    "exception:",
    "traceback (most recent call last)",
    "panic:",
    "uncaught ",
    "unhandled ",
    "segmentation fault",
)
ERROR_LINE_PHRASES: tuple[str, ...] = (
    "no such file or directory",
    "command not found",
    "permission denied",
    "operation not permitted",
    "cannot access",
    "cannot find",
    "is not recognized as an internal or external command",
    "connection refused",
    "no such table",
)
ACKNOWLEDGEMENT_PHRASES: tuple[str, ...] = (
    "fail",
    "error",
    "exception",
    "threw",
    "thrown",
    "crash",
    "could not",
    "couldn't",
    "cannot",
    "can't",
    "unable to",
    "no matches",
    "no results",
    "returned nothing",
    "found nothing",
    "does not exist",
    "doesn't exist",
    "no such",
    "not found",
    "missing",
    "unavailable",
    "permission denied",
    "denied",
    "timed out",
    "unreadable",
    "not readable",
    "did not succeed",
    "didn't succeed",
    "did not run",
    "didn't run",
    "did not complete",
    "broken",
    "refused",
    "rejected",
    "not available",
    "inaccessible",
    "was not able",
    "wasn't able",
    "not able to",
    "could not be",
    "no data",
    "empty result",
    "came back empty",
    "does not appear",
    "no occurrences",
    "not present",
    "there is no",
    "not there",
)
# Hedges own a failure only where they speak about the failed call's
# subject: "I am not sure how pricing works" says nothing about a file that
# failed to open.
UNCERTAINTY_PHRASES: tuple[str, ...] = (
    "unverified",
    "not certain",
    "not sure",
    "unsure",
    "unknown",
    "undetermined",
)
# A denial of failure is not an acknowledgement of one ("compiles with no
# errors" contains "error"); these are blanked before any phrase scan.
DENIAL_PHRASES: tuple[str, ...] = (
    "no errors",
    "no error",
    "without errors",
    "without error",
    "without any errors",
    "zero errors",
    "0 errors",
    "no failures",
    "without failures",
    "never failed",
    "nothing failed",
)
SUBJECT_NEGATIONS: tuple[str, ...] = (" no ", " not ", " nothing", " without ", "n't ")
# Clause breaks inside a sentence: an acknowledgement belongs to the clause
# it is in, not to a file named three clauses later.
CLAUSE_BREAKS: tuple[str, ...] = (", ", "; ", ": ", " so ", " and ", " but ", " while ", " — ")
_THROWABLE_SUFFIXES = ("error", "exception", "fault")
_JSON_CAP = 262_144
_ACK_CAP = 20_000


# The keys _declares_failure reads: an object with none of them declares nothing.
_FAILURE_KEYS = frozenset(
    ("error", "stderr", "ok", "success", "isError", "status", "exit_code", "exitCode", "returncode")
)
# The values an "error"/"stderr" key may hold without declaring a failure
# (compared with ``in``: by identity, then equality, as the literal tuple was;
# built once, never mutated).
_EMPTY_VALUES: tuple[Any, ...] = (None, "", False, [], {})


def _declares_failure(obj: dict[str, Any]) -> str | None:
    if _FAILURE_KEYS.isdisjoint(obj):  # every test below reads a missing key as None
        return None
    for key in ("error", "stderr"):
        v = obj.get(key)
        if v not in _EMPTY_VALUES and not (isinstance(v, str) and not v.strip()):
            return f"output declares {key}"
    if obj.get("ok") is False:
        return "output declares ok: false"
    if obj.get("success") is False:
        return "output declares success: false"
    if obj.get("isError") is True:
        return "output declares isError: true"
    st = obj.get("status")
    if isinstance(st, str) and lower(st) in ("error", "failed", "failure"):
        return f"output status {st}"
    for key in ("exit_code", "exitCode", "returncode"):
        v = obj.get(key)
        if isinstance(v, int) and not isinstance(v, bool) and v != 0:
            return f"non-zero {key} {v}"
    return None


def _first_line(head: str) -> str:
    """``next((ln.strip() for ln in head.split("\\n") if ln.strip()), "")``
    in three C calls: blank lines are all whitespace, so the first non-blank
    line starts at the first non-whitespace character and runs to the next
    newline."""
    return head.lstrip().split("\n", 1)[0].rstrip()


# The compiled verdict (evaluators/rules/_toolkernel.c); absent when the
# package was installed without a C compiler, and then the reference below
# decides every output, with the same reasons.
try:
    from evaluators.rules import _toolkernel
except ImportError:  # pragma: no cover - depends on the build
    _toolkernel = None  # type: ignore[assignment]


def _string_failure(text: str) -> str | None:
    """The failure a string output's first line declares, if any. The C
    kernel decides an ASCII first line (a few hundred ns instead of a dozen
    string operations); it answers False for anything else, which the
    reference then decides."""
    if _toolkernel is not None:
        got = _toolkernel.string_failure(text, ERROR_LINE_PREFIXES, ERROR_LINE_PHRASES)
        if got is not False:
            return got
    return _string_failure_reference(text)


def _string_failure_reference(text: str) -> str | None:
    """:func:`_string_failure` in pure Python: the reference the C must equal."""
    first = _first_line(text[:400])
    low = lower(first)
    if not low:
        return None
    if low.startswith(ERROR_LINE_PREFIXES):  # one C call; then which one, in table order
        for p in ERROR_LINE_PREFIXES:
            if low.startswith(p):
                return f"first line starts with {p.strip()!r}"
    colon = low.find(":")
    if colon > 0:
        head_tok = low[:colon].strip().rsplit(" ", 1)[-1].rsplit(".", 1)[-1]
        if (
            head_tok.endswith(_THROWABLE_SUFFIXES)
            and head_tok not in ("error", "errors")
            and head_tok.isidentifier()
        ):
            return f"first line names a throwable ({first[:colon].strip()})"
    for pre in ("exit code ", "exit status "):
        i = low.find(pre)
        if i == 0:
            num = low[len(pre) :].split()[0] if low[len(pre) :].split() else ""
            if num.lstrip("-").isdigit() and int(num) != 0:
                return f"{pre.strip()} {num}"
    for ph in ERROR_LINE_PHRASES:
        if ph in low:
            return f"first line says {ph!r}"
    return None


# json.loads' own scanner (the default decoder's), called directly.
_DECODER: Any = json.JSONDecoder()  # the typeshed stub omits scan_once
_SCAN_ONCE = _DECODER.scan_once  # json.scanner.make_scanner(decoder): the C scanner
_JSON_SPACE = " \t\n\r"  # what json.decoder's WHITESPACE pattern skips


def _loads_object(text: str) -> Any:
    """``json.loads(text)`` for a ``text`` that starts with "{", minus the
    decoder's Python layers (three times the parse of a small object): the
    scanner from offset 0, then only JSON whitespace may follow. Invalid text
    raises a ValueError as json.loads does; anything else it raises (a
    RecursionError on deep nesting) comes from the same scanner."""
    try:
        obj, end = _SCAN_ONCE(text, 0)
    except StopIteration as err:
        raise json.JSONDecodeError("Expecting value", text, err.value) from None
    if end != len(text) and text[end:].strip(_JSON_SPACE):
        raise json.JSONDecodeError("Extra data", text, end)
    return obj


def failure_reason(step: Step) -> str | None:
    if isinstance(step.error, str) and step.error.strip():
        return f"error: {step.error.strip()[:80]}"
    out = step.output
    if isinstance(out, str) and out[:1] == "{" and len(out) <= _JSON_CAP:
        try:
            parsed = _loads_object(out)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            out = parsed
    if isinstance(out, dict):
        return _declares_failure(out)
    if isinstance(out, str):
        return _string_failure(out)
    return None


# ctx.memo key of the per-step failure_reason results (see failure_reason_of).
_REASONS_KEY = "tool_failure.reasons"


def failure_reason_of(ctx: EvalContext, step: Step) -> str | None:
    """``failure_reason(step)`` for one of ``ctx.steps``, computed once per
    evaluation: grounded_in_reads asks for each step's reason and
    no_silent_tool_failure asks again (a JSON parse per object output).

    Steps are memoised one at a time, when first asked for, so a rule that
    stops early (a truncated read) has computed exactly the reasons it would
    have without the memo. An exception is memoised too and raised again, so
    every rule that reaches that step fails as it did before."""
    memo: dict[int, tuple[str | None, BaseException | None]] = ctx.shared(_REASONS_KEY, dict)
    hit = memo.get(step.index)
    if hit is None:
        try:
            hit = (failure_reason(step), None)
        except Exception as exc:  # the rule that asked skips; so must the next one
            hit = (None, exc)
        memo[step.index] = hit
    if hit[1] is not None:
        raise hit[1]
    return hit[0]


def _target(step: Step) -> str | None:
    if isinstance(step.input, dict):
        for k in TARGET_KEYS:
            v = step.input.get(k)
            if v is not None:
                return sorted_ascii(v)
        return None
    if isinstance(step.input, str) and step.input.strip():
        return step.input.strip()
    return None


def _recovered(
    failed: Step, later: tuple[Step, ...], later_reasons: Sequence[str | None] | None = None
) -> bool:
    """A later call to the same tool succeeded on the same target.
    ``later_reasons`` are the later steps' ``failure_reason`` values when the
    caller has them (each step's is computed once per evaluation, not once
    per earlier failure)."""
    tgt = _target(failed)
    if later_reasons is None:
        later_reasons = [failure_reason(s) for s in later]
    for s, why in zip(later, later_reasons, strict=True):
        if s.name != failed.name or why is not None:
            continue
        if tgt is not None and _target(s) == tgt:
            return True
        if tgt is None:
            given = failed.input_text
            if not given or given in s.input_text:
                return True
    return False


# Each table's phrases found in one pass (they are ASCII; see LiteralSet).
_DENIAL_SET = LiteralSet(DENIAL_PHRASES)
_ACK_SET = LiteralSet((*ACKNOWLEDGEMENT_PHRASES, *UNCERTAINTY_PHRASES))
_ACK_PHRASES = frozenset(ACKNOWLEDGEMENT_PHRASES)
_UNCERTAINTY_PHRASES = frozenset(UNCERTAINTY_PHRASES)


# The same two tables as members of the lowered output's literal family: when
# the text asked about is the lowered output, the one union scan the stub and
# hallucination gates already made of it answers them (see LiteralFamily).
_DENIAL_MEMBER = LOWERED_OUTPUT.member(DENIAL_PHRASES)
_ACK_MEMBER = LOWERED_OUTPUT.member((*ACKNOWLEDGEMENT_PHRASES, *UNCERTAINTY_PHRASES))


def _blank_denials(low: str) -> str:
    """Each denial phrase, in table order, blanked out. A phrase absent from
    the text can only appear once an earlier one has been blanked, so until
    then the one-pass presence set decides; after that each is tested."""
    present = _DENIAL_SET.present(low)
    if not present:
        return low
    changed = False
    for d in DENIAL_PHRASES:
        if (d in low) if changed else (d in present):
            low = low.replace(d, " " * len(d))
            changed = True
    return low


def acknowledges(output: str, hedges: bool = True) -> bool:
    """Failure phrasing (and, when ``hedges``, uncertainty) not inside a denial."""
    return _acknowledges_lower(lower(output[:_ACK_CAP]), hedges)


def _acknowledges_lower(lowered: str, hedges: bool = True) -> bool:
    low = _blank_denials(lowered)
    return _acknowledged(low, _ACK_SET.present(low), hedges)


@lru_cache(maxsize=32)
def _acknowledges_whole(whole_low: str, is_lowered_output: bool) -> bool:
    """``_acknowledges_lower(whole_low, hedges=False)`` for the whole capped
    lowered output, which every failed call whose subject the output never
    names asks about: answered once per output. When ``whole_low`` is the
    lowered output itself (the output is within the cap), the tables are read
    from the lowered output's literal family, whose one union scan the stub
    and hallucination gates share; a capped text takes the plain sets, so the
    family's memo of its last text is left alone."""
    if is_lowered_output and not _DENIAL_MEMBER.present(whole_low):
        # nothing to blank: the blanked text is whole_low itself
        return _acknowledged(whole_low, _ACK_MEMBER.present(whole_low), False)
    return _acknowledges_lower(whole_low, hedges=False)


def _acknowledges_anywhere(whole_low: str, is_lowered_output: bool) -> bool:
    """``_acknowledges_lower(whole_low)`` (hedges counted), read from the
    lowered output's family as ``_acknowledges_whole`` reads it.

    Why :func:`owns_failure` asks it first: for a ``whole_low`` without
    "neither ", a clause or sentence of it that acknowledges (hedges counted)
    makes this True. Blanking is local: no denial phrase holds a clause
    break, a sentence end or a prefix or suffix of a break (checked below),
    so no denial occurrence straddles a clause's or sentence's edge, and a
    blanked clause is its stretch of the blanked whole (a blank run is eight
    spaces or more and a denial holds single spaces, so none is made by
    blanking); an acknowledgement or hedge phrase in that stretch is in the
    blanked whole. Lowering is per character but for the final-sigma rule,
    which changes no ASCII character. Only "neither ... nor" is read at the
    first "neither " alone, so a text holding one is not answered here."""
    if is_lowered_output and not _DENIAL_MEMBER.present(whole_low):
        return _acknowledged(whole_low, _ACK_MEMBER.present(whole_low), True)
    return _acknowledges_lower(whole_low)


def _straddles(phrase: str, brk: str) -> bool:
    """Whether an occurrence of ``phrase`` can cover part of ``brk`` and the
    text on one side of it (or all of it): what ``_acknowledges_anywhere``
    needs never to happen for a denial phrase."""
    return (
        brk in phrase
        or any(phrase.endswith(brk[:k]) for k in range(1, len(brk) + 1))
        or any(phrase.startswith(brk[-k:]) for k in range(1, len(brk) + 1))
    )


if any(_straddles(d, b) for d in DENIAL_PHRASES for b in CLAUSE_BREAKS) or any(
    c in d for d in DENIAL_PHRASES for c in ".!?\n"
):  # pragma: no cover - a table edit that breaks _acknowledges_anywhere's premise
    raise AssertionError("a denial phrase can straddle a clause or sentence edge")


def _acknowledged(low: str, present: frozenset[str], hedges: bool) -> bool:
    """The decision of ``_acknowledges_lower`` on the denial-blanked ``low``
    given the acknowledgement and hedge literals ``present`` in it."""
    if present:
        if not _ACK_PHRASES.isdisjoint(present):
            return True
        if hedges and not _UNCERTAINTY_PHRASES.isdisjoint(present):
            return True
    i = low.find("neither ")
    return i >= 0 and " nor " in low[i : i + 200]


def _clauses(sentence: str) -> list[str]:
    parts = [sentence]
    for brk in CLAUSE_BREAKS:
        parts = [piece for p in parts for piece in p.split(brk)]
    return parts


def _subject_terms(step: Step) -> list[str]:
    """The most specific words naming what the failed call was about."""
    tgt = None
    if isinstance(step.input, dict):
        for k in TARGET_KEYS:
            if isinstance(step.input.get(k), str):
                tgt = step.input[k]
                break
        if tgt is None and isinstance(step.input.get("argv"), list):
            tgt = " ".join(str(a) for a in step.input["argv"][1:])
    elif isinstance(step.input, str):
        tgt = step.input
    if not tgt:
        return []
    tgt = tgt.split("?", 1)[0].rstrip("/")
    out = []
    if " " in tgt.strip():
        words = tgt.split()[1:]
    else:
        last = tgt.replace("\\", "/").rsplit("/", 1)[-1]
        words = [last.split(".", 1)[0] or last]
        if "." in last and len(last) >= 3:
            out.append(lower(last))  # "a.ts": matched as written, see _names
    for w in words:
        w = _squash(w)
        if len(w) >= 4:
            out.append(w)
    return out


# A sentence ends at a newline, or at . ! ? followed by whitespace or the end.
_SENTENCE_END = re.compile(r"\n|[.!?](?=\s|\Z)")
# Everything str.isalnum() rejects (re's \w is isalnum() plus "_").
_NOT_ALNUM = re.compile(r"[\W_]+")


def _sentences(text: str) -> list[str]:
    out: list[str] = []
    body = text[:_ACK_CAP]
    start = 0
    for m in _SENTENCE_END.finditer(body):
        out.append(body[start : m.end()])
        start = m.end()
    if start < len(body):
        out.append(body[start:])
    return out


# ASCII characters str.isalnum() rejects, "_" among them: what _NOT_ALNUM
# removes from ASCII text, removed by one translate.
_NOT_ALNUM_ASCII = dict.fromkeys(i for i in range(128) if not chr(i).isalnum())


# The same ASCII characters as bytes, for bytes.translate's delete argument:
# on ASCII text one C pass with no per-character dict lookup.
_NOT_ALNUM_BYTES = bytes(sorted(_NOT_ALNUM_ASCII))


def _squash(text: str) -> str:
    low = lower(text)
    if low.isascii():
        return low.encode("ascii").translate(None, _NOT_ALNUM_BYTES).decode("ascii")
    return _NOT_ALNUM.sub("", low)


# One clause as _names and acknowledges read it: (lowercase, squashed).
Clause = tuple[str, str]


@lru_cache(maxsize=32)
def _whole_lower(output: str) -> str:
    """The capped output lowercased, once however many failed calls ask."""
    return lower(output[:_ACK_CAP])


@lru_cache(maxsize=32)
def _whole_squashed(output: str) -> str:
    """The capped output squashed, folded only when a subject word (one
    without a dot) needs it, once however many failed calls ask."""
    return _squash(output[:_ACK_CAP])


@lru_cache(maxsize=32)
def _sentence_rows(output: str) -> tuple[tuple[str, tuple[Clause, ...]], ...]:
    """Each sentence of the capped output (lowercased) with its clauses; only
    folded when the whole output names a failed call's subject."""
    rows = []
    for sentence in _sentences(output[:_ACK_CAP]):
        clauses = tuple((lower(c), _squash(c)) for c in _clauses(sentence))
        rows.append((lower(sentence), clauses))
    return tuple(rows)


def _names_folded(low: str, squashed: str, terms: list[str]) -> bool:
    for t in terms:
        if "." in t:
            i = low.find(t)
            while i >= 0:
                before = low[i - 1] if i else " "
                after = low[i + len(t)] if i + len(t) < len(low) else " "
                if not before.isalnum() and not after.isalnum():
                    return True
                i = low.find(t, i + 1)
        elif t in squashed:
            return True
    return False


def _names(clause: str, terms: list[str]) -> bool:
    """The clause names a subject term: file names as written with word
    boundaries ("a.ts" is not inside "that symbol"), words squashed."""
    return _names_folded(lower(clause), _squash(clause), terms)


def owns_failure(step: Step, output: str, lowered: str | None = None) -> bool:
    """Acknowledged in a clause that talks about the failed call's subject;
    when the output never names the subject, failure phrasing anywhere counts
    but a hedge about something else does not. ``lowered`` is
    ``output.lower()`` when the caller has it (the context's shared view)."""
    terms = _subject_terms(step)
    whole = len(output) <= _ACK_CAP  # the capped output is the output
    # the whole (capped) output, lowercased as acknowledges() lowers it
    whole_low = lowered if whole and lowered is not None else _whole_lower(output)
    if not terms:
        return _acknowledges_whole(whole_low, whole)
    # a clause can only name a term the whole (capped) output contains
    if not any((t in whole_low) if "." in t else (t in _whole_squashed(output)) for t in terms):
        return _acknowledges_whole(whole_low, whole)
    if "neither " not in whole_low and not _acknowledges_anywhere(whole_low, whole):
        # no clause or sentence can acknowledge (see _acknowledges_anywhere),
        # and the whole does not either: owned nowhere, whether named or not
        return False
    named = False
    for sentence_low, clauses in _sentence_rows(output):
        about = [c for c in clauses if _names_folded(c[0], c[1], terms)]
        if not about:
            continue
        named = True
        if any(_acknowledges_lower(low) for low, _ in about):
            return True
        # "The endpoint timed out, so I have no queue depth": the failure is
        # owned in one clause and the subject's result is denied in the next.
        if _acknowledges_lower(sentence_low) and any(
            n in f" {low}" for low, _ in about for n in SUBJECT_NEGATIONS
        ):
            return True
    return False if named else _acknowledges_whole(whole_low, whole)


def _claim_span(output: str, cap: int = 200) -> tuple[int, int] | None:
    """The first non-blank line of the output, trimmed and capped: the claim
    the answer made where the failed result should have been owned."""
    pos = 0
    for line in output.split("\n"):
        body = line.strip()
        if body:
            start = pos + line.index(body[0])
            end = min(start + len(body), start + cap)
            while end > start and output[end - 1].isspace():
                end -= 1
            return start, end
        pos += len(line) + 1
    return None


def no_silent_tool_failure(ctx: EvalContext) -> Outcome:
    steps = ctx.steps
    reasons = [failure_reason_of(ctx, st) for st in steps]
    open_failures: list[tuple[Step, str]] = []
    for i, st in enumerate(steps):
        reason = reasons[i]
        if reason and not _recovered(st, steps[i + 1 :], reasons[i + 1 :]):
            open_failures.append((st, reason))
    saw = (
        ("output", "tool_calls", "tool_outputs")
        if ctx.has("tool_outputs")
        else ("output", "tool_calls")
    )
    ev: list[dict[str, Any]] = [count("open_failed_calls", "calls", len(open_failures), 0, "rule")]
    if not open_failures:
        return outcome(True, 1.0, "No unrecovered failed call.", ev, saw=saw)
    low = ctx.output_lower if len(ctx.output) <= _ACK_CAP else None
    open_failures = [(s, r) for s, r in open_failures if not owns_failure(s, ctx.output, low)]
    if not open_failures:
        return outcome(True, 1.0, "Every failed call is acknowledged by the output.", ev, saw=saw)
    ev += [tool_call(s.index, s.name, r) for s, r in open_failures[:10]]
    claim = _claim_span(ctx.output)
    if claim is not None:
        ev.append(span("output", *claim, "claim made in place of the failed result"))
    s0, r0 = open_failures[0]
    return outcome(
        False,
        0.0,
        f"Call #{s0.index} {s0.name} failed ({r0}) and the output never says so.",
        ev,
        saw=saw,
    )
