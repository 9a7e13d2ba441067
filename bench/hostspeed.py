"""How fast this host is right now, by a fixed piece of work that no change to
Iris can change.

On a shared machine the same tree's end-to-end cost moved by 15 % between
consecutive runs and by 30-40 % between days (``docs/performance.md``), more
than most changes save. A figure taken just before and just after a run lets
runs on different days be compared: the reference is the CPU time one thread
takes for work of the kind Iris does (the interpreter's dict, list and string
operations, JSON, an in-memory SQLite table with an index) using only the
standard library, so its instructions are the same for every tree. Divide a
run's milliseconds a trace by it to compare runs across hosts' moods.

The host's speed moves within minutes too (five samples in a row: 81-104 ms),
so a benchmark samples it *during* its run, from a process of its own
(``--every``): each sample is the CPU time of the sampling thread, so waiting
for a core busy with the run does not count, and a sample every 10 s costs
the run ~1 % of one core.

    python bench/hostspeed.py              # prints the reference, in ms
    python bench/hostspeed.py --every 10   # a sample every 10 s, one a line, until killed
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from pathlib import Path

ROUNDS = 3  # the fastest of three: a pause by the host only ever adds time
HOSTSPEED = Path(__file__).resolve()


def _work() -> int:
    """Fixed work, ~0.1 s on a 2.1 GHz Xeon; returns a checksum so none of it
    can be skipped."""
    check = 0
    words = [f"w{i % 97}x{i}" for i in range(20_000)]
    counts: dict[str, int] = {}
    for w in words:
        key = w[:4]
        counts[key] = counts.get(key, 0) + len(w)
    check += sum(counts.values())
    doc = {
        "spans": [
            {"name": w, "attrs": {"k": i, "v": [i, w, None]}} for i, w in enumerate(words[:3000])
        ]
    }
    for _ in range(3):
        check += len(json.loads(json.dumps(doc))["spans"])
    db = sqlite3.connect(":memory:")  # in memory: no file another SQLite library could lock
    db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, n INTEGER, body TEXT)")
    db.execute("CREATE INDEX t_n ON t (n)")
    db.executemany(
        "INSERT INTO t VALUES (?, ?, ?)", ((w, i % 101, w * 8) for i, w in enumerate(words))
    )
    check += db.execute("SELECT count(*), sum(n) FROM t WHERE n < 50").fetchone()[1]
    db.close()
    return check


def reference_ms() -> float:
    """CPU milliseconds one thread takes for the fixed work (the fastest of three)."""
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.thread_time()
        _work()
        best = min(best, time.thread_time() - start)
    return best * 1000


def sample_forever(every: float) -> None:
    """One work round (not the fastest of three) every ``every`` seconds, its
    CPU milliseconds a line on stdout, until the process is stopped."""
    while True:
        start = time.thread_time()
        _work()
        print(f"{(time.thread_time() - start) * 1000:.2f}", flush=True)
        time.sleep(every)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--every", type=float, help="sample every this many seconds until stopped")
    args = ap.parse_args()
    if args.every:
        try:
            sample_forever(args.every)
        except (KeyboardInterrupt, BrokenPipeError):
            sys.exit(0)
    print(f"host reference: {reference_ms():.1f} ms")


if __name__ == "__main__":
    main()
