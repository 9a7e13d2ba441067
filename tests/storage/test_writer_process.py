"""The group-commit writer with its transactions in a writer process."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest
from sqlalchemy import Engine

from storage.writer import GroupCommitWriter, StorageUnavailable
from tests.storage.test_writer import count, job


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


def test_the_writer_process_is_a_separate_process_and_ends_with_stop(
    engine: Engine, db_url: str
) -> None:
    async def main() -> None:
        writer = _process_writer(engine, db_url)
        await writer.start()
        await writer.submit(job("p"))
        assert writer._process is not None and writer._process.pid != os.getpid()
        pid = writer._process.pid
        await writer.stop()
        assert pid is not None and _gone(pid)

    asyncio.run(main())
    assert count(engine) == 1


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
