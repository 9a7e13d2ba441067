"""The group-commit writer: many requests, one transaction, ack after commit.

Receivers hand a :class:`WriteJob` to :meth:`GroupCommitWriter.submit` and
await it; the future resolves only after the transaction holding the job has
committed, so an acknowledgement always means "stored" (DESIGN decision 1).
Throughput comes from coalescing: whatever arrives while one transaction
commits goes into the next one. Admission is bounded by spans and bytes in
flight, and beyond the bound ``submit`` raises :class:`Overloaded` at once
instead of queueing without limit (decision 2).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, ClassVar

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError, OperationalError

log = logging.getLogger("iris.writer")


class Overloaded(Exception):
    """More spans or bytes in flight than admission allows; retry later."""

    def __init__(self, reason: str, retry_after_s: int = 1):
        super().__init__(reason)
        self.reason = reason
        self.retry_after_s = retry_after_s


class StorageUnavailable(Exception):
    """The database refused the transaction (down, locked, out of space)."""


class WriteJob:
    """One request's worth of writes. Subclasses define how a group applies.

    ``apply_group`` receives every job of its class in one transaction, in
    arrival order, and returns one result per job.
    """

    spans: int = 0
    nbytes: int = 0
    kind: ClassVar[str] = "job"

    @classmethod
    def apply_group(cls, conn: Connection, jobs: Sequence[WriteJob]) -> list[Any]:
        raise NotImplementedError


@dataclass
class WriterStats:
    """Counters the metrics endpoint reads."""

    commits: int = 0
    jobs: int = 0
    spans: int = 0
    failures: int = 0
    refused: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    batch_sizes: list[int] = field(default_factory=list)
    commit_seconds: list[float] = field(default_factory=list)

    def record(self, jobs: int, spans: int, seconds: float) -> None:
        self.commits += 1
        self.jobs += jobs
        self.spans += spans
        self.batch_sizes.append(jobs)
        self.commit_seconds.append(seconds)
        if len(self.batch_sizes) > 4096:
            del self.batch_sizes[:2048]
            del self.commit_seconds[:2048]


@dataclass
class _Pending:
    job: WriteJob
    future: asyncio.Future[Any]


class GroupCommitWriter:
    def __init__(
        self,
        engine: Engine,
        *,
        max_batch_spans: int = 5000,
        max_delay_ms: float = 5.0,
        admission_max_spans: int = 200_000,
        admission_max_bytes: int = 256 * 1024 * 1024,
    ):
        self.engine = engine
        self.max_batch_spans = max_batch_spans
        self.max_delay_s = max_delay_ms / 1000
        self.admission_max_spans = admission_max_spans
        self.admission_max_bytes = admission_max_bytes
        self.stats = WriterStats()
        self._queue: asyncio.Queue[_Pending] | None = None
        self._task: asyncio.Task[None] | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="iris-writer")
        self._lock = threading.Lock()
        self._inflight_spans = 0
        self._inflight_bytes = 0
        self._closing = False

    # -- lifecycle ---------------------------------------------------------
    async def start(self) -> None:
        self._queue = asyncio.Queue()
        self._closing = False
        self._task = asyncio.create_task(self._run(), name="iris-group-commit")

    async def stop(self) -> None:
        """Commit everything already admitted, then stop."""
        self._closing = True
        if self._queue is not None and self._task is not None:
            await self._queue.join()
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._executor.shutdown(wait=True)

    @property
    def inflight(self) -> tuple[int, int]:
        return self._inflight_spans, self._inflight_bytes

    # -- admission ---------------------------------------------------------
    def _admit(self, job: WriteJob) -> None:
        with self._lock:
            if self._closing:
                self.stats.refused["shutting_down"] += 1
                raise Overloaded("the service is shutting down", retry_after_s=2)
            spans, nbytes = self._inflight_spans + job.spans, self._inflight_bytes + job.nbytes
            # A single job larger than the whole budget is still admitted when
            # nothing else is in flight, or it could never be written at all.
            busy = self._inflight_spans > 0 or self._inflight_bytes > 0
            if busy and spans > self.admission_max_spans:
                self.stats.refused["spans_in_flight"] += 1
                raise Overloaded(
                    f"{self._inflight_spans} spans are waiting to be written "
                    f"(limit {self.admission_max_spans})"
                )
            if busy and nbytes > self.admission_max_bytes:
                self.stats.refused["bytes_in_flight"] += 1
                raise Overloaded(
                    f"{self._inflight_bytes} bytes are waiting to be written "
                    f"(limit {self.admission_max_bytes})"
                )
            self._inflight_spans, self._inflight_bytes = spans, nbytes

    def _release(self, jobs: Sequence[WriteJob]) -> None:
        with self._lock:
            self._inflight_spans -= sum(j.spans for j in jobs)
            self._inflight_bytes -= sum(j.nbytes for j in jobs)

    async def submit(self, job: WriteJob) -> Any:
        """Write ``job``; return its result once committed.

        Raises Overloaded (nothing written) or StorageUnavailable.
        """
        if self._queue is None:
            raise RuntimeError("writer not started")
        self._admit(job)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self._queue.put(_Pending(job, future))
        return await future

    # -- the commit loop ---------------------------------------------------
    async def _run(self) -> None:
        assert self._queue is not None
        queue = self._queue
        loop = asyncio.get_running_loop()
        while True:
            first = await queue.get()
            batch = [first]
            spans = first.job.spans
            deadline = loop.time() + self.max_delay_s
            while spans < self.max_batch_spans:
                try:
                    item = queue.get_nowait()
                except asyncio.QueueEmpty:
                    remaining = deadline - loop.time()
                    if remaining <= 0:
                        break
                    try:
                        item = await asyncio.wait_for(queue.get(), remaining)
                    except TimeoutError:
                        break
                batch.append(item)
                spans += item.job.spans
            try:
                outcomes = await loop.run_in_executor(self._executor, self._commit, batch)
            except Exception as exc:  # never let the loop die
                log.exception("group commit crashed")
                outcomes = [exc] * len(batch)
            self._release([p.job for p in batch])
            for pending, outcome in zip(batch, outcomes, strict=True):
                if not pending.future.done():
                    if isinstance(outcome, BaseException):
                        pending.future.set_exception(outcome)
                    else:
                        pending.future.set_result(outcome)
                queue.task_done()

    def _commit(self, batch: list[_Pending]) -> list[Any]:
        """Apply a batch in one transaction; on failure retry each job alone,
        so one bad request cannot fail the requests it was grouped with."""
        jobs = [p.job for p in batch]
        started = time.perf_counter()
        try:
            results = self._apply(jobs)
        except Exception as exc:
            if len(jobs) == 1:
                self.stats.failures += 1
                return [_classify(exc)]
            results = []
            for job in jobs:
                try:
                    results.extend(self._apply([job]))
                except Exception as single:
                    self.stats.failures += 1
                    results.append(_classify(single))
        self.stats.record(len(jobs), sum(j.spans for j in jobs), time.perf_counter() - started)
        return results

    def _apply(self, jobs: list[WriteJob]) -> list[Any]:
        groups: dict[type[WriteJob], list[int]] = defaultdict(list)
        for index, job in enumerate(jobs):
            groups[type(job)].append(index)
        results: list[Any] = [None] * len(jobs)
        with self.engine.begin() as conn:
            for job_type, indexes in groups.items():
                group_results = job_type.apply_group(conn, [jobs[i] for i in indexes])
                for i, result in zip(indexes, group_results, strict=True):
                    results[i] = result
        return results


def _classify(exc: Exception) -> Exception:
    if isinstance(exc, OperationalError | DBAPIError):
        log.warning("write failed: %s", exc)
        return StorageUnavailable(str(exc.orig) if exc.orig is not None else str(exc))
    log.exception("write failed", exc_info=exc)
    return exc
