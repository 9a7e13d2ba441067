"""Runs: listing, baseline pinning, re-evaluation, and the comparison tools."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import and_, select

from evaluators import statistics
from evaluators.custom.definition import revalidate
from evaluators.engine import ruleset_hash
from evaluators.request import EvaluationRequest
from evaluators.statistics import EvalRow
from receivers.native import register_model
from service.errors import IrisError, invalid_argument
from service.evaluation import deployed_entries, trace_from_row
from service.operations.arguments import (
    CompareRunsArgs,
    CompareTracesArgs,
    EvaluateRunsArgs,
    validate_args,
)
from service.state import ServiceState
from storage import codec
from storage import datasets as dataset_store
from storage import runs as run_store
from storage import traces as trace_store
from storage.evaluations import evaluation_rows, evaluations, evaluations_to_api, insert_evaluations


def _unknown_run(run: str) -> IrisError:
    return invalid_argument(
        f"No trace or evaluation mentions run {run!r}.",
        [{"field": "run", "value": run, "message": "list runs with GET /api/v1/runs"}],
    )


async def list_runs(state: ServiceState, limit: Any = 50) -> dict[str, Any]:
    try:
        count = int(limit)
    except (TypeError, ValueError):
        count = -1
    if not 1 <= count <= 500:
        raise invalid_argument(
            "limit must be an integer from 1 to 500", [{"field": "limit", "value": limit}]
        )

    def run() -> dict[str, Any]:
        with state.engine.connect() as conn:
            rows = [
                run_store.describe(conn, state.tenant, r)
                for r in run_store.run_ids(conn, state.tenant, count)
            ]
        found = [r for r in rows if r is not None]
        return {"runs": found, "count": len(found)}

    return await asyncio.to_thread(run)


async def get_run(state: ServiceState, run_id: str) -> dict[str, Any]:
    def run() -> dict[str, Any] | None:
        with state.engine.connect() as conn:
            described = run_store.describe(conn, state.tenant, run_id)
            if described is None:
                return None
            evals = run_store.latest_per_trace(conn, state.tenant, run_id)
            described["evaluations"] = evaluations_to_api(conn, evals)
            return described

    result = await asyncio.to_thread(run)
    if result is None:
        raise IrisError(
            "IRIS_NOT_FOUND",
            f"Nothing mentions run {run_id!r}.",
            status=404,
            recovery=["List runs with GET /api/v1/runs."],
        )
    return result


@register_model
class RunPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    baseline: bool | None = None
    label: str | None = Field(default=None, min_length=1, max_length=256)


async def patch_run(state: ServiceState, run_id: str, payload: Any) -> dict[str, Any]:
    body = validate_args(RunPatch, payload)
    if body.baseline is None and body.label is None:
        raise invalid_argument(
            "Send baseline and/or label.", [{"field": "(body)", "valid": ["baseline", "label"]}]
        )

    def run() -> bool:
        with state.engine.begin() as conn:
            if run_store.describe(conn, state.tenant, run_id) is None:
                return False
            run_store.upsert_registration(
                conn,
                state.tenant,
                run_id,
                now=codec.utcnow(),
                label=body.label,
                baseline=body.baseline,
            )
            return True

    if not await asyncio.to_thread(run):
        raise IrisError(
            "IRIS_NOT_FOUND",
            f"Nothing mentions run {run_id!r}.",
            status=404,
            recovery=["List runs with GET /api/v1/runs."],
        )
    return await get_run(state, run_id)


async def evaluate_runs(state: ServiceState, payload: Any) -> dict[str, Any]:
    """Re-score a run under today's rules into a separate re-evaluation run (SPEC §5.12)."""
    args: EvaluateRunsArgs = validate_args(EvaluateRunsArgs, payload)

    def load() -> tuple[list[Any], dict[str, list[Any]], list[dict[str, Any]], set[str]]:
        with state.engine.connect() as conn:
            rows = run_store.traces_of_run(conn, state.tenant, args.run)
            spans = {
                r.trace_id: trace_store.get_spans(conn, state.tenant, r.trace_id)
                for r in rows
                if r.tool_calls is None and r.span_count
            }
            entries = deployed_entries(conn, state.tenant)
            return rows, spans, entries, set()

    rows, spans, entries, _ = await asyncio.to_thread(load)
    if not rows:
        raise _unknown_run(args.run)
    deployed, _quarantined = revalidate(entries)
    ruleset = ruleset_hash(deployed)
    target = args.into or f"{args.run}+reeval-{ruleset[:12]}"

    def current() -> set[str]:
        with state.engine.connect() as conn:
            return {
                e.trace_id
                for e in run_store.latest_per_trace(conn, state.tenant, target)
                if (e.provenance or {}).get("rulesetHash") == ruleset and e.trace_id
            }

    already = await asyncio.to_thread(current)
    todo, failed = [], []
    for row in rows:
        if row.trace_id in already:
            continue
        try:
            trace = trace_from_row(row._mapping, spans.get(row.trace_id, []))
            todo.append((row, EvaluationRequest.from_trace(trace)))
        except Exception as exc:  # one unreadable trace must not stop the run
            failed.append({"trace_id": row.trace_id, "reason": f"{type(exc).__name__}: {exc}"})
    results = await state.engine_pool.evaluate_many([r for _, r in todo], entries)

    def save() -> int:
        now = codec.utcnow()
        evaluation_batch, rule_batch = [], []
        for (row, _), result in zip(todo, results, strict=True):
            evaluation, rules = evaluation_rows(
                tenant_id=state.tenant,
                result=result,
                now=now,
                trace_id=row.trace_id,
                trace_revision=row.revision,
                agent_name=row.agent_name,
                output_text=row.output,
                run=target,
                case_key=row.case_key,
                session_id=row.session_id,
                reevaluation_of=args.run,
            )
            evaluation_batch.append(evaluation)
            rule_batch.extend(rules)
        with state.engine.begin() as conn:
            insert_evaluations(conn, evaluation_batch, rule_batch)
            run_store.upsert_registration(
                conn, state.tenant, target, now=now, label=args.label, reevaluation_of=args.run
            )
            return sum(
                1 for e in run_store.latest_per_trace(conn, state.tenant, target) if e.passed
            )

    passed = await asyncio.to_thread(save)
    evaluated = len(todo)
    return {
        "source_run": args.run,
        "run": target,
        "ruleset_hash": ruleset,
        "traces": len(rows),
        "evaluated": evaluated,
        "already_current": len(already),
        "failed": failed,
        "passed": passed,
        "summary": (
            f"Re-evaluated {evaluated} of {len(rows)} traces of {args.run!r} into {target!r} "
            f"under ruleset {ruleset[:12]}; {len(already)} were already current, {len(failed)} "
            f"could not be scored; {passed} pass. Compare with "
            f"compare_runs(before={args.run!r}, after={target!r})."
        ),
    }


def _rows_of(conn: Any, tenant: str, **filters: Any) -> list[EvalRow]:
    ev = evaluations.c
    conds = [ev.tenant_id == tenant]
    for column, value in filters.items():
        if value is not None:
            conds.append(ev[column] == value)
    rows = conn.execute(select(evaluations).where(and_(*conds)).order_by(ev.created_at, ev.id))
    return [EvalRow.from_evaluation(e) for e in evaluations_to_api(conn, rows)]


async def compare_traces(state: ServiceState, payload: Any) -> dict[str, Any]:
    """Repeat reliability over stored evaluations (SPEC §5.11, §12.2)."""
    args: CompareTracesArgs = validate_args(CompareTracesArgs, payload)

    def run() -> list[EvalRow]:
        with state.engine.connect() as conn:
            return _rows_of(
                conn, state.tenant, run=args.run, session_id=args.session, case_key=args.case_key
            )

    rows = await asyncio.to_thread(run)
    result = statistics.compare_traces(
        rows,
        run=args.run,
        session=args.session,
        case_key=args.case_key,
        group_by=args.group_by,
        question=args.question,
        min_attempts=args.min_attempts,
    )
    return result.to_dict()


async def compare_runs(state: ServiceState, payload: Any) -> dict[str, Any]:
    """Did the agent get worse between two runs? (SPEC §5.10, §12.3)."""
    args: CompareRunsArgs = validate_args(CompareRunsArgs, payload)

    def load() -> tuple[str | None, dict[str, tuple[list[EvalRow], str | None]]]:
        with state.engine.connect() as conn:
            before = args.before or run_store.baseline_run(conn, state.tenant)
            loaded: dict[str, tuple[list[EvalRow], str | None]] = {}
            for run_id in {r for r in (before, args.after) if r}:
                reg = run_store.registration(conn, state.tenant, run_id)
                loaded[run_id] = (
                    _rows_of(conn, state.tenant, run=run_id),
                    reg.reevaluation_of if reg is not None else None,
                )
            return before, loaded

    before, loaded = await asyncio.to_thread(load)
    if before is None:
        raise invalid_argument(
            "No 'before' run was given and no baseline is pinned.",
            [
                {
                    "field": "before",
                    "message": 'name a run, or pin one: PATCH /api/v1/runs/{id} {"baseline": true}',
                }
            ],
        )
    for run_id in (before, args.after):
        if not loaded[run_id][0]:
            raise invalid_argument(
                f"Run {run_id!r} has no evaluations to compare.",
                [{"field": "after" if run_id == args.after else "before", "value": run_id}],
            )
    dataset = None
    if args.dataset is not None:
        found = await asyncio.to_thread(_find_dataset, state, args.dataset)
        if found is None:
            raise invalid_argument(
                f"Unknown dataset {args.dataset!r}.",
                [
                    {
                        "field": "dataset",
                        "value": args.dataset,
                        "message": "no dataset has this id or label",
                    }
                ],
            )
        dataset = statistics.Dataset(
            id=found.id,
            label=found.label,
            version=found.version,
            case_keys=frozenset(found.case_keys or []),
        )
    sides = [
        statistics.RunData(run_id=r, rows=loaded[r][0], reevaluation_of=loaded[r][1])
        for r in (before, args.after)
    ]
    try:
        result = statistics.compare_runs(
            sides[0],
            sides[1],
            force=args.force,
            equivalence_margin=args.equivalence_margin,
            dataset=dataset,
        )
    except statistics.IncomparableRuns as refused:
        return refused.result.to_dict()
    return result.to_dict()


def _find_dataset(state: ServiceState, ref: str) -> Any:
    with state.engine.connect() as conn:
        return dataset_store.find(conn, state.tenant, ref)


@register_model
class DatasetBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str = Field(min_length=1, max_length=256)
    from_run: str | None = Field(default=None, min_length=1)
    case_keys: list[str] | None = Field(default=None, min_length=1)


async def create_dataset(state: ServiceState, payload: Any) -> dict[str, Any]:
    """Promote a run's case keys (or explicit keys) to a dataset (SPEC §7.13)."""
    body: DatasetBody = validate_args(DatasetBody, payload)
    if (body.from_run is None) == (body.case_keys is None):
        raise invalid_argument(
            "Send exactly one of from_run or case_keys.",
            [{"field": "from_run", "valid": ["from_run", "case_keys"]}, {"field": "case_keys"}],
        )

    def run() -> dict[str, Any] | None:
        with state.engine.begin() as conn:
            keys = body.case_keys or dataset_store.run_case_keys(
                conn, state.tenant, str(body.from_run)
            )
            if not keys:
                return None
            row = dataset_store.create(
                conn, state.tenant, body.label, keys, now=codec.utcnow(), source_run=body.from_run
            )
            return dataset_store.to_api(row)

    created = await asyncio.to_thread(run)
    if created is None:
        raise invalid_argument(
            f"Run {body.from_run!r} has no case keys to promote.",
            [{"field": "from_run", "value": body.from_run}],
        )
    return created


async def list_datasets(state: ServiceState) -> dict[str, Any]:
    def run() -> dict[str, Any]:
        with state.engine.connect() as conn:
            return {
                "datasets": [
                    dataset_store.to_api(r) for r in dataset_store.all_datasets(conn, state.tenant)
                ]
            }

    return await asyncio.to_thread(run)


async def case_attempts(state: ServiceState, case_key: str, run_id: str | None) -> dict[str, Any]:
    """Every attempt at one case across runs, not collapsed (SPEC §7.13)."""

    def load() -> list[dict[str, Any]]:
        with state.engine.connect() as conn:
            ev = evaluations.c
            conds = [ev.tenant_id == state.tenant, ev.case_key == case_key]
            if run_id is not None:
                conds.append(ev.run == run_id)
            return evaluations_to_api(
                conn,
                conn.execute(
                    select(evaluations).where(and_(*conds)).order_by(ev.created_at, ev.id)
                ),
            )

    rows = await asyncio.to_thread(load)
    if not rows:
        raise IrisError(
            "IRIS_NOT_FOUND",
            f"No evaluation has case key {case_key!r}.",
            status=404,
            recovery=["Log traces with case_key, or list runs with GET /api/v1/runs."],
        )
    passed = sum(1 for r in rows if r["passed"])
    return {
        "case_key": case_key,
        "attempts": len(rows),
        "passed": passed,
        "flaky": 0 < passed < len(rows),
        "runs": sorted({r["run"] for r in rows if r["run"]}),
        "evaluations": rows,
    }


_PERIOD_UNITS = {"h": 1, "d": 24}


async def drift(
    state: ServiceState, period: str = "7d", run_id: str | None = None
) -> dict[str, Any]:
    """The pass rate of the last period against the one before it (SPEC §12.5)."""
    unit = period[-1:] if period else ""
    amount = period[:-1]
    hours = int(amount) * _PERIOD_UNITS[unit] if amount.isdigit() and unit in _PERIOD_UNITS else 0
    if not 24 <= hours <= 180 * 24:
        raise invalid_argument(
            f"period must be between 24h and 180d, like 7d or 48h; got {period!r}",
            [{"field": "period", "value": period}],
        )
    now = codec.utcnow()
    span = timedelta(hours=hours)

    def window(since: Any, until: Any) -> tuple[int, int]:
        with state.engine.connect() as conn:
            ev = evaluations.c
            conds = [ev.tenant_id == state.tenant, ev.created_at >= since, ev.created_at < until]
            if run_id is not None:
                conds.append(ev.run == run_id)
            rows = conn.execute(select(ev.passed).where(and_(*conds)))
            values = [bool(p) for (p,) in rows]
        return sum(values), len(values)

    current = await asyncio.to_thread(window, now - span, now)
    prior = await asyncio.to_thread(window, now - 2 * span, now - span)
    result = statistics.drift(current[0], current[1], prior[0], prior[1]).to_dict()

    def side(since: Any, until: Any, counts: tuple[int, int]) -> dict[str, Any]:
        passed, n = counts
        return {
            "since": codec.iso(since),
            "until": codec.iso(until),
            "evaluated": n,
            "passed": passed,
            "passRate": (passed / n) if n else None,
        }

    return {
        "period": period,
        "run": run_id,
        "current": side(now - span, now, current),
        "prior": side(now - 2 * span, now - span, prior),
        **result,
    }
