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
import collections
import contextlib
import logging
import multiprocessing
import os
import pickle
import queue
import signal
import socket
import struct
import threading
import time
from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, ClassVar

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from storage.walcheckpoint import WalCheckpointer
from storage.writeturn import write_turn

log = logging.getLogger("iris.writer")


class Overloaded(Exception):
    """More spans or bytes in flight than admission allows; retry later."""

    def __init__(self, reason: str, retry_after_s: int = 1):
        super().__init__(reason)
        self.reason = reason
        self.retry_after_s = retry_after_s


class StorageUnavailable(Exception):
    """The database refused the transaction (down, locked, out of space)."""


class WriteJob(ABC):
    """One request's worth of writes. Subclasses define how a group applies.

    ``apply_group`` receives every job of its class in one transaction, in
    arrival order, and returns one result per job.
    """

    spans: int = 0
    nbytes: int = 0
    kind: ClassVar[str] = "job"

    @classmethod
    @abstractmethod
    def apply_group(cls, conn: Connection, jobs: Sequence[WriteJob]) -> list[Any]:
        """Apply every job of this class in ``conn``'s transaction."""


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
        checkpointer: WalCheckpointer | None = None,
    ):
        self.engine = engine
        # SQLite: checkpoints taken by a thread of their own while this
        # writer runs, not inside its commits (``storage.walcheckpoint``).
        self.checkpointer = checkpointer
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
        self._process: WriterProcess | None = None
        # The writer thread's own connection, opened there on the first
        # commit (see ``_commit``).
        self._connection: Connection | None = None

    def use_process(self, url: str) -> None:
        """Run transactions in a dedicated writer process (``IRIS_WRITER_PROCESS``).

        The event loop's process keeps admission, batching and the futures; each
        batch of jobs travels pickled to the child, which applies and commits it
        and answers with one result per job. An acknowledgement still means
        "committed": the future resolves only on the child's answer.
        """
        self._process = WriterProcess(url)

    # -- lifecycle ---------------------------------------------------------
    async def start(self) -> None:
        self._queue = asyncio.Queue()
        self._closing = False
        if self.checkpointer is not None:
            self.checkpointer.start()
        if self._process is not None:
            await self._process.start()
            self._task = asyncio.create_task(self._run_process(), name="iris-group-commit")
        else:
            self._task = asyncio.create_task(self._run(), name="iris-group-commit")

    async def stop(self) -> None:
        """Commit everything already admitted, then stop."""
        self._closing = True
        if self._queue is not None and self._task is not None:
            await self._queue.join()
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._process is not None:
            await self._process.stop()
        await asyncio.get_running_loop().run_in_executor(self._executor, self._close_connection)
        self._executor.shutdown(wait=True)
        if self.checkpointer is not None:
            await asyncio.to_thread(self.checkpointer.stop)

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

    async def _run_process(self) -> None:
        """The commit loop of process mode: batches go to the writer process,
        up to ``PROCESS_PIPELINE_DEPTH`` at a time; answers come back in order."""
        assert self._queue is not None and self._process is not None
        queue_, process = self._queue, self._process
        slots = asyncio.Semaphore(PROCESS_PIPELINE_DEPTH)
        sent: collections.deque[tuple[list[_Pending], float]] = collections.deque()
        answered = asyncio.Event()

        def settle(batch: list[_Pending], started: float, answer: Any) -> None:
            jobs = [p.job for p in batch]
            if isinstance(answer, BaseException):
                outcomes: list[Any] = [answer] * len(batch)
                self.stats.failures += len(batch)
            else:
                outcomes, failures = answer
                self.stats.failures += failures
                self.stats.record(
                    len(jobs), sum(j.spans for j in jobs), time.perf_counter() - started
                )
            self._release(jobs)
            for pending, outcome in zip(batch, outcomes, strict=True):
                if not pending.future.done():
                    if isinstance(outcome, BaseException):
                        pending.future.set_exception(outcome)
                    else:
                        pending.future.set_result(outcome)
                queue_.task_done()
            slots.release()

        async def receive() -> None:
            while True:
                await answered.wait()
                answered.clear()
                while sent:
                    try:
                        answer: Any = await process.receive()
                    except (asyncio.IncompleteReadError, OSError, EOFError) as exc:
                        log.warning("writer process lost (%s); restarting it", exc)
                        lost = StorageUnavailable(
                            "the writer process exited; the request was not acknowledged"
                        )
                        while sent:
                            settle(*sent.popleft(), lost)
                        await process.stop(timeout=5)
                        break
                    settle(*sent.popleft(), answer)

        receiver = asyncio.create_task(receive(), name="iris-writer-answers")
        try:
            while True:
                first = await queue_.get()
                await slots.acquire()
                batch = [first]
                spans = first.job.spans
                while spans < self.max_batch_spans:
                    try:
                        item = queue_.get_nowait()
                    except asyncio.QueueEmpty:
                        break
                    batch.append(item)
                    spans += item.job.spans
                started = time.perf_counter()
                try:
                    if not process.running:
                        process.restarts += 1
                        await process.start()
                    await process.send([p.job for p in batch])
                except Exception as exc:
                    log.warning("cannot hand a batch to the writer process: %s", exc)
                    settle(batch, started, StorageUnavailable(f"writer process unavailable: {exc}"))
                    if not sent:  # otherwise the answer reader sees the loss and stops it
                        await process.stop(timeout=5)
                    continue
                sent.append((batch, started))
                answered.set()
        finally:
            receiver.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await receiver

    def _commit(self, batch: list[_Pending]) -> list[Any]:
        """Apply a batch in one transaction, on the writer thread's own connection.

        The connection is held, not taken from the engine's pool for each
        batch: SQLite drops a connection's whole page cache when another
        connection has written since its last transaction, and connections
        taken in turn from the pool (which the checkpointer and the assembler
        share) had always missed the writer's own last commit, so every
        commit read its pages again.

        Only on SQLite: PostgreSQL has no such cache to keep, and a connection
        taken from the pool each time is checked (``pool_pre_ping``) after a
        server restart. A batch with a failed job drops the held connection
        too, so nothing it was left in carries over to the next batch."""
        jobs = [p.job for p in batch]
        started = time.perf_counter()
        bind: Engine | Connection = self.engine
        if self.engine.dialect.name == "sqlite":
            if self._connection is None or self._connection.closed:
                self._connection = self.engine.connect()
            bind = self._connection
        results, failures = run_transaction(bind, jobs)
        if failures:
            self._close_connection()
        self.stats.failures += failures
        self.stats.record(len(jobs), sum(j.spans for j in jobs), time.perf_counter() - started)
        return results

    def _close_connection(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


@contextlib.contextmanager
def _transaction(bind: Engine | Connection) -> Iterator[Connection]:
    """A transaction on a connection from ``bind``'s pool, or on ``bind`` itself."""
    if isinstance(bind, Engine):
        with bind.begin() as conn:
            yield conn
    else:
        with bind.begin():
            yield bind


def _apply(bind: Engine | Connection, jobs: list[WriteJob]) -> list[Any]:
    groups: dict[type[WriteJob], list[int]] = defaultdict(list)
    for index, job in enumerate(jobs):
        groups[type(job)].append(index)
    results: list[Any] = [None] * len(jobs)
    with write_turn(bind.engine), _transaction(bind) as conn:
        for job_type, indexes in groups.items():
            group_results = job_type.apply_group(conn, [jobs[i] for i in indexes])
            for i, result in zip(indexes, group_results, strict=True):
                results[i] = result
    return results


def run_transaction(bind: Engine | Connection, jobs: list[WriteJob]) -> tuple[list[Any], int]:
    """Apply ``jobs`` in one transaction (on a connection of ``bind``'s pool,
    or on ``bind``); on failure retry each job alone, so one bad request
    cannot fail the requests it was grouped with. Returns one result (or
    exception) per job and the number of jobs that failed."""
    try:
        return _apply(bind, jobs), 0
    except Exception as exc:
        # A unique violation is a concurrent writer storing some of the same
        # rows first: a retry reads them as stored. Anything else fails a
        # lone job at once.
        if len(jobs) == 1 and not isinstance(exc, IntegrityError):
            return [_classify(exc)], 1
    results: list[Any] = []
    failures = 0
    for job in jobs:
        try:
            results.extend(_apply(bind, [job]))
        except Exception as single:
            failures += 1
            results.append(_classify(single))
    return results, failures


def _classify(exc: Exception) -> Exception:
    if isinstance(exc, OperationalError | DBAPIError):
        log.warning("write failed: %s", exc)
        return StorageUnavailable(str(exc.orig) if exc.orig is not None else str(exc))
    log.exception("write failed", exc_info=exc)
    return exc


# -- the writer process ------------------------------------------------------

_FRAME = struct.Struct("!Q")
# Batches sent to the writer process and not answered yet: while it commits one,
# the next is already in its inbox, so it never waits for this process.
PROCESS_PIPELINE_DEPTH = 2


class WriterProcess:
    """A child process that owns the database writes of a ``GroupCommitWriter``.

    Batches travel over a socket pair as length-prefixed pickles (jobs out, one
    ``(results, failures)`` answer back per batch, in order). If the child dies,
    every batch in flight fails with ``StorageUnavailable`` (retryable; spans are
    idempotent) and the next batch starts a new child. The child exits when the
    socket closes (``stop``, or this process dying), ignores SIGINT (a
    terminal's Ctrl-C reaches the whole process group; the parent shuts it down
    in order) and leaves on SIGTERM once it is idle.
    """

    def __init__(self, url: str):
        self.url = url
        self.restarts = 0
        self._ctx = multiprocessing.get_context("spawn")
        self._proc: Any = None
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    async def start(self) -> None:
        parent, child = socket.socketpair()
        proc = self._ctx.Process(
            target=_writer_process_main,
            args=(child, self.url, os.getpid()),
            name="iris-writer",
            daemon=True,
        )
        await asyncio.to_thread(proc.start)
        child.close()
        reader, writer = await asyncio.open_unix_connection(sock=parent)
        try:
            ready = await _read_frame(reader)
        except (asyncio.IncompleteReadError, OSError):
            ready = "the process exited"
        if ready != "ready":
            writer.close()
            await asyncio.to_thread(proc.join, 5)
            raise StorageUnavailable(f"writer process failed to start: {ready}")
        self._proc, self._reader, self._writer = proc, reader, writer

    @property
    def running(self) -> bool:
        return self._writer is not None

    async def send(self, jobs: list[WriteJob]) -> None:
        assert self._writer is not None
        data = pickle.dumps(jobs, protocol=pickle.HIGHEST_PROTOCOL)
        self._writer.write(_FRAME.pack(len(data)))
        self._writer.write(data)
        await self._writer.drain()

    async def receive(self) -> tuple[list[Any], int]:
        assert self._reader is not None
        results, failures = await _read_frame(self._reader)
        return results, failures

    async def stop(self, timeout: float = 30.0) -> None:
        proc, writer = self._proc, self._writer
        self._proc = self._reader = self._writer = None
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
        if proc is not None:
            await asyncio.to_thread(proc.join, timeout)
            if proc.is_alive():
                log.warning("writer process did not exit; killing it")
                proc.kill()
                await asyncio.to_thread(proc.join, 5)


async def _read_frame(reader: asyncio.StreamReader) -> Any:
    (size,) = _FRAME.unpack(await reader.readexactly(_FRAME.size))
    return pickle.loads(await reader.readexactly(size))


def _portable(result: Any) -> Any:
    """Exceptions cross the socket only if they pickle; others become RuntimeError."""
    if not isinstance(result, BaseException) or isinstance(result, StorageUnavailable):
        return result
    try:
        pickle.loads(pickle.dumps(result))
    except Exception:
        return RuntimeError(f"{type(result).__name__}: {result}")
    return result


def _send_frame(sock: socket.socket, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    sock.sendall(_FRAME.pack(len(data)) + data)


def _recv_exactly(sock: socket.socket, size: int) -> bytes | None:
    buf = bytearray(size)
    view = memoryview(buf)
    got = 0
    while got < size:
        n = sock.recv_into(view[got:])
        if n == 0:
            return None
        got += n
    return bytes(buf)


def _inbox_reader(sock: socket.socket, inbox: queue.SimpleQueue[bytes | None]) -> None:
    try:
        while True:
            head = _recv_exactly(sock, _FRAME.size)
            if head is None:
                break
            body = _recv_exactly(sock, _FRAME.unpack(head)[0])
            if body is None:
                break
            inbox.put(body)
    except OSError:
        pass
    inbox.put(None)


def _writer_process_main(sock: socket.socket, url: str, parent_pid: int) -> None:
    """Entry point of the writer process (spawned, so it imports cleanly)."""
    from storage.engine import make_engine

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    terminate = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: terminate.set())
    try:
        engine = make_engine(url, pool_size=1)
        with engine.connect():
            pass
    except Exception as exc:  # reported to the parent, which refuses to start
        _send_frame(sock, f"{type(exc).__name__}: {exc}")
        return
    _send_frame(sock, "ready")
    inbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
    threading.Thread(target=_inbox_reader, args=(sock, inbox), daemon=True).start()
    try:
        while True:
            try:
                item = inbox.get(timeout=0.2)
            except queue.Empty:
                if terminate.is_set() or os.getppid() != parent_pid:
                    return
                continue
            if item is None:
                return
            results, failures = run_transaction(engine, pickle.loads(item))
            _send_frame(sock, ([_portable(r) for r in results], failures))
    except OSError:
        return
    finally:
        engine.dispose()
