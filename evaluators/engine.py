"""Public API: :func:`evaluate` one request into the evaluate_output result.

The engine is pure: no clock, no I/O, no network. ``judgedAt`` comes from the
request (or the config) so identical inputs give a byte-identical result;
the caller — service, CLI, proof harness — supplies the time. Storage-minted
fields (``id``, ``trace_id``) are added by the caller.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any, cast

from evaluators.composer import (
    Composition,
    categories,
    compose,
    coverage,
    interpretations,
    question_notes,
    skips_why,
    unjudged_questions,
)
from evaluators.config import NEEDS, EngineConfig
from evaluators.context import EvalContext
from evaluators.custom.definition import CustomRuleDef, InvalidRuleConfig, validate_definition
from evaluators.custom.run import RegexBudget, run_custom
from evaluators.judged import Judged
from evaluators.proof import figures
from evaluators.request import EvaluationRequest
from evaluators.risk import class_prior, rule_ppv_interval
from evaluators.rules.base import MAX_EVIDENCE_ITEMS, Outcome, RuleSpec, skip
from evaluators.rules.registry import BUNDLES, RULES, effective_critical, rules_for
from evaluators.splitresults import RuleDescription, SplitResults, copy_tree
from evaluators.stats import r4

# The compiled result builder (evaluators/_resultkernel.c); absent when the
# package was installed without a C compiler.
try:
    from evaluators import _resultkernel
except ImportError:  # pragma: no cover - exercised by the fallback test
    _resultkernel = None  # type: ignore[assignment]

__all__ = [
    "EngineConfig",
    "EvaluationRequest",
    "evaluate",
    "evaluate_for_storage",
    "ruleset_hash",
]

_DEFAULT_CONFIG: EngineConfig | None = None
_SUGGESTIONS: dict[str, str] = {
    "min_output_length": "Give a fuller answer: the output is shorter than the minimum length.",
    "non_empty_output": "Return an answer: the output is empty.",
    "sentence_count": "Answer in complete sentences.",
    "expected_coverage": "Cover the points of the expected answer.",
    "ask_coverage": "Answer every declared part of the ask.",
    "says_something": "Answer the ask instead of acknowledging, refusing, echoing or repeating.",
    "tool_sequence": "Call the expected tools in the expected order.",
    "valid_tool_arguments": "Call only catalogue tools, with arguments their schema accepts.",
    "keyword_overlap": "Address the terms of the ask.",
    "topic_consistency": "Stay on the ask's topic.",
    "answers_the_ask": "Answer this ask, not another.",
    "tool_choice": "Use the catalogue tool that serves the ask.",
    "no_pii": "Remove personal data and secrets from the output.",
    "no_injection_patterns": "Remove injection-shaped directives from the output.",
    "no_blocklist_words": "Remove prohibited phrases from the output.",
    "no_injection_compliance": "Do not act on instructions found inside tool results.",
    "no_hallucination_markers": "Only state what the supplied material supports.",
    "grounded_in_reads": "Cite only locations the agent actually read or was given.",
    "no_stub_output": "Deliver the work instead of placeholders or promises.",
    "no_silent_tool_failure"
    "": "Say when a tool call failed instead of answering as if it succeeded.",
    "cost_under_threshold": "Reduce the run's cost below the threshold.",
    "verbosity_ratio": "Answer more concisely.",
    "no_tool_loop": "Stop repeating the same tool calls.",
    "max_steps": "Finish in fewer tool calls.",
    "cost_anomaly": "Investigate why this run cost far more than this agent usually does.",
    "step_budget": "Finish within the expected step budget.",
}


def _canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def _sha(obj: Any) -> str:
    return hashlib.sha256(_canon(obj).encode("utf-8")).hexdigest()


def ruleset_hash(deployed: Sequence[CustomRuleDef] = ()) -> str:
    """sha256 over built-in names+versions and enabled deployed definitions+severity."""
    return _sha(
        {
            "builtin": [[s.name, s.version] for s in RULES],
            "custom": sorted((_canon(d.canonical()) for d in deployed if d.enabled), key=str),
        }
    )


# Provenance hashes depend only on their (immutable) inputs, so they are
# computed once per distinct ruleset / config object rather than per call.
_RULESET_HASHES: dict[tuple[CustomRuleDef, ...], str] = {}
_CONFIG_HASH: list[tuple[EngineConfig, str]] = []


def _ruleset_hash_cached(deployed: Sequence[CustomRuleDef]) -> str:
    key = tuple(deployed)
    try:
        h = _RULESET_HASHES.get(key)
    except TypeError:  # an unhashable definition: no caching
        return ruleset_hash(deployed)
    if h is None:
        h = ruleset_hash(deployed)
        if len(_RULESET_HASHES) >= 64:
            _RULESET_HASHES.clear()
        _RULESET_HASHES[key] = h
    return h


def _config_hash(config: EngineConfig) -> str:
    if _CONFIG_HASH and _CONFIG_HASH[0][0] is config:
        return _CONFIG_HASH[0][1]
    h = _sha(config.canonical())
    _CONFIG_HASH[:] = [(config, h)]
    return h


def _run_builtin(spec: RuleSpec, ctx: EvalContext) -> Outcome:
    for need in spec.requires:
        if not ctx.has(need):
            reason = ctx.steps_skip_reason() if need == "tool_calls" else f"not supplied: {need}"
            return skip(reason, lacked=(need,))
    try:
        return spec.check(ctx)
    except Exception as exc:  # a rule bug must skip that rule, never take the evaluation down
        return skip(f"rule raised {type(exc).__name__}: {str(exc)[:120]}", "config_invalid")


def _inline_rules(raw: Sequence[Mapping[str, Any]]) -> list[CustomRuleDef | tuple[str, str]]:
    out: list[CustomRuleDef | tuple[str, str]] = []
    for r in raw:
        try:
            out.append(validate_definition(r, origin="inline"))
        except InvalidRuleConfig as exc:
            out.append((str(r.get("name") or r.get("type") or "inline_rule"), str(exc)))
    return out


# (rule, prior) -> (counts it was computed for, rounded prior, rounded interval)
_INTERVALS: dict[tuple[str, float], tuple[object, float, tuple[float, ...]]] = {}


def _rounded_interval(rule: str, pi_class: float, c: object) -> tuple[float, tuple[float, ...]]:
    """``rule_ppv_interval`` rounded for publication, kept while the published
    counts object is the same one (``figures.reload`` replaces it)."""
    hit = _INTERVALS.get((rule, pi_class))
    if hit is not None and hit[0] is c:
        return hit[1], hit[2]
    iv = rule_ppv_interval(rule, pi_class)
    assert iv is not None
    pi_r, rounded = r4(pi_class), tuple(r4(x) for x in iv)
    if len(_INTERVALS) >= 4096:
        _INTERVALS.clear()
    _INTERVALS[(rule, pi_class)] = (c, pi_r, rounded)
    return pi_r, rounded


# Read-only uncertainties that depend on nothing but their kind.
_POLICY_UNCERTAINTY: dict[str, Any] = {"basis": "policy"}
_UNKEYED_UNCERTAINTY: dict[str, Any] = {"basis": "unmeasured", "why": "no keyed run"}
_UNPUBLISHED_UNCERTAINTY: dict[str, Any] = {"basis": "unmeasured", "why": "no published family"}
# rule -> (counts it was computed for, its ``definition`` uncertainty). Read-only.
_DEFINITIONS: dict[str, tuple[object, dict[str, Any]]] = {}


def _uncertainty_template(j: Judged, cfg: EngineConfig, pi_class: float) -> dict[str, Any]:
    """A rule result's ``uncertainty``, read-only (shared between calls):
    callers copy it with ``_copy_tree`` so every result owns its dicts."""
    if j.kind in ("policy", "judgment") or j.origin != "builtin":
        return (
            _POLICY_UNCERTAINTY
            if j.kind == "policy" or j.origin != "builtin"
            else _UNKEYED_UNCERTAINTY
        )
    c = figures.counts(j.name)
    if c is None:
        return _UNPUBLISHED_UNCERTAINTY
    if j.kind in ("detection", "inference"):
        return _published_template(j.name, j.fired, cfg, pi_class, c)
    hit = _DEFINITIONS.get(j.name)
    if hit is not None and hit[0] is c:
        return hit[1]
    t = {"basis": "definition", "conformance": {"n": c.n, "matched": c.tp + c.tn}}
    _DEFINITIONS[j.name] = (c, t)
    return t


def _copy_tree(d: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``d`` whose dict values, at any depth, are copies too."""
    return {k: _copy_tree(v) if type(v) is dict else v for k, v in d.items()}


def _published_dict(
    rule: str, fired: bool, cfg: EngineConfig, pi_class: float, c: figures.Counts
) -> dict[str, Any]:
    """The ``published_accuracy`` uncertainty of one detector, built afresh."""
    pi_r, iv = _rounded_interval(rule, pi_class, c)
    return {
        "basis": "published_accuracy",
        "fired": fired,
        "prior": {"pi": pi_r, "source": "default" if cfg.prior == 0.5 else "config"},
        "corpus": {
            "n": c.n,
            "tp": c.tp,
            "fp": c.fp,
            "fn": c.fn,
            "tn": c.tn,
            "version": c.version,
            "release": c.release,
            "labelling": "same-model",
        },
        "ppv": {"point": iv[0], "lo": iv[1], "hi": iv[2]},
        "missRate": {"point": iv[3], "lo": iv[4], "hi": iv[5]},
    }


# (rule, fired, prior is the default, prior) -> (counts, uncertainty)
_PUBLISHED: dict[tuple[str, bool, bool, float], tuple[object, dict[str, Any]]] = {}


def _published_template(
    rule: str, fired: bool, cfg: EngineConfig, pi_class: float, c: figures.Counts
) -> dict[str, Any]:
    """``_published_dict`` kept while the published counts object is the same
    one (``figures.reload`` replaces it): of the config it reads only whether
    the prior is the default, which is in the key. Read-only; callers copy."""
    key = (rule, fired, cfg.prior == 0.5, pi_class)
    hit = _PUBLISHED.get(key)
    if hit is not None and hit[0] is c:
        return hit[1]
    tmpl = _published_dict(rule, fired, cfg, pi_class, c)
    if len(_PUBLISHED) >= 4096:
        _PUBLISHED.clear()
    _PUBLISHED[key] = (c, tmpl)
    return tmpl


def _result_dict(j: Judged, cfg: EngineConfig, pi_class: float) -> dict[str, Any]:
    """One rule result: the C ``fill`` for a built-in rule when it is built,
    else ``_result_dict_py``."""
    if _resultkernel is not None and j.origin == "builtin":
        return _resultkernel.fill(
            _builtin_template(j), j, _uncertainty_template(j, cfg, pi_class), MAX_EVIDENCE_ITEMS
        )
    return _result_dict_py(j, cfg, pi_class)


def _rule_results(
    rows: Sequence[_Row], results: list[Judged], cfg: EngineConfig, pi_class: float
) -> list[dict[str, Any]]:
    """Every rule result, in order: the built-ins (one per row, first), then
    the custom ones. Equal to ``_result_dict`` of each; a built-in's templates
    come from its row's memo, which costs one small-dict lookup where the
    template keys cost a ten-field tuple and three more lookups per rule."""
    if _resultkernel is None:
        return [_result_dict_py(j, cfg, pi_class) for j in results]
    fill = _resultkernel.fill
    source = figures.source()
    default_prior = cfg.prior == 0.5
    out = []
    for (_, _, parts), j in zip(rows, results, strict=False):  # customs follow
        o = j.outcome
        key = (j.role, not o.skipped and not o.passed, pi_class, default_prior)
        hit = parts.get(key)
        if hit is None or hit[0] is not source:
            if len(parts) >= 64:
                parts.clear()
            hit = parts[key] = (
                source,
                _builtin_template(j),
                _uncertainty_template(j, cfg, pi_class),
            )
        out.append(fill(hit[1], j, hit[2], MAX_EVIDENCE_ITEMS))
    for j in results[len(rows) :]:
        out.append(_result_dict_py(j, cfg, pi_class))
    return out


def _result_dict_py(j: Judged, cfg: EngineConfig, pi_class: float) -> dict[str, Any]:
    """One rule result, the reference of ``_resultkernel.fill``. A built-in
    rule's metadata fields come from a cached template (in the same key
    order); only the outcome's fields are set."""
    d = _builtin_template(j).copy() if j.origin == "builtin" else _metadata_fields(j)
    return _fill_py(
        d, j.outcome, j.classes, j.rule_id, j.asked, _uncertainty_template(j, cfg, pi_class)
    )


def _fill_py(
    d: dict[str, Any],
    o: Outcome,
    classes: tuple[str, ...],
    rule_id: str | None,
    asked: bool,
    uncertainty: dict[str, Any],
) -> dict[str, Any]:
    """Set the outcome's fields of the result ``d`` (a copy of the rule's
    metadata fields) for a Judged of these ``classes``, ``rule_id`` and
    ``asked``; ``uncertainty`` is copied in (``_copy_tree``)."""
    skipped = o.skipped
    d["verdict"] = "skipped" if skipped else ("pass" if o.passed else "fail")
    d["passed"] = bool(o.passed) if not skipped else False
    d["skipped"] = skipped
    d["score"] = round(_score(o), 4)  # r4, inlined: 26 results per evaluation
    d["message"] = o.message
    d["classes"] = list(classes)
    d["saw"] = list(o.saw)
    d["evidence"] = o.evidence[:MAX_EVIDENCE_ITEMS]
    d["uncertainty"] = _copy_tree(uncertainty)
    if rule_id:
        d["ruleId"] = rule_id
    if skipped:
        d["skipClass"] = o.skip_class
        d["skipReason"] = o.skip_reason
        if o.lacked:
            d["lacked"] = list(o.lacked)
    if o.budget_exceeded:
        d["budgetExceeded"] = True
    if o.config_invalid:
        d["configInvalid"] = True
    value = _value(o)
    if value is not None:
        d["value"] = value
    if asked:
        d["asked"] = True
    return d


def _metadata_fields(j: Judged) -> dict[str, Any]:
    """A result's keys in publication order, with the metadata filled in and
    the outcome's fields (``None`` here) left for ``_result_dict`` to set."""
    return {
        "rule": j.name,
        "ruleName": j.name,
        "verdict": None,
        "passed": None,
        "skipped": None,
        "score": None,
        "message": None,
        "category": j.bundle,
        "kind": j.kind,
        "mechanism": j.mechanism,
        "role": j.role,
        "question": j.question,
        "classes": None,
        "saw": None,
        "critical": j.critical,
        "criticalSource": j.critical_source,
        "origin": j.origin,
        "ruleVersion": j.version,
        "evidence": None,
        "uncertainty": None,
    }


# Metadata key of a built-in result -> its ``_metadata_fields``. Built-in
# metadata are str, bool and int values of fixed types, so equal keys give
# equal (and equally typed) fields. Read-only; callers copy.
_TEMPLATES: dict[tuple[Any, ...], dict[str, Any]] = {}


def _builtin_template(j: Judged) -> dict[str, Any]:
    key = (
        j.name,
        j.bundle,
        j.kind,
        j.mechanism,
        j.role,
        j.question,
        j.classes,
        j.critical,
        j.critical_source,
        j.version,
    )
    t = _TEMPLATES.get(key)
    if t is None:
        t = _metadata_fields(j)
        if len(_TEMPLATES) >= 4096:
            _TEMPLATES.clear()
        _TEMPLATES[key] = t
    return t


# The outcome a row's prototype Judged holds; every Judged made from it holds
# its own rule's outcome instead.
_PROTO_OUTCOME = Outcome(False, 0.0, "prototype")
# A built-in rule's result parts, kept per row: (role, fired, class prior,
# prior is the default) -> (the figures they were read from, the metadata
# template, the uncertainty template). Both templates are read-only.
_Parts = dict[tuple[str, bool, float, bool], tuple[object, dict[str, Any], dict[str, Any]]]
# One built-in rule of an eval type: its spec, the maker of its Judged from an
# outcome, and its result parts.
_Row = tuple[RuleSpec, partial[Judged], _Parts]
# (eval type, critical rules, non-critical rules) -> (the specs, their rows).
_ROWS: dict[
    tuple[str, tuple[str, ...], tuple[str, ...]], tuple[tuple[RuleSpec, ...], tuple[_Row, ...]]
] = {}


def _builtin_rows(eval_type: str, crit: tuple[str, ...], non: tuple[str, ...]) -> tuple[_Row, ...]:
    """Each built-in rule of ``eval_type`` with its ``Judged`` metadata bound,
    which depend only on the spec and the config's critical lists, and a memo
    of its result parts. Why: reading them (and ``effective_critical``) for 26
    rules on every call cost more than this lookup. Kept while ``rules_for``
    returns the same specs."""
    specs = rules_for(eval_type)
    key = (eval_type, crit, non)
    hit = _ROWS.get(key)
    if hit is not None and hit[0] == specs:  # tuple ==: identity first, in C
        return hit[1]
    rows: list[_Row] = []
    for spec in specs:
        is_crit, src = effective_critical(spec, crit, non)
        make = partial(Judged, *builtin_fields(spec, is_crit, src))
        if _resultkernel is not None:  # copies of a prototype: no Python __init__
            make = partial(_resultkernel.with_outcome, make(_PROTO_OUTCOME))
        rows.append((spec, make, {}))
    if len(_ROWS) >= 256:
        _ROWS.clear()
    _ROWS[key] = (specs, tuple(rows))
    return tuple(rows)


# A Judged's fields before its outcome: name, bundle, kind, mechanism,
# question, classes, needs, weight, critical, critical source, origin, version.
_Fields = tuple[
    str, str, str, str, str | None, tuple[str, ...], tuple[str, ...], float, bool, str, str, int
]


def builtin_fields(spec: RuleSpec, critical: bool, source: str) -> _Fields:
    """A built-in rule's ``Judged`` fields before its outcome, in order."""
    return (
        spec.name,
        spec.bundle,
        spec.kind,
        spec.mechanism,
        spec.question,
        spec.classes,
        spec.needs,
        spec.weight,
        critical,
        source,
        "builtin",
        spec.version,
    )


def evaluate(
    request: EvaluationRequest,
    config: EngineConfig | None = None,
    deployed_rules: Sequence[CustomRuleDef] = (),
    *,
    regex_budget_ms: float | None = None,
) -> dict[str, Any]:
    """Judge one output; return the evaluate_output result of SPEC §5.2
    (minus ``id``/``trace_id``, which storage mints)."""
    return _evaluate(request, config, deployed_rules, regex_budget_ms, None)


def evaluate_for_storage(
    request: EvaluationRequest,
    config: EngineConfig | None = None,
    deployed_rules: Sequence[CustomRuleDef] = (),
    *,
    static_keys: frozenset[str],
) -> dict[str, Any]:
    """``evaluate``'s result for a caller that stores it and lets it go: the
    same values, but read-only (parts of it are shared with later results),
    and its ``rule_results``, when every rule is built-in and the plan is
    known, a ``SplitResults`` whose descriptions hold the values of
    ``static_keys``; otherwise the whole list ``evaluate`` returns."""
    return _evaluate(request, config, deployed_rules, None, static_keys)


def _evaluate(
    request: EvaluationRequest,
    config: EngineConfig | None,
    deployed_rules: Sequence[CustomRuleDef],
    regex_budget_ms: float | None,
    static_keys: frozenset[str] | None,
) -> dict[str, Any]:
    """``evaluate``, or ``evaluate_for_storage`` when ``static_keys`` is given."""
    global _DEFAULT_CONFIG
    if config is None:
        if _DEFAULT_CONFIG is None:
            _DEFAULT_CONFIG = EngineConfig()
        config = _DEFAULT_CONFIG
    eval_type = request.eval_type or "all"
    ctx = EvalContext(request, config)
    crit, non = config.critical_rules, config.non_critical_rules

    rows = _builtin_rows(eval_type, crit, non) if eval_type != "custom" else ()
    run = _run_builtin
    if deployed_rules or request.custom_rules:
        results = [make(run(spec, ctx)) for spec, make, _ in rows]
        return _assemble(
            request, config, eval_type, deployed_rules, rows, results, ctx, regex_budget_ms
        )[0]
    # Only built-in rules: the planned assembly (see ``_plan_key``).
    outs = [run(spec, ctx) for spec, _, _ in rows]
    key = _plan_key(request, config, ctx, rows, outs)
    plan = _PLANS.get(key) if key is not None else None
    if type(plan) is _Plan and plan.rows is rows and plan.source is figures.source():
        if static_keys is not None:
            return _assemble_split(plan, outs, request, config, static_keys)
        return _assemble_planned(plan, outs, request, config)
    results = [make(o) for (_, make, _), o in zip(rows, outs, strict=True)]
    result, comp, _ = _assemble(request, config, eval_type, (), rows, results, ctx, None)
    if key is not None and plan is not _NO_PLAN:
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        _PLANS[key] = _make_plan(rows, results, result, comp, config, ctx.inputs_present)
    return result


def _assemble(
    request: EvaluationRequest,
    config: EngineConfig,
    eval_type: str,
    deployed_rules: Sequence[CustomRuleDef],
    rows: tuple[_Row, ...],
    results: list[Judged],
    ctx: EvalContext,
    regex_budget_ms: float | None,
) -> tuple[dict[str, Any], Composition, float]:
    """The reference assembly: the custom rules run, then the composer, and
    every part of the result is built from the judged rules. Also returns the
    composition and the class prior, which a plan is made from."""
    budget = RegexBudget(regex_budget_ms if regex_budget_ms is not None else 100.0)
    customs: list[CustomRuleDef | tuple[str, str]] = [
        d for d in deployed_rules if d.enabled and (eval_type == "all" or d.eval_type == eval_type)
    ]
    customs += _inline_rules(request.custom_rules)
    for item in customs:
        if isinstance(item, tuple):
            name, reason = item
            results.append(
                Judged(
                    name,
                    "custom",
                    "policy",
                    "formula",
                    None,
                    ("format",),
                    ("output",),
                    1.0,
                    False,
                    "default",
                    "inline",
                    1,
                    skip(f"invalid inline rule: {reason}", "config_invalid"),
                )
            )
            continue
        try:
            outcome = run_custom(item, ctx, budget)
        except Exception as exc:
            outcome = skip(f"custom rule raised {type(exc).__name__}", "config_invalid")
        bundle = item.eval_type if item.origin != "inline" else "custom"
        results.append(
            Judged(
                item.name,
                bundle,
                "policy",
                "pattern" if item.type.startswith("regex") else "formula",
                None,
                ("format",),
                ("output",),
                item.weight,
                item.critical,
                "default",
                item.origin,
                1,
                outcome,
                severity=item.severity,
                rule_id=item.rule_id,
            )
        )

    present = ctx.inputs_present
    comp = compose(results, config, present)
    bundles = (
        list(BUNDLES) if eval_type == "all" else ([eval_type] if eval_type != "custom" else [])
    )
    if (
        any(j.origin != "builtin" for j in results)  # j.is_custom
        and "custom" not in bundles
        and eval_type in ("all", "custom")
    ):
        bundles.append("custom")
    dormant = [
        {
            "ruleId": d.rule_id,
            "name": d.name,
            "reason": "disabled" if not d.enabled else "cost is never sent",
        }
        for d in deployed_rules
        if not d.enabled
    ]
    cov = coverage(results, present, dormant)
    # One pass over the judged rules: the weighted score (each sum from int 0,
    # left to right, as ``sum()`` gives it), the risk classes, the suggestions.
    evaluated: list[Judged] = []
    wsum: float = 0.0
    wscore: float = 0.0
    classes: set[str] = set()
    suggestions = []
    for j in results:
        o = j.outcome
        if o.skipped:
            continue
        evaluated.append(j)
        w = j.weight
        wsum += w
        wscore += o.score * w
        if j.kind in ("detection", "inference") and j.classes:
            classes.add(j.classes[0])
        if not o.passed:  # j.fired
            suggestions.append(
                _SUGGESTIONS.get(j.name, f"Make the output satisfy custom rule {j.name}.")
            )
    score = wscore / wsum if wsum else 0.0
    risk_classes = len(classes)
    pi_class = (
        comp.risk.pi_class
        if comp.risk
        else class_prior(config.prior, config.prior_mode, max(risk_classes, 1))
    )

    verdict: dict[str, Any] = {
        "state": comp.state,
        "passed": comp.state == "pass",
        "basis": comp.basis,
        "by": comp.by,
        "risk": {"pBad": r4(comp.risk.p_bad), "lo": r4(comp.risk.lo), "hi": r4(comp.risk.hi)}
        if comp.risk
        else None,
    }
    if comp.confidence:
        verdict["confidence"] = comp.confidence
        if comp.confidence_note:
            verdict["confidenceNote"] = comp.confidence_note
    if comp.also:
        verdict["also"] = [
            {"basis": a.basis, "state": a.state, "by": list(a.by)} for a in comp.also
        ]

    result: dict[str, Any] = {
        "eval_type": eval_type,
        "score": r4(score),
        "passed": comp.state == "pass",
        "verdict": verdict,
        "coverage": cov,
        "provenance": _provenance(
            config, deployed_rules, request.custom_config, request.judged_at or config.judged_at
        ),
        "rule_results": _rule_results(rows, results, config, pi_class),
        "suggestions": suggestions,
        "rules_evaluated": len(evaluated),
        "rules_skipped": len(results) - len(evaluated),
        "insufficient_data": not evaluated,
        "critical_failures": comp.critical_failures,
        "critical_skipped": comp.critical_skipped,
        "categories": categories(results, comp, bundles),
        "interpretations": interpretations(results, comp, cov, config),
    }
    if request.eval_type is None:
        result["note"] = (
            "eval_type was omitted: the default bundle set 'all' was used (every built-in bundle "
            "plus custom rules)."
        )
    return result, comp, pi_class


def _provenance(
    config: EngineConfig,
    deployed_rules: Sequence[CustomRuleDef],
    custom_config: Mapping[str, Any],
    judged_at: str,
) -> dict[str, Any]:
    """The result's ``provenance``, built afresh (its thresholds share the
    config's and the call's values, as they always have)."""
    per_rule: dict[str, Any] = {}
    for k, v in sorted(config.rule_thresholds.items()):
        per_rule[k] = {"value": list(v) if isinstance(v, tuple) else v, "source": "config"}
    for k, v in sorted(custom_config.items()):
        per_rule[k] = {"value": v, "source": "call"}
    return {
        "irisVersion": config.iris_version,
        "rulesetHash": _ruleset_hash_cached(deployed_rules),
        "configHash": _config_hash(config),
        "thresholds": {"default": config.default_threshold, "perRule": per_rule},
        "corpusVersion": figures.corpus_version(),
        "judgedAt": judged_at,
        "composer": {"rules": 2},
    }


# -- the planned assembly ---------------------------------------------------
#
# With only built-in rules, everything ``_assemble`` builds but the rule
# results, the scores, the provenance and the questions a skip reason explains
# depends on nothing but the plan key: the config (by its hash), the request's
# eval type, which inputs are present, and of each rule's outcome whether it
# was skipped, passed or asked, its skip class and lacked needs, whether it
# used a default threshold (where the composer asks) and what it saw (when the
# config requires evidence). No outcome text, score or evidence is in the key,
# so the key space is bounded by the rule roster. The first evaluation of a
# key runs ``_assemble`` and keeps its result as a skeleton; the next copy
# that skeleton and fill in only what the outcomes alone decide.


class _Plan:
    """What ``_assemble_planned`` needs of one plan key (read-only)."""

    __slots__ = ("cats", "ev", "groups", "n_notes", "rows", "skeleton", "source", "split", "whys")

    def __init__(
        self,
        rows: tuple[_Row, ...],
        skeleton: dict[str, Any],
        ev: tuple[tuple[int, ...], tuple[float, ...], float] | None,
        cats: tuple[tuple[str, tuple[int, ...], tuple[float, ...], float], ...],
        whys: tuple[tuple[int, str | None, tuple[int, ...]], ...],
        n_notes: int,
    ) -> None:
        self.rows = rows  # the rows it was made for (``_builtin_rows``)
        self.source = figures.source()  # the figures its uncertainties read
        self.skeleton = skeleton  # the result, but what the outcomes' own values give
        self.ev = ev  # (rows judged, their weights, the weight sum); None: sum 0
        self.cats = tuple(c[0] for c in cats)  # the bundles with a weight
        # the weighted means to compute: the result's (if any), each bundle's
        self.groups = ((ev,) if ev is not None else ()) + tuple(c[1:] for c in cats)
        self.whys = whys  # (position, question, its rows) explained by skip reasons
        self.n_notes = n_notes  # the question notes opening the interpretations
        self.split: _SplitPlan | None = None  # its rule results apart (``_split_plan``)


_NO_PLAN: Any = object()  # a key whose results always take ``_assemble``
# A plan holds ~45 KiB (a whole result); the benchmarks' varied cases have 158
# keys, the worker's 35: this bounds the memo near 23 MiB.
_MAX_PLANS = 512
_PLANS: dict[tuple[Any, ...], Any] = {}
# (rows, defaults gate) -> rows whose outcome's default-threshold use the composer reads
_UDT_ROWS: dict[tuple[int, bool], tuple[tuple[_Row, ...], tuple[bool, ...]]] = {}


def _udt_rows(rows: tuple[_Row, ...], defaults_gate: bool) -> tuple[bool, ...]:
    """Per row, whether ``compose`` reads ``uses_default_threshold`` of its
    outcome: a non-critical built-in policy rule when defaults do not gate."""
    hit = _UDT_ROWS.get((id(rows), defaults_gate))
    if hit is not None and hit[0] is rows:
        return hit[1]
    flags = tuple(
        spec.kind == "policy" and not make(_PROTO_OUTCOME).critical and not defaults_gate
        for spec, make, _ in rows
    )
    if len(_UDT_ROWS) >= 256:
        _UDT_ROWS.clear()
    _UDT_ROWS[(id(rows), defaults_gate)] = (rows, flags)
    return flags


def _score(o: Outcome) -> Any:
    """``o.score`` as the rule set it: an int stays an int (compiled, a read
    typed float would turn it into one, and round() would keep the float)."""
    return cast(Any, o).score


def _value(o: Outcome) -> Any:
    """``o.value`` as the rule set it (compiled, a read typed ``dict | None``
    would refuse anything else, where the interpreter and the kernel pass it on)."""
    return cast(Any, o).value


def _signature_py(
    outs: list[Outcome], udt_rows: tuple[bool, ...], want_saw: bool
) -> tuple[Any, ...]:
    """The reference of ``_resultkernel.signature``: per outcome a code (1
    skipped, 2 passed and not skipped, 4 asked, 8 uses a default threshold,
    asked only where ``udt_rows`` says, 16 budget exceeded, 32 config invalid,
    64 has a value), then its skip class and lacked needs when skipped, else
    its ``saw`` when ``want_saw``."""
    sig: list[Any] = []
    for o, udt in zip(outs, udt_rows, strict=True):
        skipped = bool(o.skipped)
        code = 1 if skipped else (2 if o.passed else 0)
        if o.asked:
            code |= 4
        if udt and any(
            e.get("type") == "count" and e.get("thresholdSource") == "default"
            for e in cast(Any, o).evidence  # Any: an item's own get, as the kernel asks
        ):
            code |= 8
        if o.budget_exceeded:
            code |= 16
        if o.config_invalid:
            code |= 32
        if _value(o) is not None:
            code |= 64
        sig.append(code)
        if skipped:
            sig.append(o.skip_class)
            sig.append(o.lacked)
        elif want_saw:
            sig.append(o.saw)
    return tuple(sig)


def _plan_key(
    request: EvaluationRequest,
    config: EngineConfig,
    ctx: EvalContext,
    rows: tuple[_Row, ...],
    outs: list[Outcome],
) -> tuple[Any, ...] | None:
    """The plan key of an evaluation of built-in rules only; None when some
    part of it cannot be hashed (then ``_assemble`` builds the result)."""
    udt = _udt_rows(rows, config.defaults_gate)
    want_saw = bool(config.required_evidence)
    k = _resultkernel
    sig = k.signature(outs, udt, want_saw) if k is not None else _signature_py(outs, udt, want_saw)
    present = tuple([ctx.has(n) for n in NEEDS])  # ``inputs_present``'s values
    key = (_config_hash(config), request.eval_type, present, sig)
    try:
        hash(key)
    except TypeError:  # an outcome's lacked or saw is not a tuple
        return None
    return key


def _make_plan(
    rows: tuple[_Row, ...],
    results: list[Judged],
    result: dict[str, Any],
    comp: Composition,
    config: EngineConfig,
    present: dict[str, bool],
) -> Any:
    """The plan of ``result``, which ``_assemble`` built from ``results``
    (built-in rules only, their roles set by the composer); ``_NO_PLAN``
    when nothing was judged (the interpretations then quote skip reasons)."""
    if comp.basis == "no_rules":
        return _NO_PLAN
    # The rule results keep what the key decides; their outcome-valued fields
    # (``_refill_py``) hold None until filled.
    own = dict.fromkeys(("skipped", "score", "message", "saw", "evidence"))
    rule_results = [
        {**d, **own, **{k: None for k in ("skipReason", "value") if k in d}}
        for d in result["rule_results"]
    ]
    # The provenance of a call without custom_config, but for the version
    # and the clock (the config hash leaves them out; ``_assemble_planned``
    # sets them).
    provenance = _provenance(config, (), {}, "")
    copy = _resultkernel.copy_json if _resultkernel is not None else _copy_json_py
    skeleton = copy({**result, "rule_results": rule_results, "provenance": provenance})

    def weights(idx: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[float, ...], float]:
        ws = tuple(results[i].weight for i in idx)
        total: float = 0.0
        for w in ws:  # from int 0, left to right, as ``_assemble`` sums
            total += w
        return idx, ws, total

    judged = tuple(i for i, j in enumerate(results) if not j.outcome.skipped)
    ev = weights(judged)
    cats = []
    for b in result["categories"]:
        c = weights(tuple(i for i in judged if results[i].bundle == b))
        if c[2]:
            cats.append((b, *c))
    whys = tuple(
        (pos, q, tuple(mine))
        for pos, q, mine, lacked in unjudged_questions(results, present)
        if mine and not lacked
    )
    return _Plan(
        rows,
        skeleton,
        ev if ev[2] else None,
        tuple(cats),
        whys,
        len(question_notes(result["coverage"]["questions"])),
    )


def _assemble_planned(
    plan: _Plan, outs: list[Outcome], request: EvaluationRequest, config: EngineConfig
) -> dict[str, Any]:
    """``_assemble``'s result for outcomes of ``plan``'s key: a copy of its
    skeleton with the parts the outcomes' own values decide filled in."""
    k = _resultkernel
    copy, refill = (k.copy_json, k.refill) if k is not None else (_copy_json_py, _refill_py)
    res = copy(plan.skeleton)
    _fill_planned(res, plan, outs, request, config)
    refill(res["rule_results"], outs, MAX_EVIDENCE_ITEMS)
    return res


def _fill_planned(
    res: dict[str, Any],
    plan: _Plan,
    outs: list[Outcome],
    request: EvaluationRequest,
    config: EngineConfig,
) -> None:
    """Set in ``res`` (a copy of ``plan``'s skeleton: at least its score,
    categories' rows, coverage questions and provenance its own) what the
    outcomes decide, but for the rule results."""
    means = _resultkernel.means if _resultkernel is not None else _means_py
    if plan.groups:
        scores = means(outs, plan.groups)
        if plan.ev is not None:
            res["score"] = scores[0]
        rows = res["categories"]
        for b, score in zip(plan.cats, scores[plan.ev is not None :], strict=True):
            rows[b]["score"] = score
    if plan.whys:
        questions = res["coverage"]["questions"]
        for pos, q, mine in plan.whys:
            why = skips_why([outs[i].skip_reason for i in mine])
            questions[pos] = {"id": q, "status": "unjudged", "why": why}
        res["interpretations"] = question_notes(questions) + res["interpretations"][plan.n_notes :]
    judged_at = request.judged_at or config.judged_at
    if request.custom_config:
        res["provenance"] = _provenance(config, (), request.custom_config, judged_at)
    else:
        provenance = res["provenance"]
        provenance["irisVersion"] = config.iris_version
        provenance["judgedAt"] = judged_at


# A plan's rule results apart, for one set of static keys: (the static keys,
# the descriptions, per rule its other values as the skeleton holds them, and
# per rule the positions among them of the values its outcome gives:
# skipped, score, message, saw, evidence, skipReason, value; -1 where absent).
_Slots = tuple[int, int, int, int, int, int, int]
_SplitPlan = tuple[
    frozenset[str], tuple[RuleDescription, ...] | None, tuple[list[Any], ...], tuple[_Slots, ...]
]
_OWN_KEYS = ("skipped", "score", "message", "saw", "evidence", "skipReason", "value")


def _split_plan(skeleton: list[dict[str, Any]], static_keys: frozenset[str]) -> _SplitPlan:
    """The plan's rule results apart (``evaluators.splitresults``); no
    descriptions when an outcome-valued key is static or a key is not a
    string (then the result is built whole)."""
    descriptions: list[RuleDescription] = []
    templates: list[list[Any]] = []
    slots: list[_Slots] = []
    for d in skeleton:
        keys = tuple(d)
        if any(type(key) is not str for key in keys) or static_keys.intersection(_OWN_KEYS):
            return static_keys, None, (), ()
        desc = RuleDescription(keys, static_keys, d)
        where = {key: i for i, key in enumerate(desc.dynamic_keys)}
        sl = tuple(where.get(key, -1) for key in _OWN_KEYS)
        if min(sl[:5]) < 0:  # a planned result holds these five (``_make_plan``)
            return static_keys, None, (), ()
        descriptions.append(desc)
        templates.append([d[key] for key in desc.dynamic_keys])
        slots.append(cast(_Slots, sl))
    return static_keys, tuple(descriptions), tuple(templates), tuple(slots)


def _assemble_split(
    plan: _Plan,
    outs: list[Outcome],
    request: EvaluationRequest,
    config: EngineConfig,
    static_keys: frozenset[str],
) -> dict[str, Any]:
    """``_assemble_planned``'s result, read-only, its rule results a
    ``SplitResults``: what skips the copy of the skeleton and of its rule
    results' static values (~45 KiB of dicts and lists), which a storing
    caller would only take apart again. Every part of the result it does not
    set is the plan's own, shared: safe because the caller (storage) only
    encodes it; ``evaluate`` never returns this form."""
    split = plan.split
    if split is None or not (split[0] is static_keys or split[0] == static_keys):
        split = plan.split = _split_plan(plan.skeleton["rule_results"], static_keys)
    descriptions = split[1]
    if descriptions is None:
        return _assemble_planned(plan, outs, request, config)
    skeleton = plan.skeleton
    res = dict(skeleton)  # the containers ``_fill_planned`` changes are copied
    if plan.groups:
        res["categories"] = {b: dict(row) for b, row in skeleton["categories"].items()}
    if plan.whys:
        coverage = skeleton["coverage"]
        res["coverage"] = {**coverage, "questions": list(coverage["questions"])}
    res["provenance"] = dict(skeleton["provenance"])
    _fill_planned(res, plan, outs, request, config)
    k = _resultkernel
    refill = k.refill_values if k is not None else _refill_values_py
    res["rule_results"] = SplitResults(
        descriptions, refill(split[2], split[3], outs, MAX_EVIDENCE_ITEMS)
    )
    return res


def _refill_values_py(
    templates: Sequence[list[Any]],
    slots: Sequence[_Slots],
    outs: list[Outcome],
    max_evidence: int,
) -> list[list[Any]]:
    """The reference of ``_resultkernel.refill_values``: per rule a copy of
    its values' template with the values its outcome gives set, as
    ``_refill_py`` sets them in a whole result."""
    out = []
    for t, (skipped, score, message, saw, evidence, reason, value), o in zip(
        templates, slots, outs, strict=True
    ):
        v = t.copy()
        v[skipped] = o.skipped
        v[score] = round(_score(o), 4)
        v[message] = o.message
        v[saw] = list(o.saw)
        v[evidence] = o.evidence[:max_evidence]
        if reason >= 0:
            v[reason] = o.skip_reason
        if value >= 0:
            v[value] = _value(o)
        out.append(v)
    return out


# The reference of ``_resultkernel.copy_json``: every exact dict and list, at
# any depth, a new one; other values shared.
_copy_json_py = copy_tree


def _means_py(
    outs: list[Outcome], groups: tuple[tuple[tuple[int, ...], tuple[float, ...], float], ...]
) -> list[float]:
    """The reference of ``_resultkernel.means``: each group's weighted mean
    score (``_weighted_py``), rounded for publication."""
    return [r4(_weighted_py(outs, *g)) for g in groups]


def _weighted_py(
    outs: list[Outcome], idx: tuple[int, ...], weights: tuple[float, ...], wsum: float
) -> float:
    """The reference of ``_resultkernel.weighted``: the weighted mean score
    of rows ``idx``, summed from int 0 left to right as ``_assemble`` sums."""
    wscore: float = 0.0
    for i, w in zip(idx, weights, strict=True):
        wscore += outs[i].score * w
    return wscore / wsum


def _refill_py(results: list[dict[str, Any]], outs: list[Outcome], max_evidence: int) -> None:
    """The reference of ``_resultkernel.refill``: set in each planned rule
    result the fields its outcome's own values give, as ``_fill_py`` sets
    them; the skip reason and value only where the result has those keys
    (which the plan key decides)."""
    for d, o in zip(results, outs, strict=True):
        d["skipped"] = o.skipped
        d["score"] = round(_score(o), 4)
        d["message"] = o.message
        d["saw"] = list(o.saw)
        d["evidence"] = o.evidence[:max_evidence]
        if "skipReason" in d:
            d["skipReason"] = o.skip_reason
        if "value" in d:
            d["value"] = _value(o)
