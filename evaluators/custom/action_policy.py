"""``action_policy``: allow/deny over tool calls with argument globs.

Deny is evaluated first and wins; with an allow list, a call no allow rule
matches is denied. Argument values are canonicalised (percent-decoded once,
NFKC with zero-width stripped, backslashes to slashes, dot segments dropped,
``..`` resolved) and every honest reading is carried: a deny fires when ANY
form matches; an allow holds only when EVERY form does. Deny globs fold case;
allow globs do not (a case miss in an allow rule fails safe).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

_ZW = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)


def _fold(s: str) -> str:
    return unicodedata.normalize("NFKC", s).translate(_ZW).replace("\\", "/")


def _dot_segments(s: str, resolve: bool) -> str:
    prefix = ""
    m = re.match(r"^[a-z][a-z0-9+.-]*://[^/]*", s, re.I)
    if m:
        prefix, s = m.group(0), s[m.end() :]
    absolute = s.startswith("/")
    out: list[str] = []
    segs = s.split("/")
    for i, seg in enumerate(segs):
        if seg in ("", "."):
            if i == len(segs) - 1 and seg == "" and out:
                continue
            continue
        if seg == ".." and resolve:
            if out:
                out.pop()
            continue
        out.append(seg)
    body = "/".join(out)
    return prefix + ("/" if absolute or prefix else "") + body


def canonical_forms(value: Any) -> set[str]:
    raw = value if isinstance(value, str) else str(value)
    decoded = unquote(raw)
    forms: set[str] = set()
    for v in {raw, decoded} if decoded != raw else {raw}:
        f = _fold(v)
        forms.add(_dot_segments(f, True))
        forms.add(_dot_segments(f, False))
    return forms


@lru_cache(maxsize=512)
def _glob_rx(glob: str, fold_case: bool) -> re.Pattern[str]:
    """``**`` crosses slashes, ``*`` and ``?`` do not; anything else is literal."""
    out: list[str] = []
    i = 0
    while i < len(glob):
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out) + r"\Z", re.S | (re.I if fold_case else 0))


def glob_match(glob: str, value: str, fold_case: bool) -> bool:
    g = _fold(glob)
    if "/" in g:
        g = (
            _dot_segments(g, True)
            if not g.endswith("/**")
            else _dot_segments(g[:-3], True).rstrip("/") + "/**"
        )
    if _glob_rx(g, fold_case).match(value):
        return True
    # "/workspace/**" also covers "/workspace" itself.
    return g.endswith("/**") and _glob_rx(g[:-3], fold_case).match(value) is not None


def json_pointer(obj: Any, pointer: str) -> tuple[bool, Any]:
    if pointer in ("", "/"):
        return True, obj
    cur = obj
    for part in pointer.lstrip("/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(cur, Mapping) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return False, None
    return True, cur


def rule_matches(rule: Mapping[str, Any], tool: str, args: Any, deny: bool) -> bool:
    if not glob_match(str(rule.get("tool", "*")), tool, fold_case=deny):
        return False
    for pointer, glob in (rule.get("args") or {}).items():
        found, val = json_pointer(args, pointer)
        if not found:
            return False
        forms = canonical_forms(val)
        hits = [glob_match(str(glob), f, fold_case=deny) for f in forms]
        if deny and not any(hits):
            return False
        if not deny and not all(hits):
            return False
    return True


def decide(config: Mapping[str, Any], tool: str, args: Any) -> tuple[bool, str]:
    """(allowed, reason) for one call."""
    for i, rule in enumerate(config.get("deny") or ()):
        if rule_matches(rule, tool, args, deny=True):
            return False, f"deny[{i}] matches"
    allow = config.get("allow")
    if allow is not None:
        for rule in allow:
            if rule_matches(rule, tool, args, deny=False):
                return True, "allowed"
        return False, "no allow rule matches"
    return True, "allowed"


def validate_policy(config: Mapping[str, Any]) -> str | None:
    """Problem sentence or ``None``."""
    if "allow" not in config and "deny" not in config:
        return "allow or deny"
    for key in ("allow", "deny"):
        rules = config.get(key)
        if rules is None:
            continue
        if not isinstance(rules, list):
            return f"{key} must be a list"
        for i, r in enumerate(rules):
            if not isinstance(r, Mapping) or not isinstance(r.get("tool"), str) or not r["tool"]:
                return f"{key}[{i}].tool"
            args = r.get("args")
            if args is not None and (
                not isinstance(args, Mapping)
                or not all(
                    isinstance(k, str) and k.startswith("/") and isinstance(v, str)
                    for k, v in args.items()
                )
            ):
                return f"{key}[{i}].args (JSON-pointer keys starting with '/', glob string values)"
    return None
