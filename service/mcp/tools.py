"""The twelve MCP tools: one table, each row calling the same service function
as its REST twin (so the two doors cannot drift)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from pydantic import BaseModel

from receivers.native import TraceBody
from service.mcp.schemas import OUTPUT_SCHEMAS
from service.operations import arguments as args
from service.operations import evaluations, judge, rules, runs, traces
from service.operations.evaluations import EvaluateBody
from service.operations.rules import DeployBody
from service.operations.traces import TracesQueryParams
from service.state import ServiceState

Handler = Callable[[ServiceState, dict[str, Any], dict[str, Any]], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    model: type[BaseModel]
    handler: Handler
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool = False

    def tool(self) -> types.Tool:
        schema = self.model.model_json_schema()
        schema.setdefault("additionalProperties", False)
        return types.Tool(
            name=self.name,
            title=self.title,
            description=self.description,
            input_schema=schema,
            output_schema=OUTPUT_SCHEMAS[self.name],
            annotations=types.ToolAnnotations(
                title=self.title,
                read_only_hint=self.read_only,
                destructive_hint=self.destructive,
                idempotent_hint=self.idempotent,
                open_world_hint=self.open_world,
            ),
        )


async def _log_trace(
    state: ServiceState, a: dict[str, Any], meta: dict[str, Any]
) -> dict[str, Any]:
    headers = {k: str(v) for k, v in meta.items() if k in ("traceparent", "tracestate", "baggage")}
    return await traces.log_trace(state, a, source="mcp", headers=headers)


async def _evaluate_output(
    state: ServiceState, a: dict[str, Any], _m: dict[str, Any]
) -> dict[str, Any]:
    return await evaluations.evaluate_output(state, a)


async def _get_traces(state: ServiceState, a: dict[str, Any], _m: dict[str, Any]) -> dict[str, Any]:
    return await traces.get_traces(state, a)


async def _list_rules(state: ServiceState, a: dict[str, Any], _m: dict[str, Any]) -> dict[str, Any]:
    return await rules.list_rules(state, a)


async def _deploy_rule(
    state: ServiceState, a: dict[str, Any], _m: dict[str, Any]
) -> dict[str, Any]:
    return await rules.deploy_rule(state, a, actor="mcp")


async def _delete_rule(
    state: ServiceState, a: dict[str, Any], _m: dict[str, Any]
) -> dict[str, Any]:
    return await rules.delete_rule(state, a["rule_id"], enabled=a.get("enabled"), actor="mcp")


async def _delete_trace(
    state: ServiceState, a: dict[str, Any], _m: dict[str, Any]
) -> dict[str, Any]:
    return await traces.delete_trace(state, a["trace_id"], actor="mcp")


async def _judge(state: ServiceState, a: dict[str, Any], _m: dict[str, Any]) -> dict[str, Any]:
    return await judge.evaluate_with_llm_judge(state, a)


async def _citations(state: ServiceState, a: dict[str, Any], _m: dict[str, Any]) -> dict[str, Any]:
    return await judge.verify_citations(state, a)


async def _compare_runs(
    state: ServiceState, a: dict[str, Any], _m: dict[str, Any]
) -> dict[str, Any]:
    return await runs.compare_runs(state, a)


async def _compare_traces(
    state: ServiceState, a: dict[str, Any], _m: dict[str, Any]
) -> dict[str, Any]:
    return await runs.compare_traces(state, a)


async def _evaluate_runs(
    state: ServiceState, a: dict[str, Any], _m: dict[str, Any]
) -> dict[str, Any]:
    return await runs.evaluate_runs(state, a)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "log_trace",
        "Log an agent run",
        "Store one agent execution (agent, input, output, tool calls, tokens, cost, spans) and "
        "return the trace_id every later call keys on. Only agent_name is required; send what you "
        "have: tool_calls feed the trajectory rules, cost_usd/token_usage the cost rules, "
        "input/output everything else. evaluate: true also scores it now and returns the "
        "evaluation. Never deduplicates: two calls store two traces. Not for transient log lines "
        "or for editing a trace (traces are write-once: delete_trace, then log again). Returns "
        "{trace_id, status: 'stored', evaluation?}. Errors: IRIS_INVALID_ARGUMENT (unknown or "
        "malformed key, named with the valid ones), IRIS_STORAGE_ERROR. Siblings: evaluate_output "
        "to score, get_traces to read back.",
        TraceBody,
        _log_trace,
        read_only=False,
        destructive=False,
        idempotent=False,
    ),
    ToolSpec(
        "evaluate_output",
        "Evaluate an output",
        "Run the deterministic rule bundles on one output: returns the ship/no-ship verdict and "
        "the layer that decided it, every rule's result with evidence offsets and its measured "
        "precision/recall, suggestions, and which of the seven questions were left unjudged. "
        "eval_type: completeness, relevance, safety, cost, custom or all (default all, with a "
        "note). input is needed for relevance; tool_calls (or a trace_id whose trace stored "
        "them) for trajectory rules; cost_usd/token_usage for cost rules. A rule without what it "
        "needs skips and says so — never counted as a pass. Stores one evaluation. Not for "
        "semantic judgment (evaluate_with_llm_judge) or screening inputs (rules read the "
        "output). Errors: IRIS_UNKNOWN_TRACE (checked first), IRIS_INVALID_ARGUMENT, "
        "IRIS_STORAGE_ERROR.",
        EvaluateBody,
        _evaluate_output,
        read_only=False,
        destructive=False,
        idempotent=False,
    ),
    ToolSpec(
        "get_traces",
        "Query stored traces",
        "Read stored traces with exact-match filters (agent_name, framework, run, session, "
        "case_key), inclusive since/until (ISO timestamp or date), a score range on each trace's "
        "latest evaluation, full-text q (all words, ranked, highlights), sort and pagination "
        "(limit 1..1000). Crossed ranges are refused quoting both bounds rather than answered "
        "with an empty page. Returns {traces, total (all pages), limit, offset, summary?}. "
        "No matches is total: 0, not an error. Errors: IRIS_INVALID_ARGUMENT, IRIS_STORAGE_ERROR. "
        "Siblings: iris://traces/{id} for one trace with spans and evaluations.",
        TracesQueryParams,
        _get_traces,
        read_only=True,
        destructive=False,
        idempotent=True,
    ),
    ToolSpec(
        "list_rules",
        "List rules",
        "The rule inventory: the 26 built-in rules (never filtered) with kind, mechanism, needs, "
        "question, effective criticality and published precision/recall; the deployed custom "
        "rules (filter with eval_type, enabled_only); and quarantined entries that no longer "
        "validate (inert, preserved). Built-ins cannot be deployed, deleted or disabled. "
        "Errors: IRIS_STORAGE_ERROR. Siblings: deploy_rule, delete_rule, iris://proof.",
        args.ListRulesArgs,
        _list_rules,
        read_only=True,
        destructive=False,
        idempotent=True,
    ),
    ToolSpec(
        "deploy_rule",
        "Deploy a custom rule",
        "Store a custom rule that runs on every later evaluation of its bundle (eval_type) and of "
        "'all', effective at once, with an audit record. severity low/medium only lowers the "
        "score; high/critical forces passed: false (basis policy_gate). Types: regex_match, "
        "regex_no_match, min_length, max_length, contains_keywords, excludes_keywords, "
        "json_schema, cost_threshold, action_policy. Regex patterns run on RE2 (linear time): "
        "backreferences and lookaround are refused, as are patterns over 1000 characters. Names "
        "are unique unless replace: true. Not for trying a rule (use the preview endpoint) or "
        "one-off checks (inline custom_rules of evaluate_output). Errors: IRIS_DUPLICATE_RULE, "
        "IRIS_INVALID_RULE_CONFIG, IRIS_INVALID_ARGUMENT.",
        DeployBody,
        _deploy_rule,
        read_only=False,
        destructive=False,
        idempotent=False,
    ),
    ToolSpec(
        "delete_rule",
        "Delete or toggle a custom rule",
        "Remove a deployed custom rule by rule_id, or with enabled: false/true switch it off or "
        "back on keeping its id and history. An unknown id answers deleted: false (not an "
        "error). Past evaluations are untouched; built-in rules cannot be removed. Returns "
        "{deleted, rule_id, toggled?, enabled?, rule?}. Errors: IRIS_INVALID_ARGUMENT "
        "(malformed id), IRIS_STORAGE_ERROR.",
        args.DeleteRuleArgs,
        _delete_rule,
        read_only=False,
        destructive=True,
        idempotent=True,
    ),
    ToolSpec(
        "delete_trace",
        "Delete a trace",
        "Remove one stored trace and its spans. In the same transaction every linked "
        "evaluation loses its text (output, expected, messages) and gets erased_at; verdicts, "
        "scores and evidence offsets remain. An unknown id answers deleted: false. An audit "
        "entry records the deletion without any text. Not for bulk removal by age (retention). "
        "Errors: IRIS_INVALID_ARGUMENT, IRIS_STORAGE_ERROR.",
        args.DeleteTraceArgs,
        _delete_trace,
        read_only=False,
        destructive=True,
        idempotent=True,
    ),
    ToolSpec(
        "evaluate_with_llm_judge",
        "Judge with an LLM",
        "Have a provider model grade one output with your own key (templates accuracy, "
        "helpfulness, safety, correctness, faithfulness, task_completed, relevance). The LLM "
        "judge is not available in this release: the tool answers IRIS_JUDGE_NOT_ENABLED with "
        "what to do instead (evaluate_output for deterministic checks). trace_id is still "
        "validated first (IRIS_UNKNOWN_TRACE). Nothing is spent or stored.",
        args.JudgeArgs,
        _judge,
        read_only=False,
        destructive=False,
        idempotent=False,
        open_world=True,
    ),
    ToolSpec(
        "verify_citations",
        "Verify citations",
        "Extract citations from an output, fetch the sources (SSRF-guarded, opt-in) and ask a "
        "judge whether each supports its claim. Needs the LLM judge, which is not available in "
        "this release: answers IRIS_JUDGE_NOT_ENABLED after validating trace_id "
        "(IRIS_UNKNOWN_TRACE). For outputs without citations the free hallucination signals of "
        "evaluate_output are the right check.",
        args.CitationsArgs,
        _citations,
        read_only=False,
        destructive=False,
        idempotent=False,
        open_world=True,
    ),
    ToolSpec(
        "compare_runs",
        "Compare two runs",
        "Did this change make the agent worse? Compares run 'after' with run 'before' (or the "
        "pinned baseline): paired when they share case keys (McNemar, paired Newcombe), "
        "unpaired otherwise, per-rule one-sided tests corrected together (Benjamini-Hochberg). "
        "Answers worse, better, equivalent (within equivalence_margin) or undetermined, with the "
        "sample size that would decide. Refuses runs that measured different things (rulesets, "
        "bundles) unless force. dataset restricts both to its case keys. Read-only, "
        "deterministic, no model call. Errors: IRIS_INVALID_ARGUMENT, IRIS_STORAGE_ERROR.",
        args.CompareRunsArgs,
        _compare_runs,
        read_only=True,
        destructive=False,
        idempotent=True,
    ),
    ToolSpec(
        "compare_traces",
        "Measure repeat reliability",
        "Is my agent flaky? Groups evaluations by case_key (or session), gives each case its pass "
        "rate with a Wilson interval, lists the cases answered both ways (least reliable "
        "first), and the overall rate over distinct cases with an exact interval — so one "
        "question asked ten times is not ten independent questions; the pooled rate is shown "
        "beside it. question restricts to one of the seven evaluation questions. No matching "
        "evaluations is cases: 0, not an error. Errors: IRIS_INVALID_ARGUMENT, IRIS_STORAGE_ERROR.",
        args.CompareTracesArgs,
        _compare_traces,
        read_only=True,
        destructive=False,
        idempotent=True,
    ),
    ToolSpec(
        "evaluate_runs",
        "Re-evaluate a run",
        "Evaluate every trace of a run again with today's rules into a separate run marked as a "
        "re-evaluation (default id <run>+reeval-<ruleset hash>), so a rule change cannot pass for "
        "an agent change; compare_runs then isolates it. The source run is never modified; a "
        "trace already judged by the current ruleset is skipped (a repeat does no work). "
        "Returns counts, failures with reasons and a summary. Errors: IRIS_INVALID_ARGUMENT, "
        "IRIS_STORAGE_ERROR.",
        args.EvaluateRunsArgs,
        _evaluate_runs,
        read_only=False,
        destructive=False,
        idempotent=True,
    ),
)

BY_NAME = {spec.name: spec for spec in TOOLS}
