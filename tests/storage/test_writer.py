"""The group-commit writer: coalescing, ack-after-commit, admission bounds."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import pytest
from sqlalchemy import Connection, Engine, func, select

from evaluators.model import AgentTrace
from storage import codec
from storage.ingest import NativeTraceWrite
from storage.models import Trace
from storage.writer import GroupCommitWriter, Overloaded, WriteJob


def job(name: str) -> NativeTraceWrite:
    now = codec.utcnow()
    trace = AgentTrace(agent_name=name, output="hello")
    row = codec.trace_row(
        trace, trace_id=codec.new_trace_id(), tenant_id="local", source="http", now=now
    )
    return NativeTraceWrite(row=row, span_rows=[])


def count(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(Trace)).scalar_one())


@pytest.fixture(params=["in-process", "writer-process"])
def make_writer(
    request: pytest.FixtureRequest, engine: Engine, db_url: str
) -> Callable[..., GroupCommitWriter]:
    """Every writer test runs with the transactions in this process and in a
    writer process (``IRIS_WRITER_PROCESS``): the guarantees are the same."""

    def make(**kwargs: Any) -> GroupCommitWriter:
        writer = GroupCommitWriter(engine, **kwargs)
        if request.param == "writer-process":
            writer.use_process(db_url)
        return writer

    return make


def test_concurrent_submits_share_transactions(
    engine: Engine, make_writer: Callable[..., GroupCommitWriter]
) -> None:
    async def main() -> GroupCommitWriter:
        writer = make_writer(max_delay_ms=20)
        await writer.start()
        results = await asyncio.gather(*(writer.submit(job(f"a{i}")) for i in range(200)))
        assert len({trace_id for trace_id, _ in results}) == 200
        assert count(engine) == 200  # every awaited submit is already committed
        await writer.stop()
        return writer

    writer = asyncio.run(main())
    assert writer.stats.jobs == 200
    assert writer.stats.commits < 200  # coalesced
    assert writer.inflight == (0, 0)


class Failing(WriteJob):
    kind: ClassVar[str] = "failing"

    @classmethod
    def apply_group(cls, conn: Connection, jobs: Sequence[WriteJob]) -> list[Any]:
        raise ValueError("broken job")


def test_a_failing_job_does_not_fail_its_batch(
    engine: Engine, make_writer: Callable[..., GroupCommitWriter]
) -> None:
    async def main() -> None:
        writer = make_writer(max_delay_ms=50)
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


def test_admission_refuses_beyond_bounds(engine: Engine) -> None:
    async def main() -> None:
        writer = GroupCommitWriter(engine, max_delay_ms=200, admission_max_spans=3)
        await writer.start()
        first = [asyncio.ensure_future(writer.submit(job(f"x{i}"))) for i in range(3)]
        await asyncio.sleep(0)
        with pytest.raises(Overloaded) as refused:
            await writer.submit(job("too-many"))
        assert "limit 3" in refused.value.reason
        await asyncio.gather(*first)
        assert await writer.submit(job("after")) is not None
        await writer.stop()

    asyncio.run(main())
    assert count(engine) == 4


def test_commits_see_other_connections_writes_and_stop_returns_the_connection(
    engine: Engine,
) -> None:
    """The writer keeps one connection across its transactions: rows another
    connection commits in between are read (the new spans of a trace are
    counted against them), and ``stop`` hands the connection back."""

    async def main() -> None:
        writer = GroupCommitWriter(engine)
        await writer.start()
        await writer.submit(job("first"))
        with engine.begin() as conn:  # another connection writes meanwhile
            NativeTraceWrite.apply_group(conn, [job("elsewhere")])
        await writer.submit(job("second"))
        assert count(engine) == 3
        await writer.stop()

    asyncio.run(main())
    assert engine.pool.checkedout() == 0  # type: ignore[attr-defined]
