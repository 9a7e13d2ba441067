"""What FTS5's merge policy and the commit size cost the search index, in instructions.

A worker indexes each judged trace in ``trace_search`` (FTS5 on SQLite) and
commits a batch at a time; FTS5 writes a segment per commit and merges
segments level by level (``automerge``). The cost per document depends on
both, and a short run measures mostly where the merges happen to fall, so
this indexes a long run of documents the size of a trace's search row in a
scratch table configured as migrations 0009, 0010 and 0012 configure Iris's, and
counts instructions under callgrind (repeatable, unlike timings on a shared
machine):

    python bench/fts_merge.py                       # automerge 8 and 16, batches of 64 and 128
    python bench/fts_merge.py --automerge 8 --automerge 16 --batch 128 --docs 25600
    python bench/fts_merge.py --automerge 32 --crisismerge 64 --batch 128 --docs 25600

Needs valgrind. Prints instructions per document for each setting and the
ratio to the first, then what the index costs a reader: its segments and
the time of a ranked query (bm25, snippets) over it, timed without valgrind.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from counted import callgrind, collected, run_counted

from storage.sqlite_driver import dbapi as sqlite3  # the SQLite Iris runs on

VOCABULARY = [f"w{i}" for i in range(5000)]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(VOCABULARY) for _ in range(words))


def scratch_index(path: Path, automerge: int, crisismerge: int, detail: str = "full") -> Any:
    """A connection (of the driver module Iris uses, hence ``Any``) to a new
    database at ``path`` holding an empty FTS5 table ``s`` with
    ``trace_search``'s columns, tokenizer and page size (migrations 0001 and
    0009) and the merge options given."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA page_size=8192")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(
        "CREATE VIRTUAL TABLE s USING fts5(tenant_id UNINDEXED, input, output, tools, metadata, "
        f"tokenize='unicode61 remove_diacritics 2', detail={detail})"
    )
    conn.execute("INSERT INTO s(s, rank) VALUES ('pgsz', 8000)")
    conn.execute(f"INSERT INTO s(s, rank) VALUES ('automerge', {int(automerge)})")
    conn.execute(f"INSERT INTO s(s, rank) VALUES ('crisismerge', {int(crisismerge)})")
    conn.commit()
    return conn


def index(
    path: Path, automerge: int, batch: int, docs: int, crisismerge: int = 16, detail: str = "full"
) -> None:
    """Index ``docs`` documents, committing every ``batch``; only the
    indexing runs inside ``run_counted`` (what callgrind counts)."""
    rng = random.Random(1)
    rows = [
        (i + 1, "tenant", _text(rng, 20), _text(rng, 80), _text(rng, 10), _text(rng, 5))
        for i in range(docs)
    ]
    conn = scratch_index(path, automerge, crisismerge, detail)

    def run() -> None:
        for start in range(0, docs, batch):
            conn.executemany(
                "INSERT INTO s(rowid, tenant_id, input, output, tools, metadata) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                rows[start : start + batch],
            )
            conn.commit()

    run_counted(run)
    conn.close()


def query_ms(
    automerge: int, batch: int, docs: int, crisismerge: int, detail: str = "full"
) -> tuple[float, int]:
    """Milliseconds a ranked search takes over the index these settings build
    (the fastest of five rounds of ten queries, each word as Iris queries it:
    one quoted phrase, ranked by bm25, with a snippet per field, 50 rows),
    and the segments the index holds: what more segments cost a reader."""
    with tempfile.TemporaryDirectory(prefix="iris-fts-") as home:
        path = Path(home) / "fts.db"
        index(path, automerge, batch, docs, crisismerge, detail)
        conn = sqlite3.connect(path)
        segments = conn.execute("SELECT count(DISTINCT segid) FROM s_idx").fetchone()[0]
        words = [f"w{i}" for i in range(0, 5000, 500)]
        best = float("inf")
        for _ in range(5):
            started = time.perf_counter()
            for word in words:
                conn.execute(
                    "SELECT rowid, snippet(s, 1, '<mark>', '</mark>', '…', 16), "
                    "snippet(s, 2, '<mark>', '</mark>', '…', 16) FROM s WHERE s MATCH ? "
                    "ORDER BY bm25(s, 0, 1.0, 1.0, 0.5, 0.3) LIMIT 50",
                    (f'"{word}"',),
                ).fetchall()
            best = min(best, (time.perf_counter() - started) * 1000 / len(words))
        conn.close()
    return best, segments


def measure(automerge: int, batch: int, docs: int, crisismerge: int, detail: str = "full") -> int:
    """Instructions callgrind counted indexing ``docs`` documents."""
    with tempfile.TemporaryDirectory(prefix="iris-fts-") as home:
        out = Path(home) / "callgrind.out"
        run = subprocess.run(
            [
                *callgrind(str(out)),
                sys.executable,
                __file__,
                "--inside",
                str(Path(home) / "fts.db"),
                "--automerge",
                str(automerge),
                "--batch",
                str(batch),
                "--docs",
                str(docs),
                "--crisismerge",
                str(crisismerge),
                "--detail",
                detail,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    count = collected(run.stderr)
    if count is None:
        raise SystemExit(f"no callgrind count in:\n{run.stderr[-2000:]}")
    return count


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--automerge", type=int, action="append")
    ap.add_argument("--batch", type=int, action="append")
    ap.add_argument("--docs", type=int, default=12_800)
    ap.add_argument(
        "--crisismerge",
        type=int,
        default=16,
        help="FTS5 merges a level at once when it holds this many segments (16 is FTS5's own; "
        "an automerge above it acts as this)",
    )
    ap.add_argument(
        "--detail",
        action="append",
        choices=("full", "column", "none"),
        help="what the index keeps of each term (FTS5's detail option; Iris's is full)",
    )
    ap.add_argument("--inside", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inside is not None:
        index(
            args.inside,
            args.automerge[0],
            args.batch[0],
            args.docs,
            args.crisismerge,
            (args.detail or ["full"])[0],
        )
        return 0
    first = None
    for detail in args.detail or ["full"]:
        for automerge in args.automerge or [8, 16]:
            for batch in args.batch or [64, 128]:
                count = measure(automerge, batch, args.docs, args.crisismerge, detail)
                per_doc = count / args.docs
                first = first or per_doc
                ms, segments = query_ms(automerge, batch, args.docs, args.crisismerge, detail)
                print(
                    f"detail {detail}, automerge {automerge:>2}, crisismerge {args.crisismerge}, "
                    f"commits of {batch:>4}: {per_doc:>9,.0f} instructions a document "
                    f"({per_doc / first:.2f}x); {segments} segments, a ranked query {ms:.2f} ms"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
