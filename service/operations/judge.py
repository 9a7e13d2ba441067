"""LLM judge and citation verification: validated, then refused honestly.

The judge is a later release. Both operations still do everything that
comes before spending: validate the arguments and check ``trace_id``
(``IRIS_UNKNOWN_TRACE`` first), then answer ``IRIS_JUDGE_NOT_ENABLED`` with
what to do instead. Nothing is fetched, spent or stored.
"""

from __future__ import annotations

import asyncio
from typing import Any

from service.errors import IrisError
from service.operations.arguments import CitationsArgs, JudgeArgs, validate_args
from service.operations.overview import judge_state
from service.state import ServiceState
from storage import traces as trace_store


async def _check_trace(state: ServiceState, trace_id: str | None) -> None:
    if trace_id is None:
        return

    def exists() -> bool:
        with state.engine.connect() as conn:
            return trace_store.get_trace(conn, state.tenant, trace_id) is not None

    if not await asyncio.to_thread(exists):
        raise IrisError(
            "IRIS_UNKNOWN_TRACE",
            f"Trace {trace_id} is not stored; nothing was fetched, spent or written.",
            status=404,
            recovery=["Log the trace first, or omit trace_id."],
        )


def _not_enabled(tool: str) -> IrisError:
    return IrisError(
        "IRIS_JUDGE_NOT_ENABLED",
        f"{tool} needs the LLM judge, which this release of Iris Collector does not include.",
        status=501,
        recovery=[
            "Use evaluate_output: its deterministic rules cover safety, grounding, completeness, "
            "relevance, tool use and budget, and report what they could not judge.",
            *judge_state()["howToEnable"][1:],
        ],
    )


async def evaluate_with_llm_judge(state: ServiceState, payload: Any) -> dict[str, Any]:
    args = validate_args(JudgeArgs, payload)
    assert isinstance(args, JudgeArgs)
    await _check_trace(state, args.trace_id)
    raise _not_enabled("evaluate_with_llm_judge")


async def verify_citations(state: ServiceState, payload: Any) -> dict[str, Any]:
    args = validate_args(CitationsArgs, payload)
    assert isinstance(args, CitationsArgs)
    await _check_trace(state, args.trace_id)
    raise _not_enabled("verify_citations")
