"""SQLAlchemy models: the schema Alembic migrates to.

Every table carries ``tenant_id`` and every composite index leads with it
(SPEC §14.2, §14.7). Span times are integer nanoseconds (what OTLP sends, and
cheap to write at ingest rates); trace and evaluation times are UTC datetimes
stored without a zone, because both SQLite and PostgreSQL compare those alike.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from storage.arrival import arrival_key

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# JSON on PostgreSQL is stored as JSONB; SQLite keeps text.
JsonType = JSON().with_variant(JSONB(), "postgresql")

# The predicate of the assembler's partial index. A query can use such an
# index only when its WHERE clause states the predicate with literals, so the
# queries in storage.assembly use this very string.
OPEN_TRACE = "status = 'open'"


# SQLite only auto-increments INTEGER PRIMARY KEY; PostgreSQL gets BIGINT.
BigIntId = BigInteger().with_variant(Integer, "sqlite")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


def _arrival_of_row(context: Any) -> int:
    """``traces.arrival_us`` of a row inserted without one: its ``created_at``."""
    return arrival_key(context.get_current_parameters()["created_at"])


class Trace(Base):
    """One agent run: the aggregate of its spans (DESIGN decision 3)."""

    __tablename__ = "traces"

    tenant_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    trace_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    agent_name: Mapped[str] = mapped_column(String(256))
    framework: Mapped[str | None] = mapped_column(String(128))
    input: Mapped[str | None] = mapped_column(Text)
    output: Mapped[str | None] = mapped_column(Text)
    tool_calls: Mapped[Any] = mapped_column(JsonType, nullable=True)
    latency_ms: Mapped[float | None] = mapped_column(Float)
    prompt_tokens: Mapped[int | None] = mapped_column(BigInteger)
    completion_tokens: Mapped[int | None] = mapped_column(BigInteger)
    total_tokens: Mapped[int | None] = mapped_column(BigInteger)
    cost_usd: Mapped[float | None] = mapped_column(Float)
    cost_source: Mapped[str | None] = mapped_column(String(16))
    meta: Mapped[Any] = mapped_column("metadata", JsonType, nullable=True)
    tools: Mapped[Any] = mapped_column(JsonType, nullable=True)
    expected_trajectory: Mapped[Any] = mapped_column(JsonType, nullable=True)
    run: Mapped[str | None] = mapped_column(String(256))
    case_key: Mapped[str | None] = mapped_column(String(256))
    session_id: Mapped[str | None] = mapped_column(String(256))
    timestamp: Mapped[datetime] = mapped_column(DateTime)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    # ``created_at`` in microseconds from the epoch: the trace's span batches,
    # jobs and verdicts are keyed by it so those indexes grow at their end
    # (``storage.arrival``).
    arrival_us: Mapped[int] = mapped_column(BigInteger, default=_arrival_of_row, server_default="0")
    source: Mapped[str] = mapped_column(String(16))
    # Assembly state (issue on receivers): open -> ready; revision bumps on late spans.
    status: Mapped[str] = mapped_column(String(16), default="ready")
    revision: Mapped[int] = mapped_column(Integer, default=1)
    root_span_id: Mapped[str | None] = mapped_column(String(16))
    has_root: Mapped[bool] = mapped_column(Boolean, default=False)
    error: Mapped[bool] = mapped_column(Boolean, default=False)
    span_count: Mapped[int] = mapped_column(Integer, default=0)
    # Writes of OTLP log events that reached the row. A derivation's UPDATE
    # holds only while this and span_count are what its inputs were read
    # with (storage.assembly.save_derivations): log events add no spans.
    log_writes: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    last_span_at: Mapped[datetime | None] = mapped_column(DateTime)
    ready_at: Mapped[datetime | None] = mapped_column(DateTime)
    finalize_requested: Mapped[bool] = mapped_column(Boolean, default=False)
    # False when spans or log events arrived that the stored fields do not reflect yet.
    derived: Mapped[bool] = mapped_column(Boolean, default=True)
    lacked: Mapped[Any] = mapped_column(JsonType, nullable=True)
    otel_service_name: Mapped[str | None] = mapped_column(String(256))
    evaluate: Mapped[bool | None] = mapped_column(Boolean)
    eval_type: Mapped[str | None] = mapped_column(String(16))
    # The most recent evaluation, kept here so score filters need no join.
    latest_evaluation_id: Mapped[str | None] = mapped_column(String(40))
    latest_score: Mapped[float | None] = mapped_column(Float)
    # ``storage.scoreband.score_band(latest_score)``: what score filters read
    # through the index, eleven values instead of hundreds.
    score_band: Mapped[int | None] = mapped_column(SmallInteger)

    __table_args__ = (
        Index("ix_traces_tenant_timestamp", "tenant_id", "timestamp"),
        Index("ix_traces_tenant_agent_timestamp", "tenant_id", "agent_name", "timestamp"),
        Index("ix_traces_tenant_framework", "tenant_id", "framework"),
        # The assembler's look-ups (storage.assembly): open traces only, so a
        # sweep reads the traces that are due, never every open one.
        Index(
            "ix_traces_open_due",
            "finalize_requested",
            "has_root",
            "last_span_at",
            sqlite_where=text(OPEN_TRACE),
            postgresql_where=text(OPEN_TRACE),
        ),
        Index("ix_traces_tenant_run", "tenant_id", "run"),
        Index("ix_traces_tenant_session", "tenant_id", "session_id"),
        Index("ix_traces_tenant_score_band", "tenant_id", "score_band"),
    )


class TraceCount(Base):
    """How many trace rows a tenant has, kept as its traces are inserted and
    deleted (``storage.tracecounts``): health reports it on every call, and
    counting the rows read the whole table each time. Split into shards so
    receivers on PostgreSQL do not queue on one row's lock at commit."""

    __tablename__ = "trace_counts"

    tenant_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    shard: Mapped[int] = mapped_column(SmallInteger, primary_key=True, autoincrement=False)
    traces: Mapped[int] = mapped_column(BigInteger)


class SpanBatchRow(Base):
    """The spans of one trace that one write stored, sharing a resource.

    Spans are idempotent on (tenant, trace, span) all the same: the writer
    reads which span ids of its traces are stored (``span_ids``) and leaves
    those out. One row per trace per request instead of one per span is what
    makes SQLite's share of ingest small: a row costs ~20 µs to insert
    whatever its size (its key entry lands at a random place of the index),
    and the standard load's traces bring 4 spans each
    (``docs/performance.md``, seventh round).

    A batch holds its spans in one of two forms:

    * ``otlp_spans``: spans that arrived as OTLP protobuf, as a serialized
      ``ResourceSpans`` without its resource (each scope, then each ``Span``
      exactly as it came), the serialized ``Resource`` being stored once per
      content in ``span_resources`` and referenced by ``resource_hash``;
    * ``spans_json``: spans from OTLP/JSON or the native API, a list of
      objects (span id, names, times, status, attributes, events, resource).

    ``storage.spans`` reads both back as one dict per span.
    """

    __tablename__ = "span_batches"

    tenant_id: Mapped[str] = mapped_column(String(64))
    # The trace's ``traces.arrival_us``: ahead of the trace id in the key, so
    # a new trace's batches go on the index's last leaves, not a random one.
    arrival_us: Mapped[int] = mapped_column(BigInteger)
    trace_id: Mapped[str] = mapped_column(String(32))
    # How many spans of the trace were stored before this batch: unique and
    # increasing within a trace, so two writers racing to add spans to the
    # same trace (PostgreSQL) collide on the key and one retries.
    seq: Mapped[int] = mapped_column(Integer)
    span_count: Mapped[int] = mapped_column(Integer)
    # The batch's span ids in order, space-separated (16 hex digits each).
    span_ids: Mapped[str] = mapped_column(Text)
    # Protobuf form: each span's Iris kind, space-separated, in the same order.
    iris_kinds: Mapped[str | None] = mapped_column(Text)
    received_at: Mapped[datetime] = mapped_column(DateTime)
    resource_hash: Mapped[str | None] = mapped_column(String(32))
    otlp_spans: Mapped[bytes | None] = mapped_column(LargeBinary)
    spans_json: Mapped[Any] = mapped_column(JsonType, nullable=True)

    # No foreign key to ``traces``: the writer inserts a trace's row in the
    # transaction that stores its first spans, and ``delete_trace`` deletes
    # the spans itself. A per-row key check was the largest cost of ingest on
    # PostgreSQL (its cached check plan, made while the table was small,
    # scanned ``traces``), and a lookup per row on SQLite.
    __table_args__ = (
        PrimaryKeyConstraint("tenant_id", "arrival_us", "trace_id", "seq"),
        Index("ix_span_batches_tenant_resource", "tenant_id", "resource_hash"),
    )


class SpanResource(Base):
    """One serialized OTLP ``Resource``, shared by every span batch that came with it.

    Keyed by a hash of its bytes, so a re-sent or concurrent insert of the
    same resource is a no-op; deleting a trace removes the resources no other
    span references (``storage.traces.delete_trace``)."""

    __tablename__ = "span_resources"

    tenant_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    resource_hash: Mapped[str] = mapped_column(String(32), primary_key=True)
    otlp_resource: Mapped[bytes] = mapped_column(LargeBinary)


class LogEventRow(Base):
    """A GenAI event that arrived as an OTLP log record (``event_only`` capture).

    Kept apart from spans because logs and spans travel separately and either
    may come first; derivation attaches them to their span.
    """

    __tablename__ = "log_events"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    trace_id: Mapped[str] = mapped_column(String(32))
    span_id: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(256))
    time_unix_nano: Mapped[int] = mapped_column(BigInteger)
    attributes: Mapped[Any] = mapped_column(JsonType, nullable=True)
    body: Mapped[Any] = mapped_column(JsonType, nullable=True)
    received_at: Mapped[datetime] = mapped_column(DateTime)

    __table_args__ = (Index("ix_log_events_tenant_trace", "tenant_id", "trace_id"),)


class Evaluation(Base):
    """One stored verdict (SPEC §3.4); survives its trace with text erased."""

    __tablename__ = "evaluations"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    trace_id: Mapped[str | None] = mapped_column(String(32))
    # The trace's ``traces.arrival_us`` ahead of its id in the index by trace,
    # so a worker's new verdicts go on that index's last leaves; 0 for none,
    # and for a deleted trace's (``storage.evaluations.of_trace``).
    trace_arrival_us: Mapped[int] = mapped_column(BigInteger, server_default="0")
    trace_revision: Mapped[int | None] = mapped_column(Integer)
    eval_type: Mapped[str] = mapped_column(String(16))
    kind: Mapped[str] = mapped_column(String(16), default="rules")
    output_text: Mapped[str | None] = mapped_column(Text)
    expected_text: Mapped[str | None] = mapped_column(Text)
    score: Mapped[float | None] = mapped_column(Float)
    passed: Mapped[bool] = mapped_column(Boolean)
    state: Mapped[str] = mapped_column(String(16))
    basis: Mapped[str | None] = mapped_column(String(64))
    verdict: Mapped[Any] = mapped_column(JsonType, nullable=True)
    coverage: Mapped[Any] = mapped_column(JsonType, nullable=True)
    provenance: Mapped[Any] = mapped_column(JsonType, nullable=True)
    # Without the rules' static descriptions, which are in ``rule_profiles``
    # (``storage.ruleprofiles``; read through ``evaluations_to_api``).
    rule_results: Mapped[Any] = mapped_column(JsonType, nullable=True)
    suggestions: Mapped[Any] = mapped_column(JsonType, nullable=True)
    rules_evaluated: Mapped[int] = mapped_column(Integer, default=0)
    rules_skipped: Mapped[int] = mapped_column(Integer, default=0)
    insufficient_data: Mapped[bool] = mapped_column(Boolean, default=False)
    critical_failures: Mapped[Any] = mapped_column(JsonType, nullable=True)
    critical_skipped: Mapped[Any] = mapped_column(JsonType, nullable=True)
    categories: Mapped[Any] = mapped_column(JsonType, nullable=True)
    note: Mapped[str | None] = mapped_column(Text)
    interpretations: Mapped[Any] = mapped_column(JsonType, nullable=True)
    input_tokens: Mapped[int | None] = mapped_column(BigInteger)
    output_tokens: Mapped[int | None] = mapped_column(BigInteger)
    cost_usd: Mapped[float | None] = mapped_column(Float)
    latency_ms: Mapped[float | None] = mapped_column(Float)
    raw_response_id: Mapped[str | None] = mapped_column(String(128))
    run: Mapped[str | None] = mapped_column(String(256))
    case_key: Mapped[str | None] = mapped_column(String(256))
    session_id: Mapped[str | None] = mapped_column(String(256))
    agent_name: Mapped[str | None] = mapped_column(String(256))
    reevaluation_of: Mapped[str | None] = mapped_column(String(256))
    erased_at: Mapped[datetime | None] = mapped_column(DateTime)
    created_at: Mapped[datetime] = mapped_column(DateTime)

    __table_args__ = (
        Index("ix_evaluations_tenant_created", "tenant_id", "created_at"),
        Index("ix_evaluations_tenant_trace", "tenant_id", "trace_arrival_us", "trace_id"),
        Index("ix_evaluations_tenant_run", "tenant_id", "run"),
        Index("ix_evaluations_tenant_agent", "tenant_id", "agent_name"),
    )


class RuleProfile(Base):
    """The static description of a rule (category, kind, question, …) shared
    by every stored rule result that has it; keyed by its content's hash
    (``storage.ruleprofiles``). Never changed, never deleted."""

    __tablename__ = "rule_profiles"

    tenant_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    profile_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    body: Mapped[Any] = mapped_column(JsonType)


class RuleResultRow(Base):
    """A rule an evaluation failed, for "which rule failed" queries.

    Written for failed rules only (``storage.evaluations.failed_rule_rows``);
    rows of other outcomes from before that remain and are never matched."""

    __tablename__ = "evaluation_rule_results"

    evaluation_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    rule: Mapped[str] = mapped_column(String(128), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    outcome: Mapped[str] = mapped_column(String(16))  # passed | failed | skipped
    score: Mapped[float | None] = mapped_column(Float)
    critical: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime)

    # No foreign key to ``evaluations``, for the reason given on ``SpanBatchRow``:
    # rows are written with their evaluation, and evaluations are never deleted.
    __table_args__ = (Index("ix_rule_results_tenant_rule_outcome", "tenant_id", "rule", "outcome"),)


class EvaluationJob(Base):
    """A durable queue entry: evaluate one (trace, revision)."""

    __tablename__ = "evaluation_jobs"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    # The trace's ``traces.arrival_us``, ahead of the trace id in the unique
    # key, so a new job's key goes on the index's last leaf (``storage.arrival``).
    arrival_us: Mapped[int] = mapped_column(BigInteger)
    trace_id: Mapped[str] = mapped_column(String(32))
    revision: Mapped[int] = mapped_column(Integer)
    eval_type: Mapped[str | None] = mapped_column(String(16))
    # False: derive the trace's fields only (evaluation turned off for it).
    evaluate: Mapped[bool] = mapped_column(Boolean, default=True)
    state: Mapped[str] = mapped_column(String(16))  # pending | running | done | failed
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_until: Mapped[datetime | None] = mapped_column(DateTime)
    worker: Mapped[str | None] = mapped_column(String(128))
    last_error: Mapped[str | None] = mapped_column(Text)
    evaluation_id: Mapped[str | None] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)

    __table_args__ = (
        # One job per (trace, revision). A trace deleted and sent again is a
        # new trace (a new arrival), whose revisions are judged afresh.
        UniqueConstraint(
            "tenant_id", "arrival_us", "trace_id", "revision", name="uq_jobs_trace_revision"
        ),
        Index("ix_jobs_state_created", "state", "created_at"),
    )


class CustomRule(Base):
    """A deployed custom rule (SPEC §3.5), tenant-scoped."""

    __tablename__ = "custom_rules"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(80))
    description: Mapped[str | None] = mapped_column(String(500))
    eval_type: Mapped[str] = mapped_column(String(16))
    severity: Mapped[str] = mapped_column(String(16), default="medium")
    definition: Mapped[Any] = mapped_column(JsonType)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    version: Mapped[int] = mapped_column(Integer, default=1)
    source_moment_id: Mapped[str | None] = mapped_column(String(64))
    quarantine_reason: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)

    __table_args__ = (UniqueConstraint("tenant_id", "name", name="uq_custom_rules_tenant_name"),)


class AuditEntry(Base):
    """Append-only record of rule changes and trace deletions (never text)."""

    __tablename__ = "audit_entries"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    ts: Mapped[datetime] = mapped_column(DateTime)
    action: Mapped[str] = mapped_column(String(32))
    rule_id: Mapped[str | None] = mapped_column(String(32))
    rule_name: Mapped[str | None] = mapped_column(String(80))
    trace_id: Mapped[str | None] = mapped_column(String(32))
    before: Mapped[Any] = mapped_column(JsonType, nullable=True)
    after: Mapped[Any] = mapped_column(JsonType, nullable=True)
    actor: Mapped[str | None] = mapped_column(String(128))
    detail: Mapped[Any] = mapped_column(JsonType, nullable=True)

    __table_args__ = (Index("ix_audit_tenant_ts", "tenant_id", "ts"),)


class Run(Base):
    """A registered run (label, baseline pin); counts are derived, never stored."""

    __tablename__ = "runs"

    tenant_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    run_id: Mapped[str] = mapped_column(String(256), primary_key=True)
    label: Mapped[str | None] = mapped_column(String(256))
    reevaluation_of: Mapped[str | None] = mapped_column(String(256))
    baseline: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class Dataset(Base):
    """A named, versioned set of case keys; re-posting a label adds a version."""

    __tablename__ = "datasets"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    label: Mapped[str] = mapped_column(String(256))
    version: Mapped[int] = mapped_column(Integer)
    case_keys: Mapped[Any] = mapped_column(JsonType)
    source_run: Mapped[str | None] = mapped_column(String(256))
    created_at: Mapped[datetime] = mapped_column(DateTime)

    __table_args__ = (
        UniqueConstraint("tenant_id", "label", "version", name="uq_datasets_tenant_label_version"),
    )
