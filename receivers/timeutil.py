"""Nanosecond epoch timestamps → ISO 8601 UTC strings (the trace model's format)."""

from __future__ import annotations

from datetime import UTC, datetime


def iso_from_ns(ns: int) -> str | None:
    """``2026-11-30T03:16:03.342197Z``; None for 0 (unset in OTLP)."""
    if ns <= 0:
        return None
    secs, rem = divmod(ns, 1_000_000_000)
    try:
        dt = datetime.fromtimestamp(secs, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + f".{rem // 1000:06d}Z"
