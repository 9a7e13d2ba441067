"""The MCP server: twelve tools, six resources, one prompt, two transports.

Every tool calls the same service function as its REST twin. Arguments are
validated against the tool's closed schema before the function runs; every
failure comes back as ``isError: true`` with the one error envelope, as text
and as structured content.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from sqlalchemy.exc import DBAPIError, OperationalError

from service.errors import IrisError, invalid_argument, storage_unavailable
from service.evaluation import engine_config
from service.mcp.tools import BY_NAME, TOOLS
from service.operations import evaluations, overview, rules, traces
from service.operations.arguments import validate_args
from service.state import ServiceState
from service.version import iris_version
from storage.writer import Overloaded, StorageUnavailable

log = logging.getLogger("iris.mcp")

FIXED_RESOURCES = (
    (
        "iris://capabilities",
        "capabilities",
        "What this server can judge: rules, questions, judge state, limits.",
    ),
    ("iris://proof", "proof", "Measured precision and recall of every rule, with 95% intervals."),
    (
        "iris://dashboard/summary",
        "dashboard summary",
        "Last-hour totals: traces, latency, cost, error and pass rates.",
    ),
    ("iris://audit", "audit", "Newest 100 audit entries: rule changes and trace deletions."),
)
TEMPLATES = (
    (
        "iris://evaluations/{id}",
        "evaluation",
        "One stored evaluation in the evaluate_output shape.",
    ),
    ("iris://traces/{trace_id}", "trace", "One trace with its spans and every linked evaluation."),
)
RESOURCE_URIS = [uri for uri, _, _ in FIXED_RESOURCES] + [uri for uri, _, _ in TEMPLATES]
_EVALUATION_URI = re.compile(r"iris://evaluations/([A-Za-z0-9_\-]{1,64})")
_TRACE_URI = re.compile(r"iris://traces/([0-9a-f]{32})")
RESOURCE_NOT_FOUND = types.INVALID_PARAMS  # SEP-2164: a missing resource is invalid params


def instructions() -> str:
    """Facts an agent needs, built from runtime state at boot (SPEC §4.7)."""
    roster = overview.roster_rows()
    critical = sorted(r["name"] for r in roster if r.get("critical"))
    bundles = sorted({str(r.get("category")) for r in roster})
    return (
        f"Iris {iris_version()} judges AI-agent runs with {len(roster)} deterministic rules in the "
        f"bundles {', '.join(bundles)}; critical rules (a failure vetoes): {', '.join(critical)}. "
        "Log a run with log_trace, score it with evaluate_output (eval_type all by default), read "
        "results from iris://evaluations/{id}. passed is decided by the verdict composer, never by "
        "the score; a rule that lacked its inputs is listed as not judged, never as passed. The "
        "LLM judge is not enabled in this release. Resources: " + ", ".join(RESOURCE_URIS) + "."
    )


def _error_result(error: IrisError) -> types.CallToolResult:
    envelope = error.envelope()
    envelope["error"].setdefault("see", "iris://capabilities")
    return types.CallToolResult(
        content=[
            types.TextContent(type="text", text=json.dumps(envelope, ensure_ascii=False)),
            types.ResourceLink(
                type="resource_link",
                name="capabilities",
                uri="iris://capabilities",
                mime_type="application/json",
            ),
        ],
        structured_content=envelope,
        is_error=True,
    )


def _links(tool: str, result: dict[str, Any]) -> list[types.ResourceLink]:
    links: list[types.ResourceLink] = []
    if tool == "log_trace" and result.get("trace_id"):
        links.append(_link(f"iris://traces/{result['trace_id']}", "trace"))
    if tool in ("evaluate_output", "evaluate_with_llm_judge", "verify_citations") and result.get(
        "id"
    ):
        links.append(_link(f"iris://evaluations/{result['id']}", "evaluation"))
        if result.get("trace_id"):
            links.append(_link(f"iris://traces/{result['trace_id']}", "trace"))
    if tool == "list_rules":
        links.append(_link("iris://proof", "proof"))
    return links


def _link(uri: str, name: str) -> types.ResourceLink:
    return types.ResourceLink(
        type="resource_link", name=name, uri=uri, mime_type="application/json"
    )


async def call_tool(
    state: ServiceState, name: str, arguments: dict[str, Any] | None, meta: dict[str, Any]
) -> types.CallToolResult:
    spec = BY_NAME.get(name)
    if spec is None:
        return _error_result(
            invalid_argument(
                f"Unknown tool {name!r}; valid tools: {', '.join(BY_NAME)}",
                [{"field": "name", "value": name, "valid": list(BY_NAME)}],
            )
        )
    arguments = dict(arguments or {})
    try:
        validate_args(spec.model, arguments, what=f"arguments for {name}")
        result = await spec.handler(state, arguments, meta)
    except IrisError as exc:
        return _error_result(exc)
    except (StorageUnavailable, OperationalError, DBAPIError) as exc:
        return _error_result(storage_unavailable(type(exc).__name__))
    except Overloaded as exc:
        return _error_result(
            IrisError(
                "IRIS_STORAGE_ERROR",
                f"The service is at capacity: {exc.reason}.",
                status=503,
                recovery=["Retry after a moment."],
                retry_after_s=exc.retry_after_s,
            )
        )
    except Exception:
        log.exception("tool %s failed", name)
        return _error_result(
            IrisError(
                "IRIS_INTERNAL_ERROR",
                "An unexpected error occurred; it has been logged.",
                status=500,
                recovery=["Retry once; if it repeats, report it with the server log."],
            )
        )
    content: list[Any] = [
        types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False, default=str))
    ]
    content.extend(_links(name, result))
    return types.CallToolResult(content=content, structured_content=result)


async def read_resource(state: ServiceState, uri: str, transport: str) -> Any:
    if uri == "iris://capabilities":
        return await overview.capabilities(
            state, transport=transport, tools=list(BY_NAME), resources=RESOURCE_URIS
        )
    if uri == "iris://proof":
        return overview.proof()
    if uri == "iris://dashboard/summary":
        return await overview.summary(state, 1)
    if uri == "iris://audit":
        return await rules.audit_entries(state, 100)
    if match := _EVALUATION_URI.fullmatch(uri):
        try:
            return await evaluations.get_evaluation(state, match.group(1))
        except IrisError:
            raise _not_found(uri) from None
    if match := _TRACE_URI.fullmatch(uri):
        try:
            return await traces.get_trace(state, match.group(1))
        except IrisError:
            raise _not_found(uri) from None
    raise _not_found(uri)


def _not_found(uri: str) -> MCPError:
    return MCPError(RESOURCE_NOT_FOUND, f"Resource not found: {uri}", data={"uri": uri})


PROMPT = types.Prompt(
    name="evaluate-my-agent",
    title="Evaluate my agent",
    description="Walks through logging a run, evaluating it, reading the verdict, explaining it.",
    arguments=[
        types.PromptArgument(
            name="what",
            description="'output' to judge a single answer, 'trace-file' to ingest a file",
            required=False,
        )
    ],
)


def _prompt_text(what: str | None) -> str:
    if what == "trace-file":
        first = (
            "Read the trace file and call log_trace once per run in it "
            "(agent_name, input, output, tool_calls, cost)."
        )
    else:
        first = (
            "Call log_trace with the agent's name, the user's ask (input), the answer (output) "
            "and its tool calls."
        )
    return (
        f"1. {first}\n2. Call evaluate_output with the trace_id (eval_type all).\n"
        "3. Read the verdict: state, basis (the layer that decided) and by (the rules behind it).\n"
        "4. Explain each failing rule from its message and evidence, and list the questions the "
        "coverage says were not judged — never present them as passed."
    )


def build_server(state: ServiceState, transport: str) -> Server[Any]:
    async def on_list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[spec.tool() for spec in TOOLS])

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        meta = dict(params.meta) if isinstance(params.meta, dict) else {}
        return await call_tool(state, params.name, params.arguments, meta)

    async def on_list_resources(_ctx: Any, _params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(uri=uri, name=name, description=desc, mime_type="application/json")
                for uri, name, desc in FIXED_RESOURCES
            ]
        )

    async def on_list_templates(_ctx: Any, _params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=uri, name=name, description=desc, mime_type="application/json"
                )
                for uri, name, desc in TEMPLATES
            ]
        )

    async def on_read_resource(
        _ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        body = await read_resource(state, uri, transport)
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(
                    uri=uri,
                    mime_type="application/json",
                    text=json.dumps(body, ensure_ascii=False, default=str),
                )
            ]
        )

    async def on_list_prompts(_ctx: Any, _params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[PROMPT])

    async def on_get_prompt(
        _ctx: Any, params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        if params.name != PROMPT.name:
            raise MCPError(
                types.INVALID_PARAMS, f"Unknown prompt {params.name!r}; valid: {PROMPT.name}"
            )
        what = (params.arguments or {}).get("what")
        return types.GetPromptResult(
            description=PROMPT.description,
            messages=[
                types.PromptMessage(
                    role="user", content=types.TextContent(type="text", text=_prompt_text(what))
                )
            ],
        )

    return Server(
        "iris",
        version=iris_version(),
        title="Iris Collector",
        instructions=instructions(),
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        on_list_resources=on_list_resources,
        on_list_resource_templates=on_list_templates,
        on_read_resource=on_read_resource,
        on_list_prompts=on_list_prompts,
        on_get_prompt=on_get_prompt,
    )


@asynccontextmanager
async def running_state(state: ServiceState) -> AsyncIterator[ServiceState]:
    """Migrate and start what the tools need (the writer); stop it after."""
    from storage import migrate

    migrate.upgrade(state.engine)
    await state.writer.start()
    try:
        yield state
    finally:
        await state.writer.stop()
        await asyncio.to_thread(state.engine_pool.shutdown, wait=True)
        state.engine.dispose()


__all__ = ["build_server", "call_tool", "engine_config", "read_resource", "running_state"]
