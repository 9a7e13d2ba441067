"""The key that files a trace's span batches, jobs and verdicts in order of its arrival.

OTel trace ids are random, so an index keyed by ``(tenant, trace id, …)``
takes each new trace's entry on a random leaf: once the index is larger
than what one commit touches, every trace dirties a leaf of its own, which
the commit writes to the log and the checkpoint copies again, and the
share of leaves a commit touches grows with the table. On the paced
standard load (``bench/e2e_bench.py``, 120,000 traces at 2,000/s, SQLite)
the server wrote 113 KiB a trace with random trace ids and 64 KiB with
ids that rise with time, and evaluation fell behind only with the former.

``traces.arrival_us`` is the microsecond its first spans were received (the
row's ``created_at``), set once when the row is inserted; a trace's span
batches, evaluation jobs and evaluations carry the same value ahead of the
trace id in their keys, so new entries land on the last leaves of those
indexes. Readers find a trace's batches through its ``traces`` row
(``storage.spans``) and its verdicts under that arrival and 0, where a
deleted trace's go (``storage.evaluations.of_trace``). A trace deleted and
sent again is a new row with a new arrival.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

_EPOCH = datetime(1970, 1, 1)
_MICROSECOND = timedelta(microseconds=1)


def arrival_key(at: datetime) -> int:
    """Microseconds from the epoch to ``at`` (naive UTC, as every stored
    datetime is; an aware one is converted first)."""
    if at.tzinfo is not None:
        at = at.astimezone(UTC).replace(tzinfo=None)
    return (at - _EPOCH) // _MICROSECOND
