"""The longest commit FTS5's merge policy makes a writer wait, over a long run.

``bench/fts_merge.py`` counts what the search index costs a document on
average. This measures the other side: FTS5 merges a level's segments into
one, and a merge runs inside the commit that triggers it, holding SQLite's
write lock, so every receiver and worker waits for it. The cost a document
can be small while one commit in a hundred thousand takes seconds. It
indexes documents the size of a trace's search row (the same generator
and scratch table as ``fts_merge.py``), committing ``--batch`` at a time
as a worker does, and times every commit:

    python bench/fts_stall.py --docs 600000
    python bench/fts_stall.py --docs 600000 --policy 16:16 --policy 16:64

A policy is ``automerge:crisismerge``. Prints, for each: the time a
document, the longest commit and after how many documents it came, the
99.9th percentile, and the commits over 100 ms and over 1 s. Wall time on a
quiet machine; run the policies in the same minutes.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fts_merge import _text, scratch_index

POOL = 50_000  # distinct texts; a longer run repeats them under new rowids

Texts = tuple[str, str, str, str]


def texts() -> list[Texts]:
    rng = random.Random(1)
    return [(_text(rng, 20), _text(rng, 80), _text(rng, 10), _text(rng, 5)) for _ in range(POOL)]


def commit_times(
    pool: list[Texts], docs: int, automerge: int, crisismerge: int, batch: int
) -> list[float]:
    """Seconds each commit of ``batch`` documents took, in order. Documents
    past the pool's size reuse its texts (the index's postings grow the
    same way; generating millions of texts would take longer than indexing
    them)."""
    times: list[float] = []
    with tempfile.TemporaryDirectory(prefix="iris-fts-") as home:
        conn = scratch_index(Path(home) / "fts.db", automerge, crisismerge)
        conn.execute("PRAGMA synchronous=NORMAL")  # as Iris's connections
        for start in range(0, docs, batch):
            rows = [
                (rowid, "tenant", *pool[rowid % POOL])
                for rowid in range(start + 1, min(start + batch, docs) + 1)
            ]
            began = time.perf_counter()
            conn.executemany(
                "INSERT INTO s(rowid, tenant_id, input, output, tools, metadata) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                rows,
            )
            conn.commit()
            times.append(time.perf_counter() - began)
        conn.close()
    return times


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--docs", type=int, default=600_000)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument(
        "--policy",
        action="append",
        help="automerge:crisismerge (default: 16:16, Iris's before migration 0018, and 8:64)",
    )
    args = ap.parse_args()
    pool = texts()
    print(f"{args.docs:,} documents, committed {args.batch} at a time")
    print("policy | µs a document | longest commit (after documents) | p99.9 | >100 ms | >1 s")
    for policy in args.policy or ["16:16", "8:64"]:
        automerge, crisismerge = (int(part) for part in policy.split(":"))
        times = commit_times(pool, args.docs, automerge, crisismerge, args.batch)
        worst = max(range(len(times)), key=times.__getitem__)
        p999 = statistics.quantiles(times, n=1000)[-1]
        print(
            f"{automerge}:{crisismerge} | {sum(times) / args.docs * 1e6:.1f} | "
            f"{times[worst] * 1000:,.0f} ms ({(worst + 1) * args.batch:,}) | "
            f"{p999 * 1000:.1f} ms | {sum(t > 0.1 for t in times)} | {sum(t > 1.0 for t in times)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
