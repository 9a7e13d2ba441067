"""Full-text search over traces: SQLite FTS5 or PostgreSQL tsvector.

The index row is written in the same transaction as the trace and removed
with it (SPEC §14.6). User text never reaches the FTS query grammar: the
query is split into words here and each word is quoted, so ``q`` cannot
inject FTS5 operators or fail to parse.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import (
    Column,
    Connection,
    MetaData,
    String,
    Table,
    Text,
    and_,
    bindparam,
    delete,
    func,
    literal_column,
    text,
)
from sqlalchemy.sql import ColumnElement, Select

from evaluators.text.case import lower
from storage.driverread import fetch_all

# Not part of the ORM metadata: the migration creates it per dialect.
_search_metadata = MetaData()
search_table = Table(
    "trace_search",
    _search_metadata,
    Column("tenant_id", String(64)),
    Column("trace_id", String(32)),
    Column("input", Text),
    Column("output", Text),
    Column("tools", Text),
    Column("metadata", Text),
)

SEARCH_FIELDS = ("input", "output", "tools", "metadata")
MAX_FIELD_CHARS = 200_000
MARK_OPEN, MARK_CLOSE = "<mark>", "</mark>"
# The keys of a stored tool call whose values are searched, in this order.
TOOL_CALL_SEARCHED = ("tool_name", "input", "output", "error")
# Anything that is not a letter or digit (a single character class: nothing
# to backtrack). ``\w`` is ``str.isalnum`` plus the underscore.
_NOT_A_WORD = re.compile(r"[\W_]+")


def _flatten(value: Any, out: list[str]) -> None:
    """The leaf values of ``value`` in order (keys left out); strings (most
    leaves) are appended by the caller's loop instead of a call each."""
    if isinstance(value, dict):
        for item in value.values():
            if isinstance(item, str):
                out.append(item)
            elif item is not None:
                _flatten(item, out)
    elif isinstance(value, list | tuple):
        for item in value:
            if isinstance(item, str):
                out.append(item)
            elif item is not None:
                _flatten(item, out)
    elif isinstance(value, str):
        out.append(value)
    elif value is not None:
        out.append(_scalar_text(value))


def _scalar_text(value: Any) -> str:
    """``json.dumps`` of a scalar leaf, without its encoder set-up for the
    common exact types (same text: ``repr`` of a finite float is JSON's)."""
    kind = type(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is int or (kind is float and math.isfinite(value)):
        return repr(value)
    return json.dumps(value)


def values_text(value: Any) -> str:
    """The leaf values of a JSON-like value, space-separated: what is
    searched of a trace's metadata (SPEC §14.6 indexes values, not keys)."""
    parts: list[str] = []
    _flatten(value, parts)
    return " ".join(parts)[:MAX_FIELD_CHARS]


def tool_calls_text(calls: Any) -> str:
    """What is searched of a trace's tool calls: each call's name, the values
    of its input and output, and its error (SPEC §14.6).

    A call's timings, ids and cost are left out: they are in every call, and
    nearly every one is a word no other trace has. On the load generator's
    traces they and the key names were half of the index's words, and leaving
    them out cut the index's instructions per document by a third
    (``docs/performance.md``, session 16)."""
    parts: list[str] = []
    if isinstance(calls, list | tuple):
        for call in calls:
            if isinstance(call, dict):
                for key in TOOL_CALL_SEARCHED:
                    item = call.get(key)
                    if isinstance(item, str):
                        parts.append(item)
                    elif item is not None:
                        _flatten(item, parts)
            elif call is not None:
                _flatten(call, parts)
    elif calls is not None:
        _flatten(calls, parts)
    return " ".join(parts)[:MAX_FIELD_CHARS]


def document(row: dict[str, Any]) -> dict[str, Any]:
    """The index row for a ``traces`` row dict."""
    return document_of(row["tenant_id"], row["trace_id"], row)


def document_of(tenant_id: str, trace_id: str, row: Mapping[str, Any]) -> dict[str, Any]:
    """The index row of trace ``trace_id`` whose other columns ``row`` holds
    (a derivation's values: no copy of them with the key added)."""
    return {
        "tenant_id": tenant_id,
        "trace_id": trace_id,
        "input": (row.get("input") or "")[:MAX_FIELD_CHARS],
        "output": (row.get("output") or "")[:MAX_FIELD_CHARS],
        "tools": tool_calls_text(row.get("tool_calls")),
        "metadata": values_text(row.get("metadata")),
    }


def _sqlite_rowids(conn: Connection, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """The ``traces`` rowid of each key: the FTS5 row shares it, so lookups
    and deletes go by rowid instead of scanning the unindexed id columns.
    (Letting the INSERT select the rowid itself made FTS5 five times slower.)"""
    found: dict[tuple[str, str], int] = {}
    by_tenant: dict[str, list[str]] = {}
    for tenant_id, trace_id in keys:
        by_tenant.setdefault(tenant_id, []).append(trace_id)
    for tenant_id, ids in by_tenant.items():
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            rows = fetch_all(
                conn,
                "SELECT rowid, trace_id FROM traces WHERE tenant_id = ? "
                f"AND trace_id IN ({', '.join('?' for _ in chunk)})",
                (tenant_id, *chunk),
            )
            for rowid, trace_id in rows:
                found[(tenant_id, trace_id)] = int(rowid)
    return found


def _delete_sqlite(conn: Connection, rowids: list[int]) -> None:
    """Delete index rows by rowid. The rowids are parameters: as literals, each
    statement's text was new and SQLite compiled it again every batch."""
    for i in range(0, len(rowids), 500):
        chunk = rowids[i : i + 500]
        conn.exec_driver_sql(
            f"DELETE FROM trace_search WHERE rowid IN ({', '.join('?' for _ in chunk)})",
            tuple(chunk),
        )


def index_rows(conn: Connection, rows: Sequence[dict[str, Any]], *, replace: bool = False) -> None:
    """Index traces in the caller's transaction (the trace rows must exist).

    ``replace`` first removes an existing index row (re-derived traces).
    """
    index_documents(conn, [document(r) for r in rows], replace=replace)


def index_documents(
    conn: Connection, docs: Sequence[dict[str, Any]], *, replace: bool = False
) -> None:
    """``index_rows`` of the index rows ``document`` made (a worker makes them
    before its transaction)."""
    if not docs:
        return
    keys = [(d["tenant_id"], d["trace_id"]) for d in docs]
    if conn.dialect.name == "sqlite":
        rowids = _sqlite_rowids(conn, keys)
        if replace:
            _delete_sqlite(conn, list(rowids.values()))
        conn.exec_driver_sql(
            "INSERT INTO trace_search (rowid, tenant_id, trace_id, input, output, tools, "
            "metadata) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (rowids[key], *key, d["input"], d["output"], d["tools"], d["metadata"])
                for key, d in zip(keys, docs, strict=True)
            ],
        )
        return
    if replace:
        remove(conn, keys)
    conn.execute(
        text(
            "INSERT INTO trace_search "
            "(tenant_id, trace_id, input, output, tools, metadata, document) "
            "VALUES (:tenant_id, :trace_id, :input, :output, :tools, :metadata, "
            "setweight(to_tsvector('simple', :input_words), 'A') || "
            "setweight(to_tsvector('simple', :output_words), 'A') || "
            "setweight(to_tsvector('simple', :tools_words), 'B') || "
            "setweight(to_tsvector('simple', :metadata_words), 'C'))"
        ),
        [{**d, **{f"{name}_words": index_words(d[name]) for name in SEARCH_FIELDS}} for d in docs],
    )


def index_words(value: str) -> str:
    """``value`` split into words the way ``query_words`` splits a query.

    PostgreSQL's parser reads ``NW-356787`` as ``nw`` and the signed integer
    ``-356787``, ``3.14`` as one number and an address as one token, so a
    query for ``356787`` would miss; the index gets the same words as the
    query instead (FTS5's tokenizer already splits on every separator).
    """
    return _NOT_A_WORD.sub(" ", value)


def remove(conn: Connection, keys: Sequence[tuple[str, str]]) -> None:
    """Delete index rows; call before deleting the trace rows themselves."""
    if conn.dialect.name == "sqlite":
        _delete_sqlite(conn, list(_sqlite_rowids(conn, keys).values()))
        return
    if not keys:
        return
    # One executemany (a pipeline on psycopg): a statement per trace was a
    # round trip per trace when a worker re-indexes its batch.
    conn.execute(
        delete(search_table).where(
            and_(
                search_table.c.tenant_id == bindparam("b_tenant"),
                search_table.c.trace_id == bindparam("b_trace"),
            )
        ),
        [{"b_tenant": tenant_id, "b_trace": trace_id} for tenant_id, trace_id in keys],
    )


def query_words(q: str) -> list[str]:
    """Split a user query into searchable words (letters and digits)."""
    words: list[str] = []
    current: list[str] = []
    for ch in q[:1000]:
        if ch.isalnum():
            current.append(ch)
        elif current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    return words[:32]


class SearchPlan:
    """How to join, filter, rank and highlight for one query on one dialect."""

    def __init__(self, dialect: str, q: str):
        self.dialect = dialect
        self.words = query_words(q)
        if dialect == "sqlite":
            # Each word quoted: a phrase of one token, so no FTS5 operator survives.
            self.match = " AND ".join('"' + w.replace('"', "") + '"' for w in self.words)
        else:
            self.match = " & ".join(lower(w) for w in self.words)  # CPython's, final sigma too

    @property
    def empty(self) -> bool:
        return not self.words

    def apply(self, stmt: Select[Any], tenant_col: Any, trace_col: Any) -> Select[Any]:
        if self.dialect == "sqlite":
            joined = stmt.join(
                search_table, literal_column("trace_search.rowid") == literal_column("traces.rowid")
            )
            return joined.where(literal_column("trace_search").op("MATCH")(self.match))
        joined = stmt.join(
            search_table,
            and_(search_table.c.tenant_id == tenant_col, search_table.c.trace_id == trace_col),
        )
        return joined.where(
            literal_column("trace_search.document").op("@@")(func.to_tsquery("simple", self.match))
        )

    def rank(self) -> ColumnElement[Any]:
        """An expression where smaller is better (used ascending)."""
        if self.dialect == "sqlite":
            return literal_column("bm25(trace_search, 0, 0, 1.0, 1.0, 0.5, 0.3)")
        return -func.ts_rank(
            literal_column("trace_search.document"), func.to_tsquery("simple", self.match)
        )

    def snippets(self) -> list[ColumnElement[Any]]:
        if self.dialect == "sqlite":
            return [
                literal_column(
                    f"snippet(trace_search, {i + 2}, '{MARK_OPEN}', '{MARK_CLOSE}', '…', 16)"
                ).label(f"hl_{name}")
                for i, name in enumerate(SEARCH_FIELDS)
            ]
        options = f"StartSel={MARK_OPEN},StopSel={MARK_CLOSE},MaxWords=24,MinWords=8"
        return [
            func.ts_headline(
                "simple",
                func.coalesce(search_table.c[name], ""),
                func.to_tsquery("simple", self.match),
                options,
            ).label(f"hl_{name}")
            for name in SEARCH_FIELDS
        ]


def highlights(row: Any) -> list[dict[str, str]]:
    out = []
    for name in SEARCH_FIELDS:
        snippet = getattr(row, f"hl_{name}", None)
        if snippet and MARK_OPEN in snippet:
            out.append({"field": name, "snippet": snippet})
    return out
