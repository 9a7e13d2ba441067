"""The storage the workers use: claiming, readiness timing, batch derivations, rule rows."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, event, func, select, update

from evaluators.model import AgentTrace
from storage import assembly, codec
from storage import jobs as job_store
from storage.evaluations import evaluation_rows, failed_rule_rows, insert_evaluations
from storage.models import EvaluationJob, RuleResultRow, Trace
from storage.otlp import LogEventsWrite
from tests.support.ingest import sweep

T0 = datetime(2026, 1, 1, 12, 0, 0)


def add_trace(engine: Engine, trace_id: str, **changes: object) -> None:
    row = codec.trace_row(
        AgentTrace(agent_name="a", output="hi"),
        trace_id=trace_id,
        tenant_id="t",
        source="otlp",
        now=T0,
    )
    row.update(changes)
    with engine.begin() as conn:
        conn.execute(Trace.__table__.insert(), [row])


def arrivals(conn: Connection) -> dict[str, int]:
    """Each stored trace's ``arrival_us``, which its jobs carry."""
    return {t: key for t, key in conn.execute(select(Trace.trace_id, Trace.arrival_us))}


def queue(engine: Engine, *trace_ids: str, at: datetime = T0) -> None:
    with engine.begin() as conn:
        keys = arrivals(conn)
        assembly.enqueue_jobs(
            conn,
            [
                assembly.job_row("t", tid, 1, None, arrival_us=keys.get(tid, 0), now=at)
                for tid in trace_ids
            ],
        )


def claim(engine: Engine, limit: int, now: datetime) -> list[job_store.ClaimedJob]:
    with engine.begin() as conn:
        return job_store.claim(conn, worker="w", limit=limit, lease=timedelta(seconds=60), now=now)


def test_claim_takes_expired_leases_first_then_the_oldest_pending(engine: Engine) -> None:
    queue(engine, "a", at=T0)
    queue(engine, "b", at=T0 + timedelta(seconds=1))
    queue(engine, "c", at=T0 + timedelta(seconds=2))
    first = claim(engine, 1, T0)
    assert [j.trace_id for j in first] == ["a"]
    later = T0 + timedelta(minutes=5)  # a's lease expired: its worker died
    again = claim(engine, 2, later)
    assert [(j.trace_id, j.attempts) for j in again] == [("a", 2), ("b", 1)]
    assert [j.trace_id for j in claim(engine, 5, later)] == ["c"]
    assert claim(engine, 5, later) == []


def test_any_claimable_sees_pending_and_expired_jobs_only(engine: Engine) -> None:
    with engine.connect() as conn:
        assert not job_store.any_claimable(conn, now=T0)
    queue(engine, "a")
    with engine.connect() as conn:
        assert job_store.any_claimable(conn, now=T0)
    claim(engine, 1, T0)
    with engine.connect() as conn:
        assert not job_store.any_claimable(conn, now=T0)  # running, lease still valid
        assert job_store.any_claimable(conn, now=T0 + timedelta(minutes=5))


def test_next_due_follows_the_assembly_rules(engine: Engine) -> None:
    grace, idle = timedelta(seconds=2), timedelta(seconds=30)
    with engine.connect() as conn:
        assert assembly.next_due(conn, grace=grace, idle=idle) is None
    add_trace(engine, "rootless", status="open", has_root=False, last_span_at=T0)
    with engine.connect() as conn:
        assert assembly.next_due(conn, grace=grace, idle=idle) == T0 + idle
    add_trace(engine, "rooted", status="open", has_root=True, last_span_at=T0 + grace)
    add_trace(engine, "done", status="ready", has_root=True, last_span_at=T0 - idle)
    with engine.connect() as conn:
        assert assembly.next_due(conn, grace=grace, idle=idle) == T0 + 2 * grace
    add_trace(engine, "asked", status="open", finalize_requested=True, last_span_at=T0 + idle)
    with engine.connect() as conn:
        assert assembly.next_due(conn, grace=grace, idle=idle) == datetime.min


def test_ready_due_readies_exactly_the_traces_that_are_due(engine: Engine) -> None:
    grace, idle = timedelta(seconds=2), timedelta(seconds=30)
    now = T0 + timedelta(minutes=1)
    cases = {
        "root, quiet for the grace period": (True, now - grace, False, "ready"),
        "root, still receiving": (True, now - grace / 2, False, "open"),
        "no root, quiet for less than idle": (False, now - idle / 2, False, "open"),
        "no root, quiet for idle": (False, now - idle, False, "ready"),
        "finalize asked, just now": (False, now, True, "ready"),
        "root and finalize, just now": (True, now, True, "ready"),
    }
    for i, (has_root, last, finalize, _) in enumerate(cases.values()):
        add_trace(
            engine,
            f"t{i}",
            status="open",
            has_root=has_root,
            last_span_at=last,
            finalize_requested=finalize,
        )
    add_trace(engine, "already", status="ready", has_root=True, last_span_at=T0, ready_at=T0)
    with engine.begin() as conn:
        readied = assembly.ready_due(
            conn, now=now, grace=grace, idle=idle, default_evaluate=True, max_revision=2
        )
    with engine.connect() as conn:
        status = {r.trace_id: r.status for r in conn.execute(select(Trace.trace_id, Trace.status))}
        queued = set(conn.execute(select(EvaluationJob.trace_id)).scalars())
    expected = {f"t{i}": case[3] for i, case in enumerate(cases.values())}
    assert {t: status[t] for t in expected} == expected
    assert status["already"] == "ready"
    assert readied == sum(1 for v in expected.values() if v == "ready")
    assert queued == {t for t, v in expected.items() if v == "ready"}


def test_the_sweep_stores_its_jobs_as_enqueue_jobs_stores_job_rows(engine: Engine) -> None:
    """The sweep builds its job rows as driver tuples; they must be stored
    byte for byte as ``enqueue_jobs`` stores the dicts of ``job_row``."""
    now = T0 + timedelta(minutes=1)
    cases = {  # trace: (revision, evaluate, derived) -> queued with evaluate=?
        "judged": (1, None, False),
        "asked-not-to": (1, False, False),
        "over-the-cap": (3, None, False),
        "derived-unjudged": (1, False, True),
    }
    for trace_id, (revision, evaluate, derived) in cases.items():
        add_trace(
            engine,
            trace_id,
            status="open",
            has_root=True,
            last_span_at=T0,
            revision=revision,
            evaluate=evaluate,
            derived=derived,
            eval_type="quick" if trace_id == "judged" else None,
        )
    with engine.begin() as conn:
        sweep(conn, now)
    columns = ", ".join(assembly._JOB_COLUMNS)
    with engine.connect() as conn:
        swept = conn.exec_driver_sql(
            f"SELECT {columns} FROM evaluation_jobs ORDER BY trace_id"
        ).all()
    with engine.begin() as conn:
        conn.execute(EvaluationJob.__table__.delete())
        rows = []
        for trace_id, (revision, evaluate, derived) in cases.items():
            judge = (True if evaluate is None else evaluate) and revision <= 2
            if judge or not derived:
                row = assembly.job_row(
                    "t",
                    trace_id,
                    revision,
                    "quick" if trace_id == "judged" else None,
                    arrival_us=arrivals(conn)[trace_id],
                    now=now,
                )
                rows.append({**row, "evaluate": judge})
        assembly.enqueue_jobs(conn, rows)
    with engine.connect() as conn:
        queued = conn.exec_driver_sql(
            f"SELECT {columns} FROM evaluation_jobs ORDER BY trace_id"
        ).all()
    assert [r.trace_id for r in swept] == ["asked-not-to", "judged", "over-the-cap"]
    assert swept == queued


def test_ready_due_takes_at_most_the_limit_per_reason_oldest_first(engine: Engine) -> None:
    grace, idle = timedelta(seconds=2), timedelta(seconds=30)
    now = T0 + timedelta(minutes=1)
    for i in range(5):
        add_trace(
            engine, f"r{i}", status="open", has_root=True, last_span_at=T0 + timedelta(seconds=i)
        )
    with engine.begin() as conn:
        assert (
            assembly.ready_due(
                conn,
                now=now,
                grace=grace,
                idle=idle,
                default_evaluate=True,
                max_revision=2,
                limit=2,
            )
            == 2
        )
    with engine.connect() as conn:
        ready = set(conn.execute(select(Trace.trace_id).where(Trace.status == "ready")).scalars())
    assert ready == {"r0", "r1"}


def test_the_sweep_reads_open_traces_through_the_partial_index(engine: Engine) -> None:
    """No sweep query visits every open trace: each is a range of
    ix_traces_open_due, and the UPDATE finds its rows by primary key."""
    if engine.dialect.name != "sqlite":
        return  # PostgreSQL's planner decides by its statistics; SQLite's plans are fixed
    seen: list[tuple[str, Any]] = []

    def record(conn: Any, cursor: Any, statement: str, params: Any, *rest: Any) -> None:
        seen.append((statement, params))

    event.listen(engine, "before_cursor_execute", record)
    try:
        with engine.begin() as conn:
            assembly.ready_due(
                conn,
                now=T0,
                grace=timedelta(seconds=2),
                idle=timedelta(seconds=30),
                default_evaluate=True,
                max_revision=2,
            )
            assembly.next_due(conn, grace=timedelta(seconds=2), idle=timedelta(seconds=30))
    finally:
        event.remove(engine, "before_cursor_execute", record)
    sweep = [(s, p) for s, p in seen if "last_span_at" in s or "UPDATE traces" in s]
    assert len(sweep) == 4  # three UPDATEs, one next_due look-up
    with engine.connect() as conn:
        for statement, params in sweep:
            plan = [
                row[3] for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, params)
            ]
            reads = [step for step in plan if step.startswith(("SCAN traces", "SEARCH traces"))]
            assert reads, plan
            for step in reads:
                assert "ix_traces_open_due" in step or "sqlite_autoindex_traces_1" in step, plan
            assert not any("TEMP B-TREE" in step for step in plan), plan


def test_postgresql_sweep_updates_the_chosen_rows_by_address(engine: Engine) -> None:
    """On a table younger than its statistics, the sweep's UPDATE still goes
    to each chosen trace directly (a TID scan), never through a join that
    scans the open traces once per chosen one."""
    if engine.dialect.name != "postgresql":
        return  # SQLite: the plan test above
    for i in range(20):
        add_trace(engine, f"p{i}", status="open", has_root=True, last_span_at=T0)
    seen: list[tuple[str, Any]] = []

    def record(conn: Any, cursor: Any, statement: str, params: Any, *rest: Any) -> None:
        if statement.lstrip().startswith("WITH due"):
            seen.append((statement, params))

    event.listen(engine, "before_cursor_execute", record)
    try:
        with engine.begin() as conn:
            assert sweep(conn, T0 + timedelta(minutes=1)) == 20
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert len(seen) == 3  # one UPDATE per reason
    with engine.connect() as conn:
        for statement, params in seen:
            plan = "\n".join(r[0] for r in conn.exec_driver_sql("EXPLAIN " + statement, params))
            assert "Tid Scan on traces" in plan, plan


def test_postgresql_concurrent_sweeps_take_different_traces(engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        return  # SQLite serialises writers: one sweep runs at a time
    for i in range(10):
        add_trace(engine, f"c{i}", status="open", has_root=True, last_span_at=T0)
    now = T0 + timedelta(minutes=1)
    with engine.connect() as first, engine.connect() as second:
        assert sweep(first, now, limit=3) == 3  # holds its three until it commits
        assert sweep(second, now) == 7  # skips the locked ones
        second.commit()
        first.commit()
    with engine.connect() as conn:
        assert (
            conn.execute(
                select(func.count()).select_from(Trace).where(Trace.status == "ready")
            ).scalar_one()
            == 10
        )
        jobs = list(conn.execute(select(EvaluationJob.trace_id)).scalars())
    assert sorted(jobs) == sorted(f"c{i}" for i in range(10))


def _derivation(
    trace_id: str, span_count: int, agent: str, log_writes: int = 0
) -> tuple[str, str, dict, assembly.DerivedFrom]:
    fields = codec.agent_fields(AgentTrace(agent_name=agent, output="derived answer"), now=T0)
    return ("t", trace_id, fields, assembly.DerivedFrom(span_count, log_writes))


def test_save_derivations_applies_only_where_no_span_arrived(engine: Engine) -> None:
    for tid in ("x", "y", "z"):
        add_trace(engine, tid, span_count=4, derived=False)
    with engine.begin() as conn:  # a span arrived for y after its spans were read
        conn.execute(update(Trace).where(Trace.trace_id == "y").values(span_count=5))
    items = [_derivation(t, 4, f"agent-{t}") for t in ("x", "y", "z")]
    with engine.begin() as conn:
        applied = assembly.save_derivations(conn, items)
    assert applied == [True, False, True]
    with engine.connect() as conn:
        rows = {r.trace_id: r for r in conn.execute(select(Trace))}
    assert (rows["x"].agent_name, rows["x"].derived) == ("agent-x", True)
    assert (rows["y"].agent_name, rows["y"].derived) == ("a", False)
    assert rows["z"].output == "derived answer"


def test_save_derivations_applies_only_where_no_log_event_arrived(engine: Engine) -> None:
    """Log events add no spans: a derivation read before they came must not
    be stored as current (it would mark the trace derived without them)."""
    for tid in ("x", "y"):
        add_trace(engine, tid, span_count=4, derived=False)
    events = LogEventsWrite(
        tenant_id="t",
        rows=[
            {
                "tenant_id": "t",
                "trace_id": "y",
                "span_id": "00f067aa0ba902b7",
                "name": "gen_ai.choice",
                "time_unix_nano": 1,
                "attributes": {},
                "body": {"message": {"content": "late"}},
                "received_at": T0,
            }
        ],
        received_at=T0,
    )
    with engine.begin() as conn:  # y's log events arrived after its spans were read
        LogEventsWrite.apply_group(conn, [events])
    items = [_derivation(t, 4, f"agent-{t}") for t in ("x", "y")]
    with engine.begin() as conn:
        applied = assembly.save_derivations(conn, items)
    assert applied == [True, False]
    with engine.connect() as conn:
        rows = {r.trace_id: r for r in conn.execute(select(Trace))}
    assert (rows["x"].derived, rows["y"].derived) == (True, False)
    assert (rows["y"].log_writes, rows["y"].agent_name) == (1, "a")
    # read again with the events, the next derivation holds
    with engine.begin() as conn:
        assert assembly.save_derivations(conn, [_derivation("y", 4, "agent-y", 1)]) == [True]


def test_save_derivations_all_applied(engine: Engine) -> None:
    add_trace(engine, "x", span_count=2, derived=False)
    add_trace(engine, "y", span_count=3, derived=False)
    with engine.begin() as conn:
        applied = assembly.save_derivations(
            conn, [_derivation("x", 2, "p"), _derivation("y", 3, "q")]
        )
    assert applied == [True, True]


def test_a_derivation_may_carry_the_verdict_pointer_without_clearing_others(
    engine: Engine,
) -> None:
    """Items with different column sets are separate statements: the item that
    points its trace at a verdict sets it, the one that does not leaves its
    trace's pointer alone (a shared statement would write NULL there)."""
    add_trace(engine, "x", span_count=2, derived=False)
    add_trace(engine, "y", span_count=3, derived=False)
    with engine.begin() as conn:
        conn.execute(
            update(Trace).where(Trace.trace_id == "y").values(latest_evaluation_id="eval_old")
        )
    tenant, trace, fields, count = _derivation("x", 2, "p")
    pointed = (
        tenant,
        trace,
        {**fields, "latest_evaluation_id": "eval_x", "latest_score": 0.5},
        count,
    )
    with engine.begin() as conn:
        applied = assembly.save_derivations(conn, [_derivation("y", 3, "q"), pointed])
    assert applied == [True, True]
    with engine.connect() as conn:
        rows = {r.trace_id: r for r in conn.execute(select(Trace))}
    assert (rows["x"].agent_name, rows["x"].latest_evaluation_id) == ("p", "eval_x")
    assert rows["x"].latest_score == 0.5
    assert (rows["y"].agent_name, rows["y"].latest_evaluation_id) == ("q", "eval_old")


def test_insert_evaluations_leaves_traces_the_caller_linked(engine: Engine) -> None:
    add_trace(engine, "x")
    add_trace(engine, "y")
    result = {"eval_type": "all", "passed": True, "score": 1.0, "rule_results": []}
    rx, _ = evaluation_rows(tenant_id="t", result=result, now=T0, trace_id="x")
    ry, _ = evaluation_rows(tenant_id="t", result=result, now=T0, trace_id="y")
    with engine.begin() as conn:
        insert_evaluations(conn, [rx, ry], [], linked={("t", "x")})
    with engine.connect() as conn:
        rows = {r.trace_id: r for r in conn.execute(select(Trace))}
    assert rows["x"].latest_evaluation_id is None  # the caller's own UPDATE sets it
    assert rows["y"].latest_evaluation_id == ry["id"]


def _rule(name: str, verdict: str, **extra: object) -> dict:
    return {"rule": name, "ruleName": name, "verdict": verdict, "score": 0.0, **extra}


def test_rule_rows_are_written_for_failed_rules_only(engine: Engine) -> None:
    result = {
        "eval_type": "all",
        "passed": False,
        "rule_results": [
            _rule("ok", "pass"),
            _rule("bad", "fail", critical=True),
            _rule("n/a", "skipped"),
            _rule("bad", "fail"),  # a repeated name is one row
            _rule("worse", "fail"),
        ],
    }
    rows = failed_rule_rows(result, "eval_1", "t", T0)
    assert [(r["rule"], r["outcome"], r["critical"]) for r in rows] == [
        ("bad", "failed", True),
        ("worse", "failed", False),
    ]
    add_trace(engine, "x")
    row, rules = evaluation_rows(tenant_id="t", result=result, now=T0, trace_id="x")
    with engine.begin() as conn:
        insert_evaluations(conn, [row], rules)
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(RuleResultRow)).scalar_one() == 2
        linked = conn.execute(select(Trace.latest_evaluation_id)).scalar_one()
    assert linked == row["id"]


def test_jobs_table_order_is_queue_order(engine: Engine) -> None:
    queue(engine, "late", at=T0 + timedelta(seconds=1))
    queue(engine, "early", at=T0)
    assert [j.trace_id for j in claim(engine, 2, T0 + timedelta(seconds=2))] == ["early", "late"]
    with engine.connect() as conn:
        states = {s for (s,) in conn.execute(select(EvaluationJob.state))}
    assert states == {"running"}
