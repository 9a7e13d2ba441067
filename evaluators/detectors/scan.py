"""Bounded token scanning that tolerates one inserted space.

A disguise that drops a tab or line break into the middle of a key turns
``ghp_abc…xyz`` into ``ghp_abc… xyz`` after normalisation. Scanners extend a
token through its character set and may *bridge* a single space when the
token so far is not yet valid (too short, missing a segment) and the next
character continues the token. Every scan is bounded by ``max_len``.
"""

from __future__ import annotations

from collections.abc import Callable

ALNUM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
B64URL = ALNUM | frozenset("_-")
B64 = ALNUM | frozenset("+/=")
TOKEN = ALNUM | frozenset("_-.~+/=%")


class Reach:
    """Furthest position a scanner has examined.

    A prefix that starts inside a run already scanned from an earlier prefix
    of the same kind cannot start a new token, so it is skipped. This keeps
    inputs like ``eyJ.eyJ.eyJ.…`` linear instead of re-scanning the same run
    from every prefix.
    """

    __slots__ = ("pos",)

    def __init__(self) -> None:
        self.pos = -1

    def seen(self, i: int) -> bool:
        return i < self.pos


def scan_token(
    text: str,
    i: int,
    charset: frozenset[str],
    max_len: int,
    valid: Callable[[str], bool],
    reach: Reach | None = None,
) -> tuple[int, str] | None:
    """Scan from ``i``; return ``(end, body)`` for a valid body, bridging <= 1 space.

    ``body`` excludes the bridged space. Returns None when no valid body is found.
    ``reach`` (optional) records how far the scan looked.
    """
    n = len(text)
    j = i
    limit = min(n, i + max_len + 1)
    while j < limit and text[j] in charset:
        j += 1
    body = text[i:j]
    if reach is not None:
        reach.pos = max(reach.pos, j)
    if valid(body):
        return j, body
    if j + 1 < n and text[j] == " " and text[j + 1] in charset and body:
        k = j + 1
        limit2 = min(n, k + max_len + 1 - len(body))
        while k < limit2 and text[k] in charset:
            k += 1
        joined = body + text[j + 1 : k]
        if valid(joined):
            return k, joined
    return None


def scan_left(text: str, i: int, charset: frozenset[str], max_len: int) -> int:
    """Start index of the run of ``charset`` characters ending just before ``i``."""
    j = i
    stop = max(0, i - max_len)
    while j > stop and text[j - 1] in charset:
        j -= 1
    return j


def boundary_before(text: str, i: int, charset: frozenset[str] = ALNUM) -> bool:
    """True when ``text[i]`` does not continue a token that started earlier."""
    return i == 0 or text[i - 1] not in charset


def boundary_after(text: str, j: int, charset: frozenset[str] = ALNUM) -> bool:
    """True when the token ending at ``j`` is not followed by more token characters."""
    return j >= len(text) or text[j] not in charset
