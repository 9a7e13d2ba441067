"""What a running Iris process holds: settings, database engine, writer."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine

from service.engine_pool import EnginePool
from service.metrics import IrisMetrics
from service.settings import Settings
from storage.engine import make_engine
from storage.walcheckpoint import WalCheckpointer, wants_checkpointer
from storage.writer import GroupCommitWriter


@dataclass
class ServiceState:
    settings: Settings
    engine: Engine
    writer: GroupCommitWriter
    engine_pool: EnginePool = field(default_factory=EnginePool)
    started_monotonic: float = field(default_factory=time.monotonic)
    workers: Any = None  # service.worker.WorkerPool when this process runs one
    metrics: IrisMetrics = field(default_factory=IrisMetrics)

    @property
    def tenant(self) -> str:
        return self.settings.tenant

    @classmethod
    def create(cls, settings: Settings) -> ServiceState:
        settings.ensure_home()
        url = settings.database_url
        engine = make_engine(url)
        checkpointer = WalCheckpointer(engine) if wants_checkpointer(url) else None
        writer = GroupCommitWriter(
            engine,
            checkpointer=checkpointer,
            max_batch_spans=settings.commit_max_spans,
            max_delay_ms=settings.commit_max_delay_ms,
            admission_max_spans=settings.admission_max_spans,
            admission_max_bytes=settings.admission_max_bytes,
        )
        return cls(settings=settings, engine=engine, writer=writer)
