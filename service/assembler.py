"""The assembler daemon: turns open OTLP traces into ready ones.

Every sweep finds traces that are due (see :mod:`storage.assembly`), marks
them ready and queues one job per (trace, revision) in the same transaction.
Workers then derive the trace's fields from its spans and, when evaluation is
wanted, judge it: the receivers' event loop never does either.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import timedelta

from sqlalchemy import Engine

from service.settings import Settings
from storage import assembly, codec
from storage.writer import GroupCommitWriter
from storage.writeturn import write_turn

log = logging.getLogger("iris.assembler")
SWEEP_LIMIT = 500
# The shortest sleep between sweeps: what batching readied traces may add to
# a trace's delay, traded against a transaction per sweep.
MIN_SLEEP_S = 0.1


def sweep_job(settings: Settings, *, limit: int = SWEEP_LIMIT) -> assembly.SweepWrite:
    """One pass, as a write job (see ``storage.assembly.SweepWrite``)."""
    return assembly.SweepWrite(
        grace=timedelta(milliseconds=settings.assembly_grace_ms),
        idle=timedelta(milliseconds=settings.assembly_idle_ms),
        default_evaluate=settings.evaluate_on_ingest,
        max_revision=1 + settings.max_reevaluations,
        limit=limit,
    )


def sweep_once(engine: Engine, settings: Settings, *, limit: int = SWEEP_LIMIT) -> int:
    """One pass in a transaction of its own; returns how many traces became ready."""
    with write_turn(engine), engine.begin() as conn:
        (readied,) = assembly.SweepWrite.apply_group(conn, [sweep_job(settings, limit=limit)])
        return int(readied)


def next_sweep_in(engine: Engine, settings: Settings, *, longest: float) -> float:
    """Seconds until the earliest open trace is due, within [MIN_SLEEP_S, longest]
    (``longest`` alone when it is the shorter)."""
    with engine.connect() as conn:
        due = assembly.next_due(
            conn,
            grace=timedelta(milliseconds=settings.assembly_grace_ms),
            idle=timedelta(milliseconds=settings.assembly_idle_ms),
        )
    if due is None:
        return longest
    wait = (due - codec.utcnow()).total_seconds()
    return max(min(MIN_SLEEP_S, longest), min(wait, longest))


class Assembler:
    """Sweeps when the earliest open trace falls due (see :func:`next_sweep_in`),
    at most every ``MIN_SLEEP_S`` and at least every ``interval_s``; a full
    sweep is followed by another at once."""

    def __init__(
        self,
        engine: Engine,
        settings: Settings,
        *,
        writer: GroupCommitWriter | None = None,
    ):
        self.engine = engine
        self.settings = settings
        # Where a sweep's write runs: the receiver's writer on SQLite (the
        # sweep joins its next transaction, see ``SweepWrite``), so the two
        # never contend for the one write lock; else a thread of its own.
        self.writer = writer
        # The longest sleep: also bounds how late a trace is seen whose spans
        # were written by another process after the last look.
        self.interval_s = max(0.05, min(settings.assembly_grace_ms / 4000, 0.5))
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self.readied = 0

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="iris-assembler")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def wake(self) -> None:
        self._wake.set()

    async def _sweep(self) -> int:
        if self.writer is not None:
            return int(await self.writer.submit(sweep_job(self.settings)))
        return await asyncio.to_thread(sweep_once, self.engine, self.settings)

    async def _run(self) -> None:
        while True:
            try:
                while True:
                    done = await self._sweep()
                    self.readied += done
                    if done < SWEEP_LIMIT:
                        break
                wait = await asyncio.to_thread(
                    next_sweep_in, self.engine, self.settings, longest=self.interval_s
                )
            except Exception:
                log.exception("assembler sweep failed; retrying")
                wait = self.interval_s
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), wait)
