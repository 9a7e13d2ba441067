"""Evaluation rows: reading them back in the shape evaluate_output returned."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from datetime import datetime
from typing import Any, cast

from sqlalchemy import ColumnElement, Connection, Table, and_, select

from evaluators.splitresults import RuleDescription, SplitResults
from storage import ruleprofiles
from storage.codec import iso
from storage.fastinsert import driver_rows, insert_values, update_rows
from storage.models import Evaluation, RuleResultRow, Trace
from storage.scoreband import latest_verdict

evaluations = cast(Table, Evaluation.__table__)
rule_results = cast(Table, RuleResultRow.__table__)
traces = cast(Table, Trace.__table__)


def evaluations_to_api(conn: Connection, rows: Iterable[Any]) -> list[dict[str, Any]]:
    """Stored evaluations in the SPEC §5.2 output shape, their rule results
    joined with their rules' profiles (one query per tenant for any not
    cached)."""
    rows = list(rows)
    joined = ruleprofiles.join_all(conn, [(r.tenant_id, r.rule_results) for r in rows])
    return [evaluation_to_api(r, rules) for r, rules in zip(rows, joined, strict=True)]


def evaluation_to_api(row: Any, rule_results: Any) -> dict[str, Any]:
    """SPEC §5.2 output shape of one row, derived on read: only what the row
    supports; ``rule_results`` as ``ruleprofiles.join`` rebuilt them."""
    out: dict[str, Any] = {
        "id": row.id,
        "trace_id": row.trace_id,
        "eval_type": row.eval_type,
        "kind": row.kind,
        "score": row.score,
        "passed": row.passed,
        "verdict": row.verdict,
        "coverage": row.coverage,
        "provenance": row.provenance,
        "rule_results": rule_results or [],
        "suggestions": row.suggestions or [],
        "rules_evaluated": row.rules_evaluated,
        "rules_skipped": row.rules_skipped,
        "insufficient_data": row.insufficient_data,
        "critical_failures": row.critical_failures or [],
        "critical_skipped": row.critical_skipped or [],
        "categories": row.categories,
        "output_text": row.output_text,
        "agent_name": row.agent_name,
        "run": row.run,
        "case_key": row.case_key,
        "session_id": row.session_id,
        "created_at": iso(row.created_at),
    }
    if row.note:
        out["note"] = row.note
    if row.interpretations:
        out["interpretations"] = row.interpretations
    if row.erased_at is not None:
        out["erased_at"] = iso(row.erased_at)
    return out


def of_trace(tenant_id: str, trace_id: str) -> ColumnElement[bool]:
    """The evaluations of one trace id: those filed under the live trace's
    arrival (``traces.arrival_us``) and those under 0, where the verdicts of
    a deleted trace (``storage.traces.delete_trace``) and any stored without
    the arrival are filed. Two look-ups of ``ix_evaluations_tenant_trace``."""
    live = (
        select(traces.c.arrival_us)
        .where(and_(traces.c.tenant_id == tenant_id, traces.c.trace_id == trace_id))
        .scalar_subquery()
    )
    return and_(
        evaluations.c.tenant_id == tenant_id,
        evaluations.c.trace_arrival_us.in_([0, live]),
        evaluations.c.trace_id == trace_id,
    )


def evaluations_for_trace(conn: Connection, tenant_id: str, trace_id: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        select(evaluations)
        .where(of_trace(tenant_id, trace_id))
        .order_by(evaluations.c.created_at.desc(), evaluations.c.id)
    )
    return evaluations_to_api(conn, rows)


def new_evaluation_id() -> str:
    """``eval_`` and 24 hex digits: the time in milliseconds (12 digits), then
    48 random bits (12 digits).

    The id is the primary key: 24 random digits put each new row's key on a
    random leaf of that index, a page of its own to rewrite per verdict once
    the table is large. Time first, new keys sort after older ones and a
    batch's land on the index's last leaf. The random part keeps ids unique
    and unguessable within a millisecond; the SPEC asks only for an opaque
    string."""
    return f"eval_{time.time_ns() // 1_000_000:012x}{os.urandom(6).hex()}"


def _outcome(result: dict[str, Any]) -> str:
    verdict = result.get("verdict")
    if verdict in ("pass", "fail", "skipped"):
        return "passed" if verdict == "pass" else ("failed" if verdict == "fail" else "skipped")
    if result.get("skipped"):
        return "skipped"
    return "passed" if result.get("passed") else "failed"


def evaluation_rows(
    *,
    tenant_id: str,
    result: dict[str, Any],
    now: datetime,
    trace_id: str | None = None,
    trace_arrival_us: int = 0,
    trace_revision: int | None = None,
    agent_name: str | None = None,
    output_text: str | None = None,
    expected_text: str | None = None,
    run: str | None = None,
    case_key: str | None = None,
    session_id: str | None = None,
    kind: str = "rules",
    evaluation_id: str | None = None,
    reevaluation_of: str | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The ``evaluations`` row and its per-rule rows for one engine result.
    ``trace_arrival_us`` is the trace's ``traces.arrival_us`` where the
    caller has it (the worker's jobs carry it); 0 files the verdict where
    ``of_trace`` looks as well."""
    evaluation_id = evaluation_id or new_evaluation_id()
    verdict = result.get("verdict") or {}
    row = {
        "id": evaluation_id,
        "tenant_id": tenant_id,
        "trace_id": trace_id,
        "trace_arrival_us": trace_arrival_us,
        "trace_revision": trace_revision,
        "eval_type": result.get("eval_type", "all"),
        "kind": kind,
        "output_text": output_text,
        "expected_text": expected_text,
        "score": result.get("score"),
        "passed": bool(result.get("passed")),
        "state": verdict.get("state", "pass" if result.get("passed") else "fail"),
        "basis": verdict.get("basis"),
        "verdict": verdict or None,
        "coverage": result.get("coverage"),
        "provenance": result.get("provenance"),
        "rule_results": result.get("rule_results", []),
        "suggestions": result.get("suggestions", []),
        "rules_evaluated": int(result.get("rules_evaluated", 0)),
        "rules_skipped": int(result.get("rules_skipped", 0)),
        "insufficient_data": bool(result.get("insufficient_data", False)),
        "critical_failures": result.get("critical_failures") or [],
        "critical_skipped": result.get("critical_skipped") or [],
        "categories": result.get("categories"),
        "note": result.get("note"),
        "interpretations": result.get("interpretations"),
        "run": run,
        "case_key": case_key,
        "session_id": session_id,
        "agent_name": agent_name,
        "reevaluation_of": reevaluation_of,
        "created_at": now,
    }
    return row, failed_rule_rows(result, evaluation_id, tenant_id, now)


_NOT_FAILED = frozenset(("pass", "skipped"))


def failed_rule_rows(
    result: dict[str, Any], evaluation_id: str, tenant_id: str, now: datetime
) -> list[dict[str, Any]]:
    """The ``evaluation_rule_results`` rows of one result: its failed rules only.

    The table exists for "which evaluations failed rule X" (``rule_failed``);
    every outcome is in the evaluation's ``rule_results`` already. A row per
    rule was 26 rows and 52 index entries per verdict, the largest part of
    storing one; failures are a few. Rows of other outcomes written before
    this stay and are never matched by that query.
    """
    rules: list[dict[str, Any]] = []
    seen: set[str] = set()
    for rule in _not_passed(result.get("rule_results", ())):
        if rule.get("verdict") in _NOT_FAILED or _outcome(rule) != "failed":
            continue  # the verdict answers for most rules without _outcome
        name = str(rule.get("rule") or rule.get("ruleName") or "")
        if not name or name in seen:
            continue
        seen.add(name)
        rules.append(
            {
                "evaluation_id": evaluation_id,
                "rule": name[:128],
                "tenant_id": tenant_id,
                "outcome": "failed",
                "score": rule.get("score"),
                "critical": bool(rule.get("critical")),
                "created_at": now,
            }
        )
    return rules


# The keys of a rule result ``failed_rule_rows`` reads (``_outcome`` included).
_READ_KEYS = ("verdict", "skipped", "passed", "rule", "ruleName", "score", "critical")
# Of one description, per read key it has: (key, is static, its static value
# or its position among the values).
_Reader = tuple[tuple[str, bool, Any], ...]
# id of a plan's descriptions -> (the descriptions, where each one's verdict
# is among its values, each one's reader)
_VERDICT_AT: dict[
    int, tuple[tuple[RuleDescription, ...], tuple[int | None, ...], tuple[_Reader, ...]]
] = {}


def _reader(d: RuleDescription) -> _Reader:
    out = []
    for key in _READ_KEYS:
        if key not in d.keys:
            continue
        at = d.position(key)
        out.append((key, False, at) if at is not None else (key, True, d.value((), key)))
    return tuple(out)


def _not_passed(results: Any) -> Iterable[dict[str, Any]]:
    """The rule results whose verdict is neither pass nor skipped, or all of
    them: of a ``SplitResults`` only those, and of each only the keys
    ``failed_rule_rows`` reads (``_READ_KEYS``, read from the kept values at
    places found once per plan), since it passes over the others unread and
    changes none. A whole view of each was ~7k instructions."""
    if type(results) is not SplitResults:
        return cast(Iterable[dict[str, Any]], results)
    descriptions = results.descriptions
    known = _VERDICT_AT.get(id(descriptions))
    if known is None or known[0] is not descriptions:
        if len(_VERDICT_AT) >= 512:
            _VERDICT_AT.clear()
        at = tuple(d.position("verdict") for d in descriptions)
        readers = tuple(_reader(d) for d in descriptions)
        known = _VERDICT_AT[id(descriptions)] = (descriptions, at, readers)  # kept alive: ids stay
    return [
        {key: v if static else values[v] for key, static, v in reader}
        for d, values, i, reader in zip(
            descriptions, results.values, known[1], known[2], strict=True
        )
        if (values[i] if i is not None else d.value(values, "verdict")) not in _NOT_FAILED
    ]


class PreparedEvaluations:
    """Evaluation rows in the driver's form, built before the transaction
    that inserts them (``prepare_evaluations``): the rule results split from
    their profiles, the JSON columns encoded. A worker builds them before it
    takes its turn at SQLite's write lock: building them (with the search
    rows) was ~40 % of a store's instructions (callgrind), all spent while
    every other writer waited."""

    def __init__(
        self,
        rows: list[dict[str, Any]],
        profiles: dict[str, dict[str, dict[str, Any]]],
        stored: tuple[tuple[str, ...], list[tuple[Any, ...]]],
        rules: tuple[tuple[str, ...], list[tuple[Any, ...]]],
    ) -> None:
        self.rows = rows
        self.profiles = profiles
        self.stored = stored
        self.rules = rules


def prepare_evaluations(
    dialect: str, rows: list[dict[str, Any]], rule_rows: list[dict[str, Any]]
) -> PreparedEvaluations:
    """What ``insert_prepared`` writes for ``rows`` and their ``rule_rows``."""
    stored, profiles = split_rule_results(rows)
    return PreparedEvaluations(
        rows,
        profiles,
        driver_rows(dialect, evaluations, stored),
        driver_rows(dialect, rule_results, rule_rows),
    )


def insert_evaluations(
    conn: Connection,
    rows: list[dict[str, Any]],
    rule_rows: list[dict[str, Any]],
    *,
    linked: AbstractSet[tuple[str, str]] = frozenset(),
) -> None:
    """Insert evaluations (one statement each table), their rules' profiles
    (``storage.ruleprofiles``), and point traces at them — except the
    (tenant, trace) keys in ``linked``, which the caller's own UPDATE of the
    trace row already pointed (a second UPDATE of the same row was, on
    PostgreSQL, another new row version with an entry in each of its nine
    indexes)."""
    prepared = prepare_evaluations(conn.dialect.name, rows, rule_rows)
    insert_prepared(conn, prepared, linked=linked)


def insert_prepared(
    conn: Connection,
    prepared: PreparedEvaluations,
    *,
    linked: AbstractSet[tuple[str, str]] = frozenset(),
) -> None:
    """``insert_evaluations`` of rows ``prepare_evaluations`` built."""
    for tenant_id, of_tenant in prepared.profiles.items():
        ruleprofiles.save(conn, tenant_id, of_tenant)
    columns, values = prepared.stored
    insert_values(conn, evaluations, columns, values)
    columns, values = prepared.rules
    insert_values(conn, rule_results, columns, values)
    pointers = [
        {
            **latest_verdict(r["id"], r["score"]),
            "tenant_id": r["tenant_id"],
            "trace_id": r["trace_id"],
        }
        for r in prepared.rows
        if r["trace_id"] is not None and (r["tenant_id"], r["trace_id"]) not in linked
    ]
    update_rows(conn, traces, pointers, keys=("tenant_id", "trace_id"))


def split_rule_results(
    rows: Sequence[dict[str, Any]],
) -> tuple[list[dict[str, Any]], dict[str, dict[str, dict[str, Any]]]]:
    """The rows with their ``rule_results`` in stored form, and the profiles
    they refer to by tenant (the given rows are not changed)."""
    stored: list[dict[str, Any]] = []
    profiles: dict[str, dict[str, dict[str, Any]]] = {}
    for row in rows:
        value, referenced = ruleprofiles.split(row["rule_results"])
        profiles.setdefault(row["tenant_id"], {}).update(referenced)
        stored.append({**row, "rule_results": value})
    return stored, profiles


def store_evaluation(conn: Connection, **kwargs: Any) -> str:
    """Insert one evaluation with its per-rule rows; point the trace at it."""
    row, rules = evaluation_rows(**kwargs)
    insert_evaluations(conn, [row], rules)
    return str(row["id"])
