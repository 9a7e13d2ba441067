"""The MCP server driven by the official ``mcp`` client, over stdio and HTTP.

One session per transport walks every tool with valid and invalid arguments;
the client itself checks every successful result against the tool's output
schema (it raises when structured content does not conform).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.support.live import free_port

ROOT = Path(__file__).resolve().parents[3]
TOOLS = {
    "log_trace",
    "evaluate_output",
    "get_traces",
    "list_rules",
    "deploy_rule",
    "delete_rule",
    "delete_trace",
    "evaluate_with_llm_judge",
    "verify_citations",
    "compare_runs",
    "compare_traces",
    "evaluate_runs",
}
ANNOTATIONS = {  # SPEC §4.6: (readOnly, destructive, idempotent)
    "log_trace": (False, False, False),
    "get_traces": (True, False, True),
    "delete_rule": (False, True, True),
    "delete_trace": (False, True, True),
    "compare_runs": (True, False, True),
    "evaluate_runs": (False, False, True),
}


def env_for(home: Path, db_url: str) -> dict[str, str]:
    return {
        **os.environ,
        "IRIS_HOME": str(home),
        "IRIS_DB_URL": db_url,
        "IRIS_EVALUATE_ON_INGEST": "0",
    }


@asynccontextmanager
async def stdio_session(home: Path, db_url: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "service", "mcp"],
        env=env_for(home, db_url),
        cwd=str(ROOT),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@asynccontextmanager
async def http_session(home: Path, db_url: str, api_key: str) -> AsyncIterator[ClientSession]:
    port = free_port()
    env = {**env_for(home, db_url), "IRIS_API_KEY": api_key}
    log = (home / "mcp-http.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "service", "mcp", "--transport", "http", "--port", str(port)],
        env=env,
        cwd=str(ROOT),
        stdout=log,
        stderr=log,
    )
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.HTTPError:
                await anyio.sleep(0.1)
        assert httpx.post(url, json={}, timeout=5).status_code == 401  # the key is demanded
        client = httpx.AsyncClient(headers={"Authorization": f"Bearer {api_key}"}, timeout=60)
        async with (
            client,
            streamable_http_client(url, http_client=client) as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    data: dict[str, Any] = result.structured_content
    assert json.loads(result.content[0].text) == json.loads(json.dumps(data))
    return data


def error_of(result: Any) -> dict[str, Any]:
    assert result.is_error
    envelope = json.loads(result.content[0].text)
    assert envelope == result.structured_content
    assert envelope["error"]["recovery"]
    return dict(envelope["error"])


async def walk_every_tool(session: ClientSession) -> None:
    listed = await session.list_tools()
    assert {t.name for t in listed.tools} == TOOLS
    for tool in listed.tools:
        assert tool.input_schema.get("additionalProperties") is False, tool.name
        assert tool.output_schema is not None and tool.description and len(tool.description) > 120
        if tool.name in ANNOTATIONS:
            a = tool.annotations
            assert (a.read_only_hint, a.destructive_hint, a.idempotent_hint) == ANNOTATIONS[
                tool.name
            ]

    # log_trace
    logged = structured(
        await session.call_tool(
            "log_trace",
            {
                "agent_name": "mcp-bot",
                "input": "How do I reach support?",
                "output": "Mail jane.roe@gmail.com",
                "run": "r1",
                "case_key": "support",
                "tool_calls": [{"tool_name": "lookup", "input": {"q": "support"}}],
            },
        )
    )
    trace_id = logged["trace_id"]
    assert logged["status"] == "stored"
    bad = error_of(
        await session.call_tool(
            "log_trace", {"agent_name": "x", "tool_calls": [{"tool_name": "t", "err": "x"}]}
        )
    )
    assert bad["code"] == "IRIS_INVALID_ARGUMENT" and "valid keys" in bad["message"]

    # evaluate_output, linked to the trace
    evaluated = structured(
        await session.call_tool(
            "evaluate_output",
            {
                "output": "Mail jane.roe@gmail.com",
                "input": "How do I reach support?",
                "trace_id": trace_id,
            },
        )
    )
    assert evaluated["passed"] is False and "no_pii" in evaluated["critical_failures"]
    unknown = error_of(
        await session.call_tool("evaluate_output", {"output": "x", "trace_id": "ab" * 16})
    )
    assert unknown["code"] == "IRIS_UNKNOWN_TRACE"
    assert (
        error_of(await session.call_tool("evaluate_output", {"outptu": "x"}))["code"]
        == "IRIS_INVALID_ARGUMENT"
    )

    # get_traces
    page = structured(await session.call_tool("get_traces", {"agent_name": "mcp-bot", "limit": 5}))
    assert page["total"] == 1 and page["traces"][0]["trace_id"] == trace_id
    crossed = error_of(await session.call_tool("get_traces", {"min_score": 0.9, "max_score": 0.1}))
    assert "0.9" in crossed["message"] and "0.1" in crossed["message"]

    # rules
    deployed = structured(
        await session.call_tool(
            "deploy_rule",
            {
                "name": "no_internal_hosts",
                "evalType": "safety",
                "severity": "critical",
                "definition": {
                    "type": "regex_no_match",
                    "config": {"pattern": "internal\\.example"},
                },
            },
        )
    )
    rule_id = deployed["rule"]["id"]
    duplicate = error_of(
        await session.call_tool(
            "deploy_rule",
            {
                "name": "no_internal_hosts",
                "eval_type": "safety",
                "definition": {"type": "min_length", "config": {"min_length": 2}},
            },
        )
    )
    assert duplicate["code"] == "IRIS_DUPLICATE_RULE"
    redos = error_of(
        await session.call_tool(
            "deploy_rule",
            {
                "name": "r2",
                "eval_type": "safety",
                "definition": {"type": "regex_match", "config": {"pattern": "(?=a)b"}},
            },
        )
    )
    assert redos["code"] == "IRIS_INVALID_RULE_CONFIG"
    both = error_of(
        await session.call_tool(
            "deploy_rule",
            {
                "name": "r3",
                "eval_type": "safety",
                "evalType": "safety",
                "definition": {"type": "min_length", "config": {"min_length": 2}},
            },
        )
    )
    assert both["code"] == "IRIS_INVALID_ARGUMENT"
    assert (
        error_of(await session.call_tool("list_rules", {"eval_type": "vibes"}))["code"]
        == "IRIS_INVALID_ARGUMENT"
    )
    listing = structured(await session.call_tool("list_rules", {"eval_type": "safety"}))
    assert listing["total"] == 1 and len(listing["built_in"]) == 26
    toggled = structured(
        await session.call_tool("delete_rule", {"rule_id": rule_id, "enabled": False})
    )
    assert toggled["toggled"] is True and toggled["enabled"] is False
    assert (
        structured(await session.call_tool("delete_rule", {"rule_id": rule_id}))["deleted"] is True
    )
    assert (
        structured(await session.call_tool("delete_rule", {"rule_id": rule_id}))["deleted"] is False
    )
    assert (
        error_of(await session.call_tool("delete_rule", {"rule_id": "nope"}))["code"]
        == "IRIS_INVALID_ARGUMENT"
    )

    # the judge tools: validated, trace checked first, then an honest refusal
    judged = error_of(
        await session.call_tool(
            "evaluate_with_llm_judge",
            {"output": "x", "template": "accuracy", "model": "gpt-4o", "trace_id": "cd" * 16},
        )
    )
    assert judged["code"] == "IRIS_UNKNOWN_TRACE"
    judged = error_of(
        await session.call_tool(
            "evaluate_with_llm_judge", {"output": "x", "template": "accuracy", "model": "gpt-4o"}
        )
    )
    assert judged["code"] == "IRIS_JUDGE_NOT_ENABLED"
    cited = error_of(
        await session.call_tool("verify_citations", {"output": "see [1]", "model": "gpt-4o"})
    )
    assert cited["code"] == "IRIS_JUDGE_NOT_ENABLED"
    assert (
        error_of(await session.call_tool("verify_citations", {"output": "x"}))["code"]
        == "IRIS_INVALID_ARGUMENT"
    )

    # runs
    reeval = structured(await session.call_tool("evaluate_runs", {"run": "r1"}))
    assert reeval["evaluated"] == 1 and reeval["run"].startswith("r1+reeval-")
    again = structured(await session.call_tool("evaluate_runs", {"run": "r1"}))
    assert again["evaluated"] == 0 and again["already_current"] == 1
    bad_group = error_of(await session.call_tool("compare_traces", {"group_by": "agent"}))
    assert bad_group["code"] == "IRIS_INVALID_ARGUMENT"
    flaky = structured(await session.call_tool("compare_traces", {"run": "r1"}))
    assert flaky["cases"] == 1 and flaky["attempts"] == 1
    compared = structured(
        await session.call_tool("compare_runs", {"before": "r1", "after": reeval["run"]})
    )
    assert compared["comparable"] is True
    assert compared["call"] in ("worse", "better", "equivalent", "undetermined")
    assert (
        error_of(await session.call_tool("compare_runs", {"after": "r1"}))["code"]
        == "IRIS_INVALID_ARGUMENT"
    )
    assert (
        error_of(await session.call_tool("evaluate_runs", {"run": "no-such-run"}))["code"]
        == "IRIS_INVALID_ARGUMENT"
    )

    # resources
    fixed = {str(r.uri) for r in (await session.list_resources()).resources}
    templates = {
        t.uri_template for t in (await session.list_resource_templates()).resource_templates
    }
    assert fixed == {
        "iris://capabilities",
        "iris://proof",
        "iris://dashboard/summary",
        "iris://audit",
    }
    assert templates == {"iris://evaluations/{id}", "iris://traces/{trace_id}"}
    capabilities = json.loads((await session.read_resource("iris://capabilities")).contents[0].text)
    assert set(capabilities["tools"]) == TOOLS and capabilities["judge"]["enabled"] is False
    trace = json.loads((await session.read_resource(f"iris://traces/{trace_id}")).contents[0].text)
    assert trace["trace"]["trace_id"] == trace_id and trace["evals"]
    evaluation = json.loads(
        (await session.read_resource(f"iris://evaluations/{evaluated['id']}")).contents[0].text
    )
    assert evaluation["verdict"] == evaluated["verdict"]
    audit = json.loads((await session.read_resource("iris://audit")).contents[0].text)
    assert [e["action"] for e in audit["entries"]][:3] == [
        "rule.delete",
        "rule.toggle",
        "rule.deploy",
    ]
    assert json.loads((await session.read_resource("iris://proof")).contents[0].text)["rules"]
    assert "total_traces" in json.loads(
        (await session.read_resource("iris://dashboard/summary")).contents[0].text
    )
    with pytest.raises(MCPError):
        await session.read_resource("iris://evaluations/eval_missing")
    with pytest.raises(MCPError):
        await session.read_resource("iris://nothing")

    # delete_trace last: its evaluations keep verdicts, lose text
    assert (
        error_of(await session.call_tool("delete_trace", {"trace_id": "XYZ"}))["code"]
        == "IRIS_INVALID_ARGUMENT"
    )
    assert (
        structured(await session.call_tool("delete_trace", {"trace_id": trace_id}))["deleted"]
        is True
    )
    assert (
        structured(await session.call_tool("delete_trace", {"trace_id": trace_id}))["deleted"]
        is False
    )

    prompt = await session.get_prompt("evaluate-my-agent", {"what": "output"})
    assert "log_trace" in prompt.messages[0].content.text


@pytest.mark.slow
def test_every_tool_over_stdio(tmp_path: Path, db_url: str) -> None:
    async def main() -> None:
        async with stdio_session(tmp_path, db_url) as session:
            await walk_every_tool(session)

    anyio.run(main)


@pytest.mark.slow
def test_every_tool_over_streamable_http(tmp_path: Path, db_url: str) -> None:
    async def main() -> None:
        async with http_session(tmp_path, db_url, "mcp-k3y") as session:
            await walk_every_tool(session)

    anyio.run(main)
