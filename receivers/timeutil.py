"""Nanosecond epoch timestamps → ISO 8601 UTC strings (the trace model's format)."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache


@lru_cache(maxsize=8192)
def _second_prefix(secs: int) -> str | None:
    # Spans of one trace share their seconds; formatting them once matters at
    # tens of thousands of spans a second (strftime is the slow part).
    try:
        return datetime.fromtimestamp(secs, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S")
    except (OverflowError, OSError, ValueError):
        return None


def iso_from_ns(ns: int) -> str | None:
    """``2026-11-30T03:16:03.342197Z``; None for 0 (unset in OTLP)."""
    if ns <= 0:
        return None
    # ``//`` and ``-``, not ``divmod``; the microseconds zero-padded by
    # dropping the leading 1 of 1,000,000 + them, not by a ``06d`` format
    # spec: compiled, those stay machine arithmetic and one ``str``, where
    # the tuple and the two method calls of ``format`` were ~2,000
    # instructions a timestamp.
    secs = ns // 1_000_000_000
    prefix = _second_prefix(secs)
    if prefix is None:
        return None
    micros = (ns - secs * 1_000_000_000) // 1000
    return f"{prefix}.{str(1_000_000 + micros)[1:]}Z"
