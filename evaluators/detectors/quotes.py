"""Spans of quoted prose, so a text that *discusses* an attack phrase is not flagged.

A double-quoted span counts as a quotation unless it is a data value
(``"key": "…"`` or ``attr="…"``): injected text stored in a JSON field or an
HTML attribute is live payload, not a citation. Unclosed quotes longer than
``_MAX_QUOTE`` characters are treated as stray marks. One linear pass.
"""

from __future__ import annotations

import bisect
import re

_OPEN_CLOSE = {"“": "”", "«": "»", "„": "“"}
_MAX_QUOTE = 1500
_QUOTE_CHARS = re.compile('["“«„]')


def _is_data_value(t: str, i: int) -> bool:
    j = i - 1
    if j >= 0 and t[j] == " ":
        j -= 1
    if j < 0:
        return False
    if t[j] == "[" or (t[j] == "," and j > 0 and t[j - 1] == '"'):
        return True  # array element
    if t[j] == ":":
        k = j - 1 if j > 0 and t[j - 1] != " " else j - 2
        return k >= 0 and t[k] in "\"'"  # "key": "value"
    return t[j] == "=" and i - 1 == j  # attr="…" written without spaces


class QuoteSpans:
    """Sorted, non-overlapping prose-quote intervals with O(log n) membership.

    The intervals are found on the first :meth:`covers` call: most texts
    yield no candidate to ask about, and then the scan is never needed.
    """

    def __init__(self, t: str) -> None:
        self._t = t
        self._starts: list[int] | None = None
        self._ends: list[int] = []

    def _scan(self) -> list[int]:
        t = self._t
        starts: list[int] = []
        ends: list[int] = []
        n = len(t)
        pos = 0
        while True:
            m = _QUOTE_CHARS.search(t, pos)
            if m is None:
                break
            i = m.start()
            c = t[i]
            close = '"' if c == '"' else _OPEN_CLOSE[c]
            if c == '"' and i > 0 and t[i - 1] == "\\":
                pos = i + 1
                continue
            limit = min(n, i + _MAX_QUOTE)
            j = t.find(close, i + 1, limit)
            while j > 0 and t[j - 1] == "\\":
                j = t.find(close, j + 1, limit)
            if j < 0:
                pos = i + 1
                continue
            if not _is_data_value(t, i):
                starts.append(i)
                ends.append(j + 1)
            pos = j + 1
        self._starts = starts
        self._ends = ends
        return starts

    def covers(self, start: int, end: int) -> bool:
        """True when ``[start, end)`` lies inside one prose quotation."""
        starts = self._starts if self._starts is not None else self._scan()
        k = bisect.bisect_right(starts, start) - 1
        return k >= 0 and self._ends[k] >= end
