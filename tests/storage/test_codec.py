"""Timestamps as stored: ingest's and the derivation's must be one value;
the clock and the ISO rendering every stored time goes through."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from receivers.timeutil import iso_from_ns
from storage import codec


@given(st.integers(min_value=1, max_value=4_102_444_800 * 10**9))  # up to 2100
@settings(max_examples=500, deadline=None)
def test_ingest_timestamp_is_the_one_a_derivation_stores(ns: int) -> None:
    """What ingest files for a trace is what ``agent_fields`` later stores
    from the same start time, so the derivation's UPDATE leaves it out."""
    derived = iso_from_ns(ns)
    assert derived is not None
    assert codec.ns_to_datetime_floor(ns) == codec.iso_to_datetime(derived)


@given(st.integers(min_value=1, max_value=4_102_444_800 * 10**9))
@settings(max_examples=200, deadline=None)
def test_floor_is_within_a_microsecond_of_the_rounded_value(ns: int) -> None:
    gap = codec.ns_to_datetime(ns) - codec.ns_to_datetime_floor(ns)
    assert 0 <= gap.total_seconds() * 1e6 <= 1


@given(st.datetimes() | st.datetimes(timezones=st.timezones()))
@settings(max_examples=500, deadline=None)
def test_iso_is_isoformat_with_microseconds_and_z(value: datetime) -> None:
    assert codec.iso(value) == value.isoformat(timespec="microseconds") + "Z"


def test_iso_of_none_is_none() -> None:
    assert codec.iso(None) is None


def test_utcnow_is_naive_utc_now() -> None:
    for _ in range(1000):
        before = datetime.now(UTC).replace(tzinfo=None)
        now = codec.utcnow()
        after = datetime.now(UTC).replace(tzinfo=None)
        assert now.tzinfo is None
        assert before <= now <= after
