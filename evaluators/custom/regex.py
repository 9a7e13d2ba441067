"""User-written patterns run on RE2 only (linear time; DESIGN decision 6).

Static refusal names the construct RE2 cannot run (backreferences,
lookaround, atomic groups, conditionals…) and refuses nested quantifiers
(``(a+)+``-style star height) and patterns over 1,000 characters, so a
deployment never stores a pattern whose meaning depends on a backtracker.
"""

from __future__ import annotations

import re
from typing import Any

import re2

MAX_PATTERN = 1000
_UNSUPPORTED: tuple[tuple[str, str], ...] = (
    (r"\\[1-9]", "backreference (\\1…)"),
    (r"\\k<", "named backreference (\\k<name>)"),
    (r"\(\?P=", "named backreference ((?P=name))"),
    (r"\(\?=", "lookahead ((?=…))"),
    (r"\(\?!", "negative lookahead ((?!…))"),
    (r"\(\?<=", "lookbehind ((?<=…))"),
    (r"\(\?<!", "negative lookbehind ((?<!…))"),
    (r"\(\?>", "atomic group ((?>…))"),
    (r"\(\?\(", "conditional ((?(…)…))"),
    (r"[*+?}]\+", "possessive quantifier"),
    (r"\\[GZ]", "anchor \\G/\\Z"),
    (r"\(\?R\)|\(\?\d\)", "recursion"),
)
_FLAG_CHARS = frozenset("ims")


class RegexRefused(ValueError):
    """A pattern the engine will not run; the message names why."""


def _strip_escapes_and_classes(p: str) -> str:
    out: list[str] = []
    i = 0
    in_class = False
    while i < len(p):
        ch = p[i]
        if ch == "\\":
            out.append("e")
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
                out.append("c")
            i += 1
            continue
        if ch == "[":
            in_class = True
            if p[i + 1 : i + 2] == "]":
                i += 1
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def nested_quantifier(pattern: str) -> bool:
    """True when a quantified group contains a quantifier (star height > 1)."""
    s = _strip_escapes_and_classes(pattern)
    stack: list[bool] = []  # per open group: does it contain a quantifier?
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == "(":
            stack.append(False)
        elif ch == ")":
            inner = stack.pop() if stack else False
            nxt = s[i + 1 : i + 2]
            quantified = nxt in ("*", "+") or (
                nxt == "{" and re.match(r"\{\d*,\d*\}|\{\d{2,}\}", s[i + 1 :]) is not None
            )
            if inner and quantified:
                return True
            if stack and (inner or quantified):
                stack[-1] = True
        elif stack and (ch in "*+" or (ch == "{" and re.match(r"\{\d+(?:,\d*)?\}", s[i:]))):
            stack[-1] = True
        i += 1
    return False


def compile_user_pattern(pattern: Any, flags: Any = None) -> Any:
    """Compile with RE2 or raise :class:`RegexRefused` naming the problem."""
    if not isinstance(pattern, str) or not pattern:
        raise RegexRefused("pattern must be a non-empty string")
    if len(pattern) > MAX_PATTERN:
        raise RegexRefused(f"Regex pattern too long ({len(pattern)} > {MAX_PATTERN})")
    for rx, name in _UNSUPPORTED:
        if re.search(rx, pattern):
            raise RegexRefused(f"pattern uses {name}, which RE2 cannot run in linear time")
    if nested_quantifier(pattern):
        raise RegexRefused(
            "pattern nests a quantifier inside a quantified group (e.g. (a+)+): "
            "catastrophic-backtracking shape refused"
        )
    opts = re2.Options()
    opts.log_errors = False
    opts.max_mem = 8 << 20
    prefix = ""
    if flags is not None:
        if not isinstance(flags, str) or set(flags) - _FLAG_CHARS:
            raise RegexRefused(
                f"flags must be a string of {''.join(sorted(_FLAG_CHARS))}, got {flags!r}"
            )
        prefix = f"(?{''.join(sorted(set(flags)))})" if flags else ""
    try:
        return re2.compile(prefix + pattern, opts)
    except re2.error as exc:
        msg = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise RegexRefused(f"RE2 cannot compile the pattern: {msg}") from None
