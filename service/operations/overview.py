"""Read-only overviews shared by REST and MCP: capabilities, summary, filters, proof."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from sqlalchemy import distinct, select

from evaluators.proof import figures
from evaluators.rules.registry import roster
from service.errors import invalid_argument
from service.evaluation import engine_config
from service.state import ServiceState
from service.version import iris_version
from storage import codec
from storage import traces as trace_store
from storage.models import CustomRule, Trace

QUESTIONS = (
    "safe_output",
    "grounded",
    "complete",
    "relevant",
    "task_completed",
    "tool_use_correct",
    "within_budget",
)
JUDGE_PROVIDERS = ("anthropic", "openai")


def roster_rows() -> list[dict[str, Any]]:
    return roster(engine_config())


def judge_state() -> dict[str, Any]:
    """The LLM judge is not part of this build; say so and how it will be enabled."""
    return {
        "enabled": False,
        "provider": None,
        "providers": list(JUDGE_PROVIDERS),
        "costCapUsd": 0.25,
        "howToEnable": [
            "The LLM judge is not available in this release of Iris Collector.",
            "When it ships: set IRIS_ANTHROPIC_API_KEY or IRIS_OPENAI_API_KEY in the server's "
            "environment and restart the server.",
        ],
    }


async def capabilities(
    state: ServiceState, *, transport: str, tools: list[str], resources: list[str]
) -> dict[str, Any]:
    """What this server can judge (SPEC §6 ``iris://capabilities``)."""

    def run() -> dict[str, int]:
        with state.engine.connect() as conn:
            rows = list(
                conn.execute(select(CustomRule.enabled).where(CustomRule.tenant_id == state.tenant))
            )
        return {"total": len(rows), "enabled": sum(1 for (e,) in rows if e)}

    custom = await asyncio.to_thread(run)
    settings = state.settings
    return {
        "version": iris_version(),
        "transport": transport,
        "questions": list(QUESTIONS),
        "rules": roster(engine_config()),
        "customRules": custom,
        "judge": judge_state(),
        "citations": {"fetchAllowed": False, "domainsRestricted": False},
        "dashboard": {
            "address": f"http://{settings.dashboard_host}:{settings.dashboard_port}",
            "mode": "real",
        },
        "limits": {
            "bodyBytes": settings.max_body_bytes,
            "otlpBodyBytes": settings.otlp_max_body_bytes,
            "customRulesPerCall": 10,
            "regexBudgetMs": 100,
            "regexPatternChars": 1000,
            "maxCitations": 50,
            "queryLimit": 1000,
        },
        "tools": tools,
        "resources": resources,
        "prompts": ["evaluate-my-agent"],
    }


def proof() -> dict[str, Any]:
    """The published accuracy of every measured rule (``iris://proof``)."""
    data = (
        json.loads(figures.DATA_FILE.read_text(encoding="utf-8"))
        if figures.DATA_FILE.exists()
        else {}
    )
    return {
        "corpusVersion": data.get("corpusVersion"),
        "release": iris_version(),
        "labelling": "synthetic cases labelled against each rule's documented definition",
        "rules": data.get("rules", []),
        "custom": data.get("custom", []),
        "transforms": data.get("transforms", []),
        "judge": {"status": "pending", "reason": "no keyed proof run exists"},
    }


async def summary(state: ServiceState, hours: Any = 24) -> dict[str, Any]:
    try:
        window = int(hours)
    except (TypeError, ValueError):
        window = -1
    if not 1 <= window <= 8760:
        raise invalid_argument(
            f"hours must be an integer from 1 to 8760, got {hours!r}",
            [{"field": "hours", "value": hours}],
        )

    def run() -> dict[str, Any]:
        with state.engine.connect() as conn:
            return trace_store.summary(conn, state.tenant, hours=window, now=codec.utcnow())

    return await asyncio.to_thread(run)


async def filters(state: ServiceState) -> dict[str, Any]:
    def run() -> dict[str, Any]:
        with state.engine.connect() as conn:
            agents = conn.execute(
                select(distinct(Trace.agent_name))
                .where(Trace.tenant_id == state.tenant)
                .order_by(Trace.agent_name)
            )
            frameworks = conn.execute(
                select(distinct(Trace.framework))
                .where(Trace.tenant_id == state.tenant, Trace.framework.is_not(None))
                .order_by(Trace.framework)
            )
            return {"agent_names": [a for (a,) in agents], "frameworks": [f for (f,) in frameworks]}

    return await asyncio.to_thread(run)
