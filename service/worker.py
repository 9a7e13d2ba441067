"""Evaluator workers: claim jobs, derive, judge, store — in their own processes.

A worker (``Worker``) runs in three phases so the CPU-bound part never
holds a database write lock (SQLite has one for the whole file):

1. claim a batch of jobs (a short write transaction) when it holds none,
   and read their traces;
2. judge them one by one: derive a trace's fields from its spans when they
   are stale, evaluate it — no transaction open while computing;
3. store derivations, evaluations and job completions in one transaction,
   each guarded so that a trace that moved on, or a job whose lease passed
   to another worker, is not overwritten; the same transaction claims the
   next batch, so a busy worker takes SQLite's write lock once a batch,
   not twice.

On a SQLite file a worker holds half a batch more than it stores at once,
and while another writer has the write lock it judges those instead of
leaving its core idle (``storage.writeturn``).

``iris serve`` runs a pool of these processes beside the receivers;
``iris worker`` runs them alone, for other machines sharing PostgreSQL.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import logging
import multiprocessing
import os
import signal
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, and_, select

from evaluators.custom.definition import CustomRuleDef
from evaluators.model import AgentTrace, TokenUsage, ToolCall, ToolDef
from service.derivation import derive_records, derived_extras, derived_fields, records_of_batches
from service.evaluation import (
    DeployedRules,
    judge_trace,
    trace_from_derivation,
    trace_from_row,
    unknown_result,
)
from service.parentwatch import end_with_parent
from service.settings import Settings
from service.stopflag import StopFlag
from storage import assembly, codec
from storage import jobs as job_store
from storage import spans as span_store
from storage.engine import make_engine
from storage.evaluations import (
    PreparedEvaluations,
    insert_evaluations,
    insert_prepared,
    prepare_evaluations,
)
from storage.evaluations import evaluation_rows as store_rows
from storage.models import Trace
from storage.scoreband import latest_verdict
from storage.writeturn import turn_path, wait_totals, write_turn

log = logging.getLogger("iris.worker")
traces = Trace.__table__
# An idle worker's first and longest sleep between polls: the longest bounds
# what an idle pool adds to a trace's delay from ready to verdict.
IDLE_SLEEP_S = (0.01, 0.1)


@dataclass
class Outcome:
    job: job_store.ClaimedJob
    derivation: tuple[dict[str, Any], dict[str, Any], assembly.DerivedFrom] | None = None
    result: dict[str, Any] | None = None
    trace_row: dict[str, Any] | None = None
    error: str | None = None
    # The trace row as read, before a derivation replaced ``trace_row``.
    stored: dict[str, Any] | None = None


@dataclass
class BatchStats:
    claimed: int = 0
    evaluated: int = 0
    derived: int = 0
    failed: int = 0
    seconds: float = 0.0
    per_eval_type: dict[str, int] = field(default_factory=dict)
    # CPU seconds of this thread per stage (claim, read, derive, convert,
    # engine, store): what bench/worker_bench.py reports per trace.
    stage_cpu: dict[str, float] = field(default_factory=dict)

    def add_cpu(self, stage: str, since: float) -> float:
        """Charge the CPU time since ``since`` to ``stage``; returns now."""
        now = time.thread_time()
        self.stage_cpu[stage] = self.stage_cpu.get(stage, 0.0) + now - since
        return now


def _claim_in(
    conn: Connection, settings: Settings, worker: str, limit: int
) -> list[job_store.ClaimedJob]:
    """Claim up to ``limit`` jobs in the transaction ``conn`` has open."""
    if limit <= 0:
        return []
    return job_store.claim(
        conn,
        worker=worker,
        limit=limit,
        lease=timedelta(seconds=settings.job_lease_s),
        now=codec.utcnow(),
    )


def _claim(
    engine: Engine, settings: Settings, worker: str, limit: int
) -> list[job_store.ClaimedJob]:
    with engine.connect() as conn:
        if not job_store.any_claimable(conn, now=codec.utcnow()):
            return []
        conn.rollback()  # end the read before SQLite's write transaction
        with write_turn(engine):
            if conn.dialect.name == "sqlite":
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            claimed = _claim_in(conn, settings, worker, limit)
            conn.commit()
    return claimed


def release(engine: Engine, claimed: list[job_store.ClaimedJob]) -> None:
    """Give back jobs claimed for later that this worker will not run (it is
    stopping): they are pending again at once, not after their lease."""
    if not claimed:
        return
    with write_turn(engine), engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        job_store.release(conn, claimed, now=codec.utcnow())
        conn.commit()


def _read_all(
    conn: Connection, claimed: list[job_store.ClaimedJob]
) -> list[tuple[dict[str, Any] | None, list[dict[str, Any]], list[dict[str, Any]]]]:
    """Each job's trace row, and its span batches/log events when they are
    needed, in a handful of queries for the whole batch, as dicts
    (``assembly.as_dicts``). The span batches stay unexpanded
    (``span_store.batches_of``): ``_compute`` makes records of them to
    derive, and span dicts only when the judge needs them."""
    by_tenant: dict[str, list[str]] = {}
    for job in claimed:
        by_tenant.setdefault(job.tenant_id, []).append(job.trace_id)
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    spans: dict[tuple[str, str], list[dict[str, Any]]] = {}
    logs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for tenant_id, ids in by_tenant.items():
        for row in assembly.as_dicts(
            conn.execute(
                select(traces).where(
                    and_(traces.c.tenant_id == tenant_id, traces.c.trace_id.in_(ids))
                )
            )
        ):
            rows[(tenant_id, row["trace_id"])] = row
        need_spans = [
            t
            for t in ids
            if (r := rows.get((tenant_id, t))) is not None
            and (not r["derived"] or (r["tool_calls"] is None and r["span_count"]))
        ]
        for trace_id, batches in span_store.batches_of(conn, tenant_id, need_spans).items():
            spans[(tenant_id, trace_id)] = batches
        underived = [
            t for t in ids if (r := rows.get((tenant_id, t))) is not None and not r["derived"]
        ]
        for event in assembly.log_events_of(conn, tenant_id, underived):
            logs.setdefault((tenant_id, event["trace_id"]), []).append(event)
    out = []
    for job in claimed:
        key = (job.tenant_id, job.trace_id)
        out.append((rows.get(key), spans.get(key, []), logs.get(key, [])))
    return out


def _compute(
    job: job_store.ClaimedJob,
    row: dict[str, Any] | None,
    batches: list[dict[str, Any]],
    logs: list[dict[str, Any]],
    deployed: list[CustomRuleDef],
    stats: BatchStats,
) -> Outcome:
    outcome = Outcome(job, trace_row=row, stored=row)
    if row is None:  # deleted since it was queued: nothing to judge
        return outcome
    evaluate, eval_type = job.evaluate, job.eval_type
    clock = time.thread_time()
    fresh: tuple[AgentTrace, dict[str, Any]] | None = None
    if not row["derived"]:
        derived = derive_records(records_of_batches(batches), logs)
        if derived is not None:
            now = codec.utcnow()
            fields = derived_fields(derived, now=now)
            fresh = (derived, fields)
            extras = derived_extras(derived)
            inputs = assembly.DerivedFrom(row["span_count"], row["log_writes"])
            outcome.derivation = (fields, extras, inputs)
            row = outcome.trace_row = {**row, **fields, **extras}  # the fresh derivation
            if derived.evaluate is not None:
                evaluate = derived.evaluate
            eval_type = derived.eval_type or eval_type
        clock = stats.add_cpu("derive", clock)
    if evaluate:
        spans = span_store.sorted_spans(batches) if row["tool_calls"] is None else ()
        if fresh is not None:  # the derivation's objects, not rebuilt from its row
            trace = trace_from_derivation(fresh[0], fresh[1], spans)
        else:
            trace = trace_from_row(row, spans)
        clock = stats.add_cpu("convert", clock)
        outcome.result = judge_trace(trace, eval_type, deployed)
        stats.add_cpu("engine", clock)
    return outcome


class _Prepared:
    """A batch's writes built before its transaction (``_prepare``): the
    verdict rows and derivations of the outcomes that have them."""

    def __init__(
        self,
        evaluations: PreparedEvaluations,
        derivations: assembly.PreparedDerivations,
        finished: list[tuple[int, str | None]],
        eval_types: list[str],
    ) -> None:
        self.evaluations = evaluations
        self.derivations = derivations
        self.finished = finished
        self.eval_types = eval_types  # the bundle of each verdict stored


def _prepare(outcomes: list[Outcome], dialect: str, now: datetime, *, index: bool) -> _Prepared:
    """The rows storing ``outcomes`` (none failed), in the driver's form."""
    evaluation_rows: list[dict[str, Any]] = []
    rule_rows: list[dict[str, Any]] = []
    derivations: list[tuple[str, str, dict[str, Any], assembly.DerivedFrom]] = []
    stored: list[dict[str, Any] | None] = []
    finished: list[tuple[int, str | None]] = []
    eval_types: list[str] = []
    for outcome in outcomes:
        job = outcome.job
        trace_row = outcome.trace_row
        evaluation_id = None
        latest: dict[str, Any] = {}
        if outcome.result is not None and trace_row is not None:
            row, rules = store_rows(
                tenant_id=job.tenant_id,
                result=outcome.result,
                now=now,
                trace_id=job.trace_id,
                trace_arrival_us=job.arrival_us,
                trace_revision=job.revision,
                agent_name=trace_row["agent_name"],
                output_text=trace_row["output"],
                run=trace_row["run"],
                case_key=trace_row["case_key"],
                session_id=trace_row["session_id"],
            )
            evaluation_rows.append(row)
            rule_rows.extend(rules)
            evaluation_id = row["id"]
            latest = latest_verdict(evaluation_id, row["score"])
            eval_types.append(str(outcome.result.get("eval_type", "all")))
        if outcome.derivation is not None:
            # the fresh fields and, when judged, the pointer to the verdict:
            # one UPDATE of the trace row instead of two
            fields, extras, inputs = outcome.derivation
            values = {**fields, **extras, **latest}
            derivations.append((job.tenant_id, job.trace_id, values, inputs))
            stored.append(outcome.stored)
        finished.append((job.id, evaluation_id))
    return _Prepared(
        prepare_evaluations(dialect, evaluation_rows, rule_rows),
        assembly.prepare_derivations(dialect, derivations, index=index, stored=stored),
        finished,
        eval_types,
    )


def _store(
    engine: Engine,
    outcomes: list[Outcome],
    stats: BatchStats,
    *,
    index: bool = True,
    claim_next: Callable[[Connection], list[job_store.ClaimedJob]] | None = None,
    meanwhile: Callable[[], bool] | None = None,
) -> list[job_store.ClaimedJob]:
    """Write a batch's results in one transaction; with ``claim_next``, claim
    the next batch in it too and return that. ``meanwhile`` is work to do
    while another writer holds SQLite's write lock (``write_turn``).

    Only jobs this worker still owns (same attempt, still running) contribute:
    on PostgreSQL they are locked first, on SQLite the transaction takes the
    write lock up front, so a job whose lease passed to another worker adds
    nothing twice.

    The rows are built first, outside the transaction: on SQLite every
    writer waits while one holds the lock, and building them (the verdicts'
    JSON, the search rows) was ~40 % of a store's instructions (callgrind).
    A job lost meanwhile (rare: its lease ran out) has them built again
    without it.

    Claiming the next batch here rather than in a transaction of its own
    halves a busy worker's turns at the write lock, and each turn may wait
    for the other writers' (e2e_bench counts them).
    """
    now = codec.utcnow()
    dialect = engine.dialect.name
    judged = [o for o in outcomes if o.error is None]
    prepared = _prepare(judged, dialect, now, index=index)
    with write_turn(engine, meanwhile), engine.connect() as conn:
        if dialect == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        ours = job_store.owned(conn, [o.job for o in outcomes])
        if any(o.job.id not in ours for o in judged):
            prepared = _prepare([o for o in judged if o.job.id in ours], dialect, now, index=index)
        failed_rows: list[dict[str, Any]] = []
        failed_rules: list[dict[str, Any]] = []
        for outcome in outcomes:
            job = outcome.job
            if outcome.error is None or job.id not in ours:
                continue
            stats.failed += 1
            if job_store.fail(conn, job, error=outcome.error, now=now):
                row, rules = store_rows(
                    tenant_id=job.tenant_id,
                    result=unknown_result(job.eval_type, outcome.error),
                    now=now,
                    trace_id=job.trace_id,
                    trace_arrival_us=job.arrival_us,
                    trace_revision=job.revision,
                )
                failed_rows.append(row)
                failed_rules.extend(rules)
                job_store.attach_evaluation(conn, job.id, row["id"])
                log.error("job %s failed for good: %s", job.id, outcome.error)
        applied = assembly.apply_derivations(conn, prepared.derivations)
        stats.derived += sum(applied)
        linked = {
            (tenant_id, trace_id)
            for ok, (tenant_id, trace_id, values, _) in zip(
                applied, prepared.derivations.items, strict=True
            )
            if ok and "latest_evaluation_id" in values
        }
        insert_prepared(conn, prepared.evaluations, linked=linked)
        if failed_rows:
            insert_evaluations(conn, failed_rows, failed_rules)
        job_store.finish_many(conn, prepared.finished, now=now)
        following = claim_next(conn) if claim_next is not None else []
        conn.commit()
    stats.evaluated += len(prepared.eval_types)
    for kind in prepared.eval_types:
        stats.per_eval_type[kind] = stats.per_eval_type.get(kind, 0) + 1
    return following


# A claimed job with what ``_compute`` needs: its trace row, span batches,
# log events and the tenant's deployed rules.
Read = tuple[
    job_store.ClaimedJob,
    dict[str, Any] | None,
    list[dict[str, Any]],
    list[dict[str, Any]],
    list[CustomRuleDef],
]


class Worker:
    """One evaluator worker's jobs: claimed and read, judged in order,
    stored a batch at a time (``step``).

    On a SQLite file it holds two batches of ``job_batch``, and judges from
    the second while another writer (the receivers' group commit, another
    worker) holds the write lock, instead of sleeping until its turn: the
    traces judged meanwhile go into the next store. On two cores shared by
    the receiver and two workers, that waiting was ~7 % of the workers'
    time with a core left idle. With half a batch in reserve a worker still
    ran out during the other worker's store (~30 ms); with a whole one its
    waiting fell from 3.3-3.6 to 2.0-2.5 s over a 30-second load
    (``docs/performance.md``, session 21). On PostgreSQL there is no single
    writer and it holds one batch, as ``iris worker`` processes on many
    machines should.
    """

    def __init__(self, engine: Engine, settings: Settings, name: str, rules: DeployedRules):
        self.engine = engine
        self.settings = settings
        self.name = name
        self.rules = rules
        self.batch = settings.job_batch
        self.ahead = settings.job_batch if turn_path(engine) is not None else 0
        self.hand: collections.deque[Read] = collections.deque()  # claimed and read
        self.judged: list[Outcome] = []  # judged, not yet stored
        self._stats = BatchStats()

    @property
    def holding(self) -> int:
        """Jobs claimed and not yet stored."""
        return len(self.hand) + len(self.judged)

    def in_hand(self) -> list[job_store.ClaimedJob]:
        """The claimed jobs not yet judged."""
        return [read[0] for read in self.hand]

    def step(self) -> BatchStats:
        """Judge and store one batch, claiming one first when nothing is in
        hand; returns what happened (``claimed`` 0: there was nothing to do).
        The store claims what the worker is short of."""
        started = time.perf_counter()
        stats = self._stats = BatchStats()
        if not self.holding:
            clock = time.thread_time()
            claimed = _claim(self.engine, self.settings, self.name, self.batch + self.ahead)
            stats.add_cpu("claim", clock)
            if not claimed:
                return stats
            self._take(claimed)
        while self.hand and len(self.judged) < self.batch:
            self._judge_next()
        outcomes, self.judged = self.judged, []
        stats.claimed = len(outcomes)
        clock = time.thread_time()
        judging = sum(stats.stage_cpu.values())
        following = _store(
            self.engine,
            outcomes,
            stats,
            index=self.settings.search_index == "on",
            claim_next=self._refill,
            meanwhile=self._judge_next,
        )
        # the store's CPU, less the judging done while waiting for its turn
        judged_meanwhile = sum(stats.stage_cpu.values()) - judging
        stats.add_cpu("store", clock + judged_meanwhile)
        self._take(following)
        stats.seconds = time.perf_counter() - started
        return stats

    def stop(self) -> None:
        """Store what was judged and give back what was not: the worker is
        stopping, and the jobs should not wait for their leases."""
        if self.judged:
            outcomes, self.judged = self.judged, []
            _store(self.engine, outcomes, self._stats, index=self.settings.search_index == "on")
        jobs = self.in_hand()
        self.hand.clear()
        release(self.engine, jobs)

    def forget(self) -> None:
        """Drop what is in hand after a failure: the leases bring it back."""
        self.hand.clear()
        self.judged = []

    def _refill(self, conn: Connection) -> list[job_store.ClaimedJob]:
        return _claim_in(conn, self.settings, self.name, self.batch + self.ahead - self.holding)

    def _take(self, claimed: list[job_store.ClaimedJob]) -> None:
        """Read the traces of newly claimed jobs into the hand."""
        if not claimed:
            return
        clock = time.thread_time()
        with self.engine.connect() as conn:
            reads = _read_all(conn, claimed)
            deployed = {t: self.rules.get(conn, t) for t in {job.tenant_id for job in claimed}}
        for job, (row, batches, logs) in zip(claimed, reads, strict=True):
            self.hand.append((job, row, batches, logs, deployed[job.tenant_id]))
        self._stats.add_cpu("read", clock)

    def _judge_next(self) -> bool:
        """Judge the next job in hand; ``False`` when there is none."""
        if not self.hand:
            return False
        job, row, batches, logs, deployed = self.hand.popleft()
        try:
            outcome = _compute(job, row, batches, logs, deployed, self._stats)
        except Exception as exc:  # a bad trace must not take the batch down
            log.warning("job %s raised: %r", job.id, exc)
            outcome = Outcome(job, error=f"{type(exc).__name__}: {exc}")
        self.judged.append(outcome)
        return True


def drain(engine: Engine, settings: Settings, worker: str = "inline") -> BatchStats:
    """Process every pending job in this process (tests, ``iris worker --once``)."""
    total = BatchStats()
    judging = Worker(engine, settings, worker, DeployedRules(ttl_s=0))
    while True:
        stats = judging.step()
        if not stats.claimed:
            return total
        total.claimed += stats.claimed
        total.evaluated += stats.evaluated
        total.derived += stats.derived
        total.failed += stats.failed


def tune_gc() -> None:
    """Collect garbage less often in a worker or receiving process.

    Judging a batch allocates hundreds of thousands of short-lived containers
    (rule results, evidence), almost none of them in cycles. With the default
    thresholds the cyclic collector ran ~440 times per 1,000 traces, re-walking
    every imported module's objects in its full passes: ~0.3 ms of CPU a trace.
    Freezing what startup created and raising the thresholds makes it ~0.03 ms;
    the garbage that does form cycles is still collected, a little later. The
    receivers are the same story per span (records, rows, tuples): in ``iris
    serve`` it took server CPU from ~120 to 95–110 µs a span over OTLP/HTTP.

    The first collection at 50,000 net new containers, not 10,000: what a
    worker holds (two batches, read, and the results being built)
    is itself tens of thousands of containers, which every collection walked
    again. The collector's ~21 M of a steady worker's 1,238 M instructions
    for 488 traces fell to almost nothing (``bench/worker_instr.py``: 1,217 M
    in all; 25,000 and 100,000 measured the same within 0.2 %).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 10, 10)


# A made-up agent run for ``warm_up`` that reaches every rule a stored trace
# without an expected answer, trajectory or cost history reaches (an ask with
# parts, an answer with figures, a path, an address and a date, a read, a
# search and a failed call, with a tools catalogue).
WARM_UP_TRACE = AgentTrace(
    agent_name="iris-warm-up",
    input="- Summarise the retention settings\n- Say how often the sweep runs",
    output=(
        "Retention defaults to 30 days (see config/retention.yaml) and the sweep runs every "
        "24 hours since 2026-01-15. Revenue rose 18% in Q3. Contact ops@example.com."
    ),
    tool_calls=(
        ToolCall("read_file", {"path": "config/retention.yaml"}, "days: 30\nsweep: 24h", 12.0),
        ToolCall("search", {"query": "sweep schedule"}, '{"hits": 2}', 30.0),
        ToolCall("bash", {"command": "make check"}, None, 5.0, error="exit status 2"),
    ),
    latency_ms=1800.0,
    token_usage=TokenUsage(120, 60, 180),
    cost_usd=0.0012,
    tools=(
        ToolDef(
            "read_file",
            "Read a file from the workspace",
            {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        ),
        ToolDef("search", "Search the knowledge base", {"type": "object"}),
        ToolDef("bash", "Run a shell command", {"type": "object"}),
    ),
)


def warm_up() -> dict[str, Any]:
    """Judge ``WARM_UP_TRACE`` once, before the first claim; returns its result.

    The engine builds much on first use — compiled patterns, the risk
    layer's Beta draws, result plans, lexicons: ~0.2 s of CPU that would
    otherwise fall on the first batch a fresh or restarted worker claims,
    holding back those traces' verdicts while it is paid. Nothing is stored.
    """
    return judge_trace(WARM_UP_TRACE, None, ())


def worker_name(index: int) -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{index}"


def run_worker(
    settings: Settings,
    index: int,
    stop: StopFlag,
    report: Any = None,
) -> None:
    """The worker loop: straight on while there are jobs, else poll with a
    short backoff (``IDLE_SLEEP_S``); an empty poll is one indexed read.

    ``report`` (a multiprocessing queue) receives each batch's figures for the
    server's metrics; it is optional so ``iris worker`` can run without one.
    """
    warm_up()  # before tune_gc, so what it builds is frozen with the rest
    tune_gc()
    engine = make_engine(settings.database_url, pool_size=2)
    name = worker_name(index)
    worker = Worker(engine, settings, name, DeployedRules())
    idle_sleep = IDLE_SLEEP_S[0]
    reported_turns, reported_wait = 0, 0.0
    log.info("worker %s started", name)
    try:
        while not stop.is_set():
            try:
                stats = worker.step()
            except Exception:
                worker.forget()  # what it held is reclaimed when the leases end
                log.exception("worker batch failed; retrying")
                stop.wait(1.0)
                continue
            if stats.claimed:
                idle_sleep = IDLE_SLEEP_S[0]
                if report is not None:
                    turns, waited = wait_totals()
                    with contextlib.suppress(Exception):  # metrics must never stop work
                        report.put_nowait(
                            (
                                stats.claimed,
                                stats.evaluated,
                                stats.failed,
                                stats.seconds,
                                dict(stats.per_eval_type),
                                turns - reported_turns,  # SQLite write turns since the last
                                waited - reported_wait,  # and the seconds spent waiting for them
                            )
                        )
                    reported_turns, reported_wait = turns, waited
            else:
                stop.wait(idle_sleep)
                idle_sleep = min(idle_sleep * 2, IDLE_SLEEP_S[1])
    finally:
        try:
            worker.stop()
        except Exception:  # the leases end and other workers take the jobs
            log.exception("could not store or give back the jobs in hand on stopping")
        engine.dispose()


def worker_process_main(settings_data: dict[str, Any], index: int, report: Any = None) -> None:
    """Entry point of a pool process (spawned, so it imports cleanly). It
    stops, storing or giving back the jobs in hand, on the SIGTERM its pool
    sends, or when the pool's process is gone."""
    stop = StopFlag()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when we stop
    stop.set_on(signal.SIGTERM)
    end_with_parent(stop.set)  # ... or, if it died without saying so, its absence
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    settings = Settings(**settings_data)
    run_worker(settings, index, stop, report)


class WorkerPool:
    """N worker processes, restarted when they die, stopped with the server.

    A worker is asked to stop by a signal of its own (SIGTERM), not by an
    object the processes share: a process killed while waiting on a shared
    ``multiprocessing`` Event would keep the pool's ``set()`` waiting for
    ever (``service.stopflag``)."""

    def __init__(self, settings: Settings, count: int):
        self.settings = settings
        self.count = count
        self.restarts = 0
        self._ctx = multiprocessing.get_context("spawn")
        self._stopping = False
        self._procs: list[Any] = []
        self.reports: Any = self._ctx.Queue(maxsize=10_000)

    def _spawn(self, index: int) -> Any:
        data = self.settings.model_dump(exclude_none=True)
        proc = self._ctx.Process(
            target=worker_process_main,
            args=(data, index, self.reports),
            name=f"iris-worker-{index}",
        )
        proc.daemon = True
        proc.start()
        return proc

    def start(self) -> None:
        self._procs = [self._spawn(i) for i in range(self.count)]

    def supervise(self) -> None:
        """Restart any worker that died (called periodically by the server)."""
        if self._stopping:
            return
        for i, proc in enumerate(self._procs):
            if not proc.is_alive():
                log.warning("worker %d exited with %s; restarting", i, proc.exitcode)
                self.restarts += 1
                self._procs[i] = self._spawn(i)

    def drain_reports(self) -> list[tuple[int, int, int, float, dict[str, int], int, float]]:
        """Batch figures the workers sent since the last call (none once stopped)."""
        out: list[tuple[int, int, int, float, dict[str, int], int, float]] = []
        if self.reports is None:
            return out
        while True:
            try:
                out.append(self.reports.get_nowait())
            except Exception:
                return out

    @property
    def alive(self) -> int:
        return sum(1 for p in self._procs if p.is_alive())

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self._procs if p.pid is not None]

    def stop(self, timeout: float = 10.0) -> None:
        """Ask every worker to stop (SIGTERM: each stores or gives back its
        batch), wait up to ``timeout`` seconds, then kill what is left (its
        jobs come back when their leases end)."""
        self._stopping = True
        for proc in self._procs:
            if proc.is_alive():
                proc.terminate()
        deadline = time.monotonic() + timeout
        for proc in self._procs:
            proc.join(max(0.0, deadline - time.monotonic()))
        for proc in self._procs:
            if proc.is_alive():
                log.warning("worker pid %s did not stop in %.0f s; killing it", proc.pid, timeout)
                proc.kill()
                proc.join(2)
        # Let go of the queue now: its semaphores are named, and only its
        # collection unlinks them. uvicorn ends ``iris serve`` by raising the
        # signal it caught again, so no exit handler would (multiprocessing's
        # resource tracker then warned of "leaked semaphore objects").
        self.reports.close()
        self.reports.join_thread()
        self.reports = None
