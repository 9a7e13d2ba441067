"""The group-commit writer with its transactions in a writer process."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest
from sqlalchemy import Engine

from storage.writer import GroupCommitWriter, StorageUnavailable
from tests.storage.test_writer import Failing, count, job


def _process_writer(engine: Engine, db_url: str) -> GroupCommitWriter:
    writer = GroupCommitWriter(engine, admission_max_spans=10_000)
    writer.use_process(db_url)
    return writer


def _gone(pid: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        # a zombie of ours is gone too: reap it if it is our child
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return True
        except ChildProcessError:
            pass
        time.sleep(0.05)
    return False


def test_acknowledged_means_committed_by_the_writer_process(engine: Engine, db_url: str) -> None:
    async def main() -> GroupCommitWriter:
        writer = _process_writer(engine, db_url)
        await writer.start()
        assert writer._process is not None and writer._process.pid != os.getpid()
        results = await asyncio.gather(*(writer.submit(job(f"p{i}")) for i in range(200)))
        assert len({trace_id for trace_id, _ in results}) == 200
        assert count(engine) == 200  # every awaited submit is already committed
        pid = writer._process.pid
        await writer.stop()
        assert pid is not None and _gone(pid)
        return writer

    writer = asyncio.run(main())
    assert writer.stats.jobs == 200
    assert writer.stats.commits < 200  # coalesced
    assert writer.inflight == (0, 0)


def test_a_failing_job_does_not_fail_its_batch_in_the_process(engine: Engine, db_url: str) -> None:
    async def main() -> None:
        writer = _process_writer(engine, db_url)
        await writer.start()
        results = await asyncio.gather(
            writer.submit(job("ok1")),
            writer.submit(Failing()),
            writer.submit(job("ok2")),
            return_exceptions=True,
        )
        await writer.stop()
        assert isinstance(results[1], ValueError)
        assert not isinstance(results[0], BaseException)
        assert not isinstance(results[2], BaseException)

    asyncio.run(main())
    assert count(engine) == 2


def test_a_dead_writer_process_refuses_retryably_then_restarts(engine: Engine, db_url: str) -> None:
    async def main() -> None:
        writer = _process_writer(engine, db_url)
        await writer.start()
        assert writer._process is not None
        await writer.submit(job("before"))
        old = writer._process.pid
        assert old is not None
        os.kill(old, signal.SIGKILL)
        assert _gone(old)
        with pytest.raises(StorageUnavailable):
            await writer.submit(job("lost"))
        assert await writer.submit(job("after")) is not None
        assert writer._process.pid not in (None, old)
        assert writer._process.restarts == 1
        assert writer.inflight == (0, 0)
        await writer.stop()

    asyncio.run(main())
    assert count(engine) == 2
