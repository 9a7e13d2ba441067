"""A process pool for synchronous evaluations (evaluate_output, evaluate: true).

The engine is CPU-bound Python; running it on the event loop would stall every
receiver. Callers await a future from this pool instead (DESIGN decision 5).
Deployed rules travel as their stored entries (plain dicts) and are compiled
once per process, keyed by content.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from evaluators.custom.definition import CustomRuleDef, revalidate
from evaluators.engine import evaluate
from evaluators.request import EvaluationRequest
from service.evaluation import engine_config, now_iso
from service.parentwatch import end_with_parent

_compiled: dict[str, list[CustomRuleDef]] = {}


def _deployed(entries: list[dict[str, Any]]) -> list[CustomRuleDef]:
    key = hashlib.sha256(json.dumps(entries, sort_keys=True, default=str).encode()).hexdigest()
    rules = _compiled.get(key)
    if rules is None:
        rules, _ = revalidate(entries)
        if len(_compiled) > 64:
            _compiled.clear()
        _compiled[key] = rules
    return rules


def _stamped(request: EvaluationRequest) -> EvaluationRequest:
    """Requests carry the clock; stamp the ones that came without."""
    if request.judged_at is not None:
        return request
    return dataclasses.replace(request, judged_at=now_iso())


def run_request(request: EvaluationRequest, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Executed in a pool process."""
    return evaluate(_stamped(request), engine_config(), _deployed(entries))


def run_many(
    requests: list[EvaluationRequest], entries: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Executed in a pool process: one round trip for many requests."""
    config = engine_config()
    deployed = _deployed(entries)
    return [evaluate(_stamped(r), config, deployed) for r in requests]


class EnginePool:
    def __init__(self, processes: int = 1):
        self.processes = max(1, processes)
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=end_with_parent,  # it would wait on its queue forever
            )
        return self._pool

    async def _run(self, fn: Any, *args: Any) -> Any:
        """Run in the pool; a pool broken by a dead process is rebuilt once."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor(), fn, *args)
        except BrokenProcessPool:
            self.shutdown()
            return await loop.run_in_executor(self._executor(), fn, *args)

    async def evaluate(
        self, request: EvaluationRequest, entries: list[dict[str, Any]]
    ) -> dict[str, Any]:
        result: dict[str, Any] = await self._run(run_request, request, entries)
        return result

    async def evaluate_many(
        self, requests: list[EvaluationRequest], entries: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        if not requests:
            return []
        results: list[dict[str, Any]] = await self._run(run_many, requests, entries)
        return results

    def shutdown(self, *, wait: bool = False) -> None:
        """Stop the pool's processes; ``wait`` until they have exited (the
        service's last step: its processes must not outlive it)."""
        if self._pool is not None:
            self._pool.shutdown(wait=wait, cancel_futures=True)
            self._pool = None
