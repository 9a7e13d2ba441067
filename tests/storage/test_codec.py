"""Timestamps as stored: ingest's and the derivation's must be one value."""

from __future__ import annotations

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
