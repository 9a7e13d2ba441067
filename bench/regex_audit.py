"""Regex audit: how each pattern's search time grows with the length of its input.

The project standard is that no regex that can backtrack badly runs on user
text (agent outputs, tool results and span attributes, 100 KB+). This imports
every module under ``evaluators/``, ``receivers/``, ``service/`` and
``storage/``, collects every compiled ``re.Pattern`` it can reach (module
attributes, containers of patterns, class attributes) plus the literal
patterns compiled inside functions (listed by hand below), and times
``finditer`` over adversarial inputs at two sizes. A linear pattern takes about
``LARGE / SMALL`` (= 8) times as long on the large input; a quadratic one about
64 times. Patterns whose worst ratio exceeds ``FLAG`` are flagged.

    python bench/regex_audit.py               # every pattern
    python bench/regex_audit.py --only stub   # locations containing "stub"
    python bench/regex_audit.py --all         # print the linear ones too
    python bench/regex_audit.py --shard 0/2   # every other pattern (run 1/2 alongside)

This is a benchmark that prints figures, not a test: timings are noisy, and a
flag means "look at this pattern", not "this pattern is wrong".
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PACKAGES = ("evaluators", "receivers", "service", "storage")
SMALL = 4_000
LARGE = 32_000
FLAG = 20.0
# Below this the large-input time is too small to say anything about growth.
FLOOR_S = 0.005
# A pattern this slow on the small input is not run at the large size (it
# could take minutes); its growth from half the size is scaled to 8x instead.
SLOW_S = 0.05

# Patterns compiled or used inside functions with a literal source; module
# walking cannot see these. (location, source, flags)
IN_FUNCTION: list[tuple[str, str, int]] = [
    ("evaluators.custom.action_policy._dot_segments", r"^[a-z][a-z0-9+.-]*://[^/]*", re.I),
    ("evaluators.custom.regex (nested quantifier)", r"\{\d*,\d*\}|\{\d{2,}\}", 0),
    ("evaluators.custom.regex (quantifier)", r"\{\d+(?:,\d*)?\}", 0),
    ("evaluators.rules.completeness (letter runs)", r"[a-z']+", 0),
    ("evaluators.rules.completeness (any word char)", r"\w", 0),
    (
        "evaluators.rules.completeness (yes/no ask)",
        r"^\s*(?:is|are|was|were|do|does|did|can|could|should|will|would|has|have)\b",
        re.I,
    ),
    (
        "evaluators.rules.completeness (writing ask)",
        r"\b(?:write|draft|compose|create|generate)\b",
        re.I,
    ),
    ("evaluators.rules.hallucination (addends)", r"\d[\d,]*(?:\.\d+)?", 0),
    ("evaluators.rules.asks._marker_of", r"\s*(\d{1,2}|[a-zA-Z])[.)]", 0),
    ("evaluators.rules.asks (marker word, e.g. first)", r"\bfirst\b", re.I),
    ("evaluators.rules.asks (marker, e.g. 1)", r"(?:^|\s|\()\(?1[).:]", re.I | re.M),
    ("evaluators.rules.relevance (lines)", r"\n", 0),
    ("evaluators.rules.relevance (tool name parts)", r"[_\-\s.]+|(?<=[a-z])(?=[A-Z])", 0),
    ("evaluators.rules.hallucination_grounded (key words)", r"[_.\-\s]+", 0),
    (
        "evaluators.rules.hallucination_grounded (flag key, e.g. cache.enabled)",
        r"(?<![\w-])cache[ _.-]?enabled(?![\w-])",
        0,
    ),
    (
        "evaluators.rules.hallucination_grounded (negated before)",
        r"\b(?:not|no|isn't|never)\s*$",
        0,
    ),
    (
        "evaluators.rules.hallucination_grounded (prohibited, e.g. enable x)",
        r"\b(?:enable|turn on|switch on|activate)\s+[`'\"]?cache\b",
        re.I,
    ),
    ("evaluators.rules.hallucination_grounded (negated line)", r"\b(?:no|not|none|without)\b", 0),
    (
        "evaluators.rules.hallucination_grounded (table labels)",
        r"(?<![\w-])(?:revenue|cost)(?![\w-])",
        0,
    ),
]


# Scans written as functions in place of a search (module, function, and
# the search it replaced, whose source gives the adversarial inputs' fragments).
FUNCTIONS: list[tuple[str, str, str, int]] = [
    (
        "evaluators.rules.hallucination_grounded",
        "_version_claims",
        r"\b(?P<name>[A-Za-z][\w-]*)\s+v?(?P<ver>\d+(?:\.\d+)*)\b(?![.\d]*\s*(?:%|[a-zA-Z]))",
        0,
    ),
    (
        "evaluators.rules.hallucination_grounded",
        "_flag_settings",
        r"\"?(?P<key>[A-Za-z][\w.-]*)\"?\s*[:=]\s*\"?(?P<val>true|false|on|off|enabled|disabled)\b",
        re.I,
    ),
    ("evaluators.rules.asks", "_trim_joiner", r"[\s,;]*(?:and|or)?\s*$", 0),
]


class Scan(NamedTuple):
    where: str
    source: re.Pattern[str]  # what the inputs are built from
    run: Callable[[str], Iterable[object]]  # what is timed
    linear: bool  # run by RE2 or a procedural scan


def _walk_modules() -> Iterator[Any]:
    for name in PACKAGES:
        pkg = importlib.import_module(name)
        yield pkg
        for info in pkgutil.walk_packages(pkg.__path__, name + "."):
            if info.name.endswith("__main__"):
                continue  # importing it would run the command line
            try:
                yield importlib.import_module(info.name)
            except Exception as exc:  # a module that needs a server, say
                print(f"# skipped {info.name}: {type(exc).__name__}: {exc}", file=sys.stderr)


def _patterns_in(value: Any, where: str, depth: int = 0) -> Iterator[Scan]:
    from evaluators.text.linear import LinearPattern

    if isinstance(value, LinearPattern):
        yield Scan(where, value.pattern, value.finditer, True)
        return
    if isinstance(value, re.Pattern):
        if isinstance(value.pattern, str):
            yield Scan(where, value, value.finditer, False)
        return
    if depth >= 3:
        return
    if isinstance(value, dict):
        for k, v in list(value.items())[:2000]:
            yield from _patterns_in(v, f"{where}[{k!r}]", depth + 1)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for i, v in enumerate(list(value)[:2000]):
            yield from _patterns_in(v, f"{where}[{i}]", depth + 1)
    elif isinstance(getattr(value, "pattern", None), re.Pattern):
        # Wrappers that hold a pattern (e.g. a start-index helper).
        yield from _patterns_in(value.pattern, f"{where}.pattern", depth + 1)


def collect() -> list[Scan]:
    """Every distinct pattern, with the first place it was found. A pattern
    wrapped in a ``LinearPattern`` is timed as the wrapper runs it."""
    seen: dict[tuple[str, int, bool], str] = {}
    found: list[Scan] = []

    def add(scan: Scan) -> None:
        key = (scan.source.pattern, scan.source.flags, scan.linear)
        if key not in seen:
            seen[key] = scan.where
            found.append(scan)

    for mod in _walk_modules():
        for attr, value in list(vars(mod).items()):
            if inspect.ismodule(value):
                continue
            if inspect.isclass(value) and value.__module__ == mod.__name__:
                for cattr, cvalue in list(vars(value).items()):
                    for scan in _patterns_in(cvalue, f"{mod.__name__}.{attr}.{cattr}"):
                        add(scan)
                continue
            for scan in _patterns_in(value, f"{mod.__name__}.{attr}"):
                add(scan)
    for where, src, flags in IN_FUNCTION:
        rx = re.compile(src, flags)
        add(Scan(where, rx, rx.finditer, False))
    for modname, func, src, flags in FUNCTIONS:
        scan = getattr(importlib.import_module(modname), func)
        found.append(Scan(f"{modname}.{func}()", re.compile(src, flags), scan, True))
    # The plain pattern a linear rewrite replaced is not run any more.
    wrapped = {(s.source.pattern, s.source.flags) for s in found if s.linear}
    return [s for s in found if s.linear or (s.source.pattern, s.source.flags) not in wrapped]


# -- adversarial inputs ---------------------------------------------------

_GENERIC_UNITS = [
    "a", "Z", "aB", "7", "deadbeef", "a1_b.c-d", "abc_123", "x.", "x-", "x_", "1.", "1,",
    "1 ", "1-", "a ", "a:", "a=", '"a":', "a/", "a@", "a.b", " ", "\t", "\n", " \n\t", "\r\n",
    '"', ":", "=", ".", "/", "@", "-", "'", "`", "*", "#", "(", ")", "[", "{", "|", ",", ";",
    "é", "ſ", "日本", "Ωμ", "éa1", "A a ", "a\n\n", ". ", "? ", "! ", "// ", "# ", "- ",
    "1) ", "(a) ", "a) ", "http://", "://", "-----", "<!--", "[x](", "![", "?a=", "&",
    "k=v ", "0x", "$1", "1.2.3", "v1", ":ff", "12:30", "2024-01-", "Mr. ", "Dr. ",
]  # fmt: skip


def _literals(rx: re.Pattern[str]) -> list[str]:
    """Literal runs in the pattern source (crude, but it finds the words)."""
    src = re.sub(r"\\[A-Za-z]", " ", rx.pattern)  # \b, \s, \w ... are not letters
    words = re.findall(r"[A-Za-z][A-Za-z' -]*[A-Za-z]|[A-Za-z]", src)
    uniq: list[str] = []
    for w in words:
        for part in {w, w.split(" ")[0]}:
            if part and part not in uniq:
                uniq.append(part)
    return uniq[:25]


def _units(rx: re.Pattern[str]) -> list[str]:
    units = list(_GENERIC_UNITS)
    lits = _literals(rx)
    for w in lits:
        units += [
            w + " ",
            w,
            w + ":",
            w + "=",
            w + ".",
            w + "-",
            w + "\n",
            f'"{w}" ',
            w.upper() + " ",
            w[:-1] + " " if len(w) > 1 else w + w,
        ]
    # The pattern's own punctuation, after a letter and a digit and alone.
    src = rx.pattern
    puncts = re.findall(r"([^\w\s\\()\[\]|?*+{}^$])|\\([^\w\s])", src)
    for ch in dict.fromkeys(a or b for a, b in puncts):
        units += [ch + " ", "a" + ch, "1" + ch]
    units += [f"{lead}\x00{run}" for lead in _LEADS for run in _RUNS]
    if len(lits) > 1:
        # The literal words in order: a near match for a multi-word pattern.
        units.append(" ".join(lits) + " ")
        units.append("".join(lits))
    return units


# A near-match lead then a long run: the shape that makes a lazy or optional
# part re-scan the run ("- a" then blanks, for a bullet pattern).
_LEADS = ["- a", "1. a", "| a |", "a, ", "x ", '"a": ', "a = ", "\n", "a 1"]
_RUNS = [" ", "\n", "a", "1", "-", ".", "\t", "`"]


def _make(unit: str, n: int) -> str:
    if "\x00" in unit:  # lead, NUL, run: the lead once, then the run
        lead, run = unit.split("\x00")
        return lead + run * (n - len(lead)) + "!"
    return (unit * (n // len(unit) + 1))[:n]


def _time(run: Callable[[str], Iterable[object]], text: str, reps: int = 2) -> float:
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        for _m in run(text):
            pass
        best = min(best, time.perf_counter() - t0)
    return best


def audit(scan: Scan) -> tuple[float, str, float, bool]:
    """(worst ratio, the unit that gave it, large-input seconds, extrapolated?)."""
    worst = (0.0, "", 0.0, False)
    rx = scan.run
    for unit in _units(scan.source):
        t_small = _time(rx, _make(unit, SMALL))
        if t_small > SLOW_S:
            # Measure the growth over 2x and scale it to 8x (exponent preserved).
            t_half = _time(rx, _make(unit, SMALL // 2), reps=1)
            growth = t_small / max(t_half, 1e-6)
            ratio, t_large, extrapolated = growth**3, t_small * growth**3, True
        else:
            t_large = _time(rx, _make(unit, LARGE))
            if t_large < FLOOR_S:
                continue
            ratio, extrapolated = t_large / max(t_small, 1e-6), False
            if ratio > FLAG:
                # Confirm on a quieter measurement: small times are noisy.
                t_small = _time(rx, _make(unit, SMALL), reps=7)
                t_large = _time(rx, _make(unit, LARGE), reps=3)
                ratio = t_large / max(t_small, 1e-6)
        if ratio > worst[0]:
            worst = (ratio, unit, t_large, extrapolated)
        if ratio > 3 * FLAG:
            break  # clearly super-linear; the other inputs add nothing
    return worst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="audit locations containing this text")
    ap.add_argument("--shard", default="0/1", help="i/k: audit every k-th pattern from the i-th")
    ap.add_argument("--all", action="store_true", help="print the linear patterns too")
    args = ap.parse_args()
    i, k = map(int, args.shard.split("/"))
    scans = [s for s in collect() if args.only in s.where][i::k]
    print(f"# {len(scans)} patterns; sizes {SMALL} and {LARGE}; flag above {FLAG:g}")
    print(f"{'ratio':>8} {'t(large)':>9}  flag  location / worst input unit / pattern")
    flagged = 0
    for scan in scans:
        ratio, unit, t_large, extrapolated = audit(scan)
        flag = ratio > FLAG
        flagged += flag
        if flag or args.all:
            mark = "~" if extrapolated else " "
            src = scan.source.pattern
            src = src if len(src) <= 100 else src[:97] + "..."
            how = " [linear rewrite]" if scan.linear else ""
            tag = "FLAG" if flag else "    "
            print(
                f"{ratio:8.1f}{mark}{t_large:8.3f}s  {tag}  {scan.where}{how}\n"
                f"{'':26}unit {unit!r}\n{'':26}/{src}/",
                flush=True,
            )
    print(f"# {flagged} flagged of {len(scans)}  (~ = extrapolated from a 2x step)")


if __name__ == "__main__":
    main()
