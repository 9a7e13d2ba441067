"""Engine cost by phase, best of several passes: steadier than one bench pass.

``engine_bench.py`` times one pass over its 500 cases; on a shared machine a
single pass moves by more than a 10 % change. This prints, each as the best
of ``--passes`` passes over the same cases in one process:

* the mean CPU cost of each built-in rule and of all of them (shared context,
  registry order, as in the engine);
* the mean CPU cost of a whole ``evaluate()``;
* the mean CPU cost of assembly alone: ``evaluate()`` with each rule replaying
  the outcome it computed beforehand, so only the context, composer, risk and
  result assembly run.

The cases are ``engine_bench.py``'s varied ones (``--fixed``: the repeating
vocabulary of earlier rounds). Compare two trees by running it on each, alternately, a few times:
``PYTHONPATH=<tree> python bench/engine_phases.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_bench import add_vocabulary_flag, make_cases

from evaluators import engine
from evaluators.config import EngineConfig
from evaluators.context import EvalContext
from evaluators.request import EvaluationRequest
from evaluators.rules.base import Outcome, RuleSpec
from evaluators.rules.registry import RULES

CLOCK = time.thread_time


def _best(passes: int, run: Callable[[], None]) -> float:
    best = float("inf")
    for _ in range(passes):
        t0 = CLOCK()
        run()
        best = min(best, CLOCK() - t0)
    return best


def rule_costs(cases: list[EvaluationRequest], cfg: EngineConfig, passes: int) -> dict[str, float]:
    """Best-of-``passes`` seconds spent in each rule over all cases."""
    best = dict.fromkeys((s.name for s in RULES), float("inf"))
    for _ in range(passes):
        spent = dict.fromkeys(best, 0.0)
        for c in cases:
            ctx = EvalContext(c, cfg)
            for spec in RULES:
                t0 = CLOCK()
                engine._run_builtin(spec, ctx)
                spent[spec.name] += CLOCK() - t0
        for name, v in spent.items():
            best[name] = min(best[name], v)
    return best


def assembly_cost(cases: list[EvaluationRequest], cfg: EngineConfig, passes: int) -> float:
    """Best-of-``passes`` seconds of ``evaluate()`` with the rules replayed."""
    outcomes = []
    for c in cases:
        ctx = EvalContext(c, cfg)
        outcomes.append({s.name: engine._run_builtin(s, ctx) for s in RULES})
    current: dict[str, Outcome] = {}

    def replay(spec: RuleSpec, ctx: EvalContext) -> Outcome:
        return current[spec.name]

    def run() -> None:
        nonlocal current
        for c, outs in zip(cases, outcomes, strict=True):
            current = outs
            engine.evaluate(c, cfg)

    real = engine._run_builtin
    engine._run_builtin = replay
    try:
        return _best(passes, run)
    finally:
        engine._run_builtin = real


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--passes", type=int, default=3)
    add_vocabulary_flag(ap)
    args = ap.parse_args()
    cases = make_cases(varied=not args.fixed)
    cfg = EngineConfig()
    for c in cases:  # warm caches (compiled patterns, risk draws, templates)
        engine.evaluate(c, cfg)
    n = len(cases)
    rules = rule_costs(cases, cfg, args.passes)

    def evaluate_all() -> None:
        for c in cases:
            engine.evaluate(c, cfg)

    whole = _best(args.passes, evaluate_all)
    assembly = assembly_cost(cases, cfg, args.passes)
    print(f"{'rule':26s} cpu µs/eval (best of {args.passes})")
    for name, v in sorted(rules.items(), key=lambda kv: -kv[1]):
        print(f"{name:26s} {v * 1e6 / n:7.0f}")
    print(f"{'(all rules)':26s} {sum(rules.values()) * 1e6 / n:7.0f}")
    print(f"{'(evaluate)':26s} {whole * 1e6 / n:7.0f}")
    print(f"{'(assembly alone)':26s} {assembly * 1e6 / n:7.0f}")


if __name__ == "__main__":
    main()
