"""Worker semantics driven in-process: failures, leases, re-evaluation caps."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from service.assembler import sweep_once
from service.worker import drain, warm_up
from storage import codec
from storage import spans as span_store
from storage.models import EvaluationJob, Trace
from tests.support.fixtures import FIXTURES


def test_a_job_failing_three_times_stores_unknown(make_client: Callable[..., TestClient]) -> None:
    client = make_client(evaluate_on_ingest=True)
    trace_id = client.post("/api/v1/traces", json={"agent_name": "a", "output": "hi"}).json()[
        "trace_id"
    ]
    state = client.app.state.iris  # type: ignore[attr-defined]
    with state.engine.begin() as conn:  # a stored trace the worker cannot read back
        conn.execute(
            update(Trace).where(Trace.trace_id == trace_id).values(tool_calls="not a list")
        )
    stats = drain(state.engine, state.settings)
    assert stats.claimed == 3 and stats.failed == 3
    with state.engine.connect() as conn:
        job = conn.execute(select(EvaluationJob)).one()
    assert job.state == "failed" and job.attempts == 3 and "AttributeError" in job.last_error
    evaluation = client.get(f"/api/v1/traces/{trace_id}").json()["evals"][0]
    assert evaluation["verdict"]["state"] == "unknown"
    assert evaluation["verdict"]["basis"] == "internal_error"
    assert "AttributeError" in evaluation["note"]
    assert drain(state.engine, state.settings).claimed == 0  # no endless retry


def test_late_spans_reopen_and_reevaluate_up_to_the_cap(
    make_client: Callable[..., TestClient],
) -> None:
    from tests.support.fixtures import scenarios

    scenario = next(s for s in scenarios() if s.id == "pydantic_ai/tools_ok")
    body = scenario.bodies("pb")[0]
    client = make_client(evaluate_on_ingest=True, assembly_grace_ms=0, max_reevaluations=1)
    state = client.app.state.iris  # type: ignore[attr-defined]
    headers = {"content-type": "application/x-protobuf"}
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    request = ExportTraceServiceRequest.FromString(body)
    spans = request.resource_spans[0].scope_spans[0].spans
    late = [s for s in spans if s.name.startswith("execute_tool")]
    for revision in range(1, 4):
        if revision == 1:
            client.post("/v1/traces", content=body, headers=headers)
        else:  # the same trace gains a new span after it was judged
            extra = ExportTraceServiceRequest()
            extra.CopyFrom(request)
            scope = extra.resource_spans[0].scope_spans[0]
            del scope.spans[:]
            span = scope.spans.add()
            span.CopyFrom(late[0])
            span.span_id = bytes([revision]) * 8
            client.post("/v1/traces", content=extra.SerializeToString(), headers=headers)
        sweep_once(state.engine, state.settings)
        drain(state.engine, state.settings)
    trace_id = spans[0].trace_id.hex()
    detail = client.get(f"/api/v1/traces/{trace_id}").json()
    assert detail["trace"]["revision"] == 3
    assert len(detail["spans"]) == 7
    # Revision 1 and its one allowed re-evaluation are judged; revision 3 is only derived.
    assert len(detail["evals"]) == 2
    assert detail["trace"]["derived"] is True
    assert len(detail["trace"]["tool_calls"]) == 4


def test_a_batch_reports_cpu_per_stage(make_client: Callable[..., TestClient]) -> None:
    from service.evaluation import DeployedRules
    from service.worker import Worker
    from tests.support.fixtures import scenarios

    scenario = next(s for s in scenarios() if s.id == "pydantic_ai/tools_ok")
    client = make_client(evaluate_on_ingest=True, assembly_grace_ms=0)
    state = client.app.state.iris  # type: ignore[attr-defined]
    headers = {"content-type": "application/x-protobuf"}
    client.post("/v1/traces", content=scenario.bodies("pb")[0], headers=headers)
    # The app's own assembler may be sweeping too (on PostgreSQL it holds the
    # rows it readies, and this sweep skips them): sweep until the job is there.
    deadline = time.monotonic() + 10
    worker = Worker(state.engine, state.settings, "w", DeployedRules(ttl_s=0))
    while True:
        sweep_once(state.engine, state.settings)
        stats = worker.step()
        if stats.claimed or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert (stats.claimed, stats.evaluated, stats.derived) == (1, 1, 1)
    assert set(stats.stage_cpu) == {"claim", "read", "derive", "convert", "engine", "store"}
    assert all(seconds >= 0 for seconds in stats.stage_cpu.values())
    idle = worker.step()
    assert idle.claimed == 0 and set(idle.stage_cpu) == {"claim"}


def test_the_assembler_sleeps_until_the_next_trace_is_due(
    make_client: Callable[..., TestClient],
) -> None:
    from service.assembler import MIN_SLEEP_S, next_sweep_in

    client = make_client(assembly_grace_ms=60_000)
    state = client.app.state.iris  # type: ignore[attr-defined]
    assert next_sweep_in(state.engine, state.settings, longest=0.5) == 0.5  # nothing open
    with state.engine.begin() as conn:
        conn.execute(
            Trace.__table__.insert(),
            [
                {
                    "tenant_id": state.tenant,
                    "trace_id": "ab" * 16,
                    "agent_name": "a",
                    "timestamp": codec.utcnow(),
                    "created_at": codec.utcnow(),
                    "source": "otlp",
                    "status": "open",
                    "has_root": True,
                    "last_span_at": codec.utcnow(),
                }
            ],
        )
    assert next_sweep_in(state.engine, state.settings, longest=0.5) == 0.5  # due in a minute
    with state.engine.begin() as conn:
        conn.execute(update(Trace).values(last_span_at=codec.utcnow() - timedelta(minutes=2)))
    assert next_sweep_in(state.engine, state.settings, longest=0.5) == MIN_SLEEP_S  # overdue
    assert next_sweep_in(state.engine, state.settings, longest=0.02) == 0.02


def test_the_receivers_sweeps_are_jobs_of_its_writer_on_sqlite(
    make_client: Callable[..., TestClient],
) -> None:
    # A sweep is a write transaction: on SQLite it is a job of the writer (it
    # joins its next transaction), so the two never wait on the one write
    # lock; on PostgreSQL, which locks rows, it runs on a thread of its own.
    from storage.engine import is_sqlite

    client = make_client(assembly_grace_ms=0)
    assembler = client.app.state.assembler  # type: ignore[attr-defined]
    state = client.app.state.iris  # type: ignore[attr-defined]
    if is_sqlite(state.engine):
        assert assembler.writer is state.writer
    else:
        assert assembler.writer is None
    body = (FIXTURES / "pydantic_ai/tools_ok.pb").read_bytes()
    r = client.post("/v1/traces", content=body, headers={"content-type": "application/x-protobuf"})
    assert r.status_code == 200
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        traces = client.get("/api/v1/traces").json()["traces"]
        if traces and traces[0]["status"] == "ready":
            break
        time.sleep(0.05)
    assert traces and traces[0]["status"] == "ready", traces


def test_the_warm_up_trace_judges_every_rule_a_plain_stored_trace_can() -> None:
    """A worker judges ``WARM_UP_TRACE`` before its first claim, to build what
    the engine builds on first use: it must reach the rules a stored trace
    reaches, skipping only those that need an expected answer, a trajectory
    or a cost history."""
    result = warm_up()
    skipped = {r["rule"] for r in result["rule_results"] if r["skipped"]}
    assert skipped == {"expected_coverage", "tool_sequence", "step_budget", "cost_anomaly"}
    assert result["rules_evaluated"] == len(result["rule_results"]) - len(skipped)
    judged = {r["rule"] for r in result["rule_results"] if not r["skipped"]}
    assert {"no_pii", "no_tool_loop", "valid_tool_arguments", "tool_choice"} <= judged


def test_log_events_landing_while_a_trace_is_derived_reach_its_fields(
    make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Log events add no spans to their trace. Landing between the worker's
    read of a trace and its store, they must not be lost: the derivation made
    from the trace row read before them is not kept as current, and the
    trace's next job derives it again with them. (They land as the worker's
    span read returns: ``storage.spans`` is interpreted, so the patch holds in
    a compiled worker too.)"""
    base = FIXTURES / "openai_v2_event_only"
    client = make_client(evaluate_on_ingest=True, assembly_grace_ms=0)
    state = client.app.state.iris  # type: ignore[attr-defined]
    headers = {"content-type": "application/x-protobuf"}
    client.post("/v1/traces", content=(base / "tools_ok.pb").read_bytes(), headers=headers)
    sweep_once(state.engine, state.settings)

    read_spans = span_store.batches_of
    landed: list[int] = []

    def read_spans_then_logs_land(*args: Any, **kwargs: Any) -> Any:
        batches = read_spans(*args, **kwargs)
        if not landed:  # the events are stored once the spans were read
            logs = (base / "tools_ok.logs.pb").read_bytes()
            landed.append(client.post("/v1/logs", content=logs, headers=headers).status_code)
        return batches

    monkeypatch.setattr(span_store, "batches_of", read_spans_then_logs_land)
    drain(state.engine, state.settings)
    assert landed == [200]
    sweep_once(state.engine, state.settings)  # the events reopened it: ready again
    drain(state.engine, state.settings)
    with state.engine.connect() as conn:
        trace = conn.execute(select(Trace)).one()
    assert (trace.revision, trace.log_writes) == (2, 1)
    detail = client.get(f"/api/v1/traces/{trace.trace_id}").json()
    assert detail["trace"]["derived"] is True
    assert detail["trace"]["input"] == "What's the weather in Paris right now, and what is 23 * 7?"
    assert detail["trace"]["output"].startswith("In Paris it is currently 18.5°C")
    assert len(detail["evals"]) == 2  # judged at each revision


def test_a_store_leaves_out_jobs_whose_lease_passed_to_another_worker(
    make_client: Callable[..., TestClient],
) -> None:
    # A worker builds its verdict rows before it takes the write lock; a job
    # another worker reclaimed meanwhile must contribute nothing of them.
    from service import worker
    from service.evaluation import DeployedRules

    client = make_client(evaluate_on_ingest=True, assembly_grace_ms=0)
    state = client.app.state.iris  # type: ignore[attr-defined]
    ids = _post_answers(client, 3)
    claimed = worker._claim(state.engine, state.settings, "first", 10)
    assert sorted(j.trace_id for j in claimed) == sorted(ids)
    deployed = DeployedRules(ttl_s=0)
    stats = worker.BatchStats()
    with state.engine.connect() as conn:
        reads = worker._read_all(conn, claimed)
        rules = deployed.get(conn, state.tenant)
    outcomes = [
        worker._compute(job, row, spans, logs, rules, stats)
        for job, (row, spans, logs) in zip(claimed, reads, strict=True)
    ]
    stolen = claimed[1]
    with state.engine.begin() as conn:  # its lease ran out and another worker took it
        conn.execute(
            update(EvaluationJob)
            .where(EvaluationJob.id == stolen.id)
            .values(worker="second", attempts=EvaluationJob.attempts + 1)
        )
    worker._store(state.engine, outcomes, stats)
    assert stats.evaluated == 2
    for job in claimed:
        evals = client.get(f"/api/v1/traces/{job.trace_id}").json()["evals"]
        assert len(evals) == (0 if job is stolen else 1)
    with state.engine.connect() as conn:
        states = dict(conn.execute(select(EvaluationJob.trace_id, EvaluationJob.state)).all())
    assert states[stolen.trace_id] == "running"
    assert {states[j.trace_id] for j in claimed if j is not stolen} == {"done"}


def _post_answers(client: TestClient, n: int) -> list[str]:
    """Post ``n`` native traces (agent ``a``, outputs ``answer 0`` …); their ids."""
    return [
        client.post("/api/v1/traces", json={"agent_name": "a", "output": f"answer {i}"}).json()[
            "trace_id"
        ]
        for i in range(n)
    ]


def _job_states(engine: Any) -> dict[str, tuple[str, int, str | None]]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(
                EvaluationJob.trace_id,
                EvaluationJob.state,
                EvaluationJob.attempts,
                EvaluationJob.worker,
            )
        ).all()
    return {trace_id: (state, attempts, worker) for trace_id, state, attempts, worker in rows}


def test_a_store_claims_the_next_batch_in_its_transaction(
    make_client: Callable[..., TestClient],
) -> None:
    from service import worker
    from service.evaluation import DeployedRules

    client = make_client(evaluate_on_ingest=True, assembly_grace_ms=0, job_batch=2)
    state = client.app.state.iris  # type: ignore[attr-defined]
    ids = _post_answers(client, 7)
    judging = worker.Worker(state.engine, state.settings, "w", DeployedRules(ttl_s=0))
    first = judging.step()
    assert (first.claimed, first.evaluated) == (2, 2)
    # SQLite: two batches in hand; PostgreSQL: one batch
    assert judging.holding == 2 + judging.ahead
    states = _job_states(state.engine)
    held = [job.trace_id for job in judging.in_hand()]
    assert {states[t] for t in held} == {("running", 1, "w")}
    # claimed, so another worker finds only the rest
    assert [j.trace_id for j in worker._claim(state.engine, state.settings, "other", 5)] == [
        t for t in ids if states[t][0] == "pending"
    ]
    second = judging.step()
    assert (second.claimed, second.evaluated) == (2, 2)
    assert "claim" not in second.stage_cpu  # nothing claimed outside the store
    states = _job_states(state.engine)
    assert sum(1 for s in states.values() if s[0] == "done") == 4
    for trace_id in held[:2]:
        assert len(client.get(f"/api/v1/traces/{trace_id}").json()["evals"]) == 1


def test_a_worker_judges_what_it_holds_while_another_writer_has_the_lock(
    make_client: Callable[..., TestClient],
) -> None:
    from service import worker
    from service.evaluation import DeployedRules
    from storage.writeturn import turn_path, write_turn

    client = make_client(evaluate_on_ingest=True, assembly_grace_ms=0, job_batch=4)
    state = client.app.state.iris  # type: ignore[attr-defined]
    if turn_path(state.engine) is None:
        pytest.skip("only a SQLite file has one writer at a time")
    _post_answers(client, 10)
    judging = worker.Worker(state.engine, state.settings, "w", DeployedRules(ttl_s=0))
    assert judging.step().claimed == 4  # claimed 8; stored 4 and claimed the last 2
    assert (len(judging.hand), len(judging.judged)) == (6, 0)
    holding, done = threading.Event(), threading.Event()

    def other_writer() -> None:  # holds the lock until the worker has judged all it holds
        with write_turn(state.engine):
            holding.set()
            deadline = time.monotonic() + 10
            while judging.hand and time.monotonic() < deadline:
                time.sleep(0.005)
            done.set()

    thread = threading.Thread(target=other_writer)
    thread.start()
    assert holding.wait(10)
    second = judging.step()
    thread.join()
    assert done.is_set()
    # four judged and stored; the other two judged while waiting, kept for the next store
    assert (second.claimed, second.evaluated) == (4, 4)
    assert (len(judging.hand), len(judging.judged)) == (0, 2)
    assert judging.step().claimed == 2
    assert judging.step().claimed == 0
    states = _job_states(state.engine)
    assert [s[0] for s in states.values()] == ["done"] * 10


def test_a_stopping_worker_stores_what_it_judged_and_gives_back_the_rest(
    make_client: Callable[..., TestClient],
) -> None:
    from service import worker
    from service.evaluation import DeployedRules

    client = make_client(evaluate_on_ingest=True, assembly_grace_ms=0, job_batch=2)
    state = client.app.state.iris  # type: ignore[attr-defined]
    _post_answers(client, 6)
    judging = worker.Worker(state.engine, state.settings, "w", DeployedRules(ttl_s=0))
    judging.step()
    judging._judge_next()  # as if judged while waiting for a turn
    judged = judging.judged[0].job.trace_id
    untried = {job.trace_id for job in judging.in_hand()}
    judging.stop()
    assert judging.holding == 0
    states = _job_states(state.engine)
    assert states[judged][0] == "done"
    assert {states[t] for t in untried} == {("pending", 0, None)}


def test_release_gives_a_claimed_batch_back_untried(
    make_client: Callable[..., TestClient],
) -> None:
    from service import worker
    from service.evaluation import DeployedRules

    client = make_client(evaluate_on_ingest=True, assembly_grace_ms=0, job_batch=2)
    state = client.app.state.iris  # type: ignore[attr-defined]
    _post_answers(client, 4)
    judging = worker.Worker(state.engine, state.settings, "w", DeployedRules(ttl_s=0))
    judging.step()
    carried = judging.in_hand()[:2]
    assert len(carried) == 2
    stolen, kept = carried
    with state.engine.begin() as conn:  # one lease ran out and another worker took it
        conn.execute(
            update(EvaluationJob)
            .where(EvaluationJob.id == stolen.id)
            .values(worker="second", attempts=EvaluationJob.attempts + 1)
        )
    worker.release(state.engine, carried)
    states = _job_states(state.engine)
    assert states[kept.trace_id] == ("pending", 0, None)
    assert states[stolen.trace_id] == ("running", 2, "second")


def test_a_stopping_worker_leaves_no_job_claimed(
    make_client: Callable[..., TestClient],
) -> None:
    # The pool's loop carries each store's next batch; stopped between
    # batches, it gives that batch back rather than leaving it to its lease.
    import gc
    import queue
    import threading

    from service import worker

    client = make_client(evaluate_on_ingest=True, assembly_grace_ms=0, job_batch=1)
    state = client.app.state.iris  # type: ignore[attr-defined]
    ids = _post_answers(client, 6)
    stop = threading.Event()
    reports: queue.Queue[Any] = queue.Queue()
    thread = threading.Thread(target=worker.run_worker, args=(state.settings, 0, stop, reports))
    thresholds = gc.get_threshold()  # run_worker tunes the collector for its process
    thread.start()
    try:
        reports.get(timeout=60)  # one batch stored, and the next one claimed with it
    finally:
        stop.set()
        thread.join(60)
        gc.unfreeze()
        gc.set_threshold(*thresholds)
    assert not thread.is_alive()
    states = _job_states(state.engine)
    assert "running" not in {s[0] for s in states.values()}
    assert all(s == ("pending", 0, None) for s in states.values() if s[0] == "pending")
    assert any(s[0] == "pending" for s in states.values())  # stopped before the end
    drain(state.engine, state.settings)
    for trace_id in ids:
        assert len(client.get(f"/api/v1/traces/{trace_id}").json()["evals"]) == 1
