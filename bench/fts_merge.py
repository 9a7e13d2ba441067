"""What FTS5's merge policy and the commit size cost the search index, in instructions.

A worker indexes each judged trace in ``trace_search`` (FTS5 on SQLite) and
commits a batch at a time; FTS5 writes a segment per commit and merges
segments level by level (``automerge``). The cost per document depends on
both, and a short run measures mostly where the merges happen to fall, so
this indexes a long run of documents the size of a trace's search row in a
scratch table configured as migrations 0009 and 0010 configure Iris's, and
counts instructions under callgrind (repeatable, unlike timings on a shared
machine):

    python bench/fts_merge.py                       # automerge 4 and 8, batches of 64 and 128
    python bench/fts_merge.py --automerge 8 --batch 128 --docs 25600

Needs valgrind. Prints instructions per document for each setting and the
ratio to the first.
"""

from __future__ import annotations

import argparse
import functools
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

VOCABULARY = [f"w{i}" for i in range(5000)]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(VOCABULARY) for _ in range(words))


def index(path: Path, automerge: int, batch: int, docs: int) -> None:
    """Index ``docs`` documents, committing every ``batch``; only the
    indexing runs inside ``functools.reduce`` (what callgrind counts)."""
    rng = random.Random(1)
    rows = [
        (i + 1, "tenant", _text(rng, 20), _text(rng, 80), _text(rng, 10), _text(rng, 5))
        for i in range(docs)
    ]
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA page_size=8192")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(
        "CREATE VIRTUAL TABLE s USING fts5(tenant_id UNINDEXED, input, output, tools, metadata, "
        "tokenize='unicode61 remove_diacritics 2')"
    )
    conn.execute("INSERT INTO s(s, rank) VALUES ('pgsz', 8000)")
    conn.execute(f"INSERT INTO s(s, rank) VALUES ('automerge', {int(automerge)})")
    conn.commit()

    def run(_first: int, _second: int) -> int:
        for start in range(0, docs, batch):
            conn.executemany(
                "INSERT INTO s(rowid, tenant_id, input, output, tools, metadata) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                rows[start : start + batch],
            )
            conn.commit()
        return 0

    functools.reduce(run, [1, 2])
    conn.close()


def measure(automerge: int, batch: int, docs: int) -> int:
    """Instructions callgrind counted indexing ``docs`` documents."""
    with tempfile.TemporaryDirectory(prefix="iris-fts-") as home:
        out = Path(home) / "callgrind.out"
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--collect-atstart=no",
                "--toggle-collect=*functools_reduce*",
                f"--callgrind-out-file={out}",
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
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None:
        raise SystemExit(f"no callgrind count in:\n{run.stderr[-2000:]}")
    return int(found.group(1))


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--automerge", type=int, action="append")
    ap.add_argument("--batch", type=int, action="append")
    ap.add_argument("--docs", type=int, default=12_800)
    ap.add_argument("--inside", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inside is not None:
        index(args.inside, args.automerge[0], args.batch[0], args.docs)
        return 0
    first = None
    for automerge in args.automerge or [4, 8]:
        for batch in args.batch or [64, 128]:
            per_doc = measure(automerge, batch, args.docs) / args.docs
            first = first or per_doc
            print(
                f"automerge {automerge:>2}, commits of {batch:>4}: "
                f"{per_doc:>9,.0f} instructions a document ({per_doc / first:.2f}x)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
