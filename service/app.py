"""The FastAPI application: wiring of storage, receivers and routers."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from receivers.otlp.grpc_service import build_server
from service.api import evaluations, health, metrics, otlp, overview, rules, traces
from service.api.http import error_response
from service.assembler import Assembler
from service.errors import IrisError, storage_unavailable
from service.ingest import OtlpSink
from service.metrics import IrisMetrics
from service.security import SecurityMiddleware
from service.settings import Settings
from service.state import ServiceState
from service.version import iris_version
from service.worker import WorkerPool
from storage import migrate
from storage.engine import is_sqlite
from storage.writer import Overloaded, StorageUnavailable

log = logging.getLogger("iris")


def create_app(settings: Settings | None = None, *, migrate_on_start: bool = True) -> FastAPI:
    settings = settings or Settings()
    state = ServiceState.create(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if migrate_on_start:
            migrate.upgrade(state.engine)
        if settings.writer_process:
            state.writer.use_process(settings.database_url)
        await state.writer.start()
        assembler = Assembler(
            state.engine,
            settings,
            # SQLite has one write lock: there a sweep is a job of the writer,
            # in its next transaction (in the writer process, if there is
            # one). PostgreSQL locks rows, and a sweep on a thread of its own
            # overlaps the writer's transactions (run on the writer's thread,
            # between its batches, it measured ~9 % fewer spans/s).
            writer=state.writer if is_sqlite(state.engine) else None,
        )
        app.state.assembler = assembler
        await assembler.start()
        grpc_server = await _start_grpc(app, state) if settings.otlp_grpc else None
        supervisor = None
        if settings.worker_count > 0:
            state.workers = WorkerPool(settings, settings.worker_count)
            state.workers.start()
            supervisor = asyncio.create_task(
                _supervise(state.workers, state.metrics), name="iris-supervisor"
            )
        try:
            yield
        finally:
            if grpc_server is not None:
                await grpc_server.stop(grace=5)
            await assembler.stop()
            if supervisor is not None:
                supervisor.cancel()
            if state.workers is not None:
                await asyncio.to_thread(state.workers.stop)
            await asyncio.to_thread(state.engine_pool.shutdown, wait=True)
            await state.writer.stop()
            state.engine.dispose()

    app = FastAPI(
        title="Iris Collector",
        version=iris_version(),
        lifespan=lifespan,
        docs_url="/api/docs",
        openapi_url="/api/openapi.json",
        redoc_url=None,
    )
    app.state.iris = state
    app.include_router(health.router)
    app.include_router(traces.router)
    app.include_router(evaluations.router)
    app.include_router(rules.router)
    app.include_router(metrics.router)
    app.include_router(overview.router)
    _install_error_handlers(app)
    _document_otlp_routes(app)
    # Added first, so it runs inside SecurityMiddleware (the key applies to OTLP too).
    app.add_middleware(otlp.OtlpHttpRoutes)
    app.add_middleware(
        SecurityMiddleware, api_key=settings.effective_api_key, metrics=state.metrics
    )
    return app


def _document_otlp_routes(app: FastAPI) -> None:
    """Add the OTLP/HTTP routes, served in front of FastAPI, to its OpenAPI document."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, routes=app.routes)
            schema["paths"].update(otlp.OPENAPI_PATHS)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


async def _supervise(pool: WorkerPool, metrics: IrisMetrics) -> None:
    """Restart dead workers and fold their batch figures into the metrics."""
    while True:
        await asyncio.sleep(1.0)
        before = pool.restarts
        pool.supervise()
        if pool.restarts > before:
            metrics.worker_restarts.inc(pool.restarts - before)
        for claimed, evaluated, _failed, seconds, per_type, turns, waited in pool.drain_reports():
            for bundle, n in per_type.items():
                metrics.evaluations.inc(n, bundle=bundle)
            if claimed:
                bundle = next(iter(per_type), "none")
                metrics.evaluation_seconds.observe(seconds / claimed, bundle=bundle)
            metrics.write_turns.inc(turns, process="worker")
            metrics.write_wait_seconds.inc(waited, process="worker")
            del evaluated


async def _start_grpc(app: FastAPI, state: ServiceState) -> grpc.aio.Server:
    """Start the OTLP/gRPC receiver on this event loop, sharing the writer."""
    settings = state.settings
    sink = OtlpSink(state, "otlp-grpc")
    server = build_server(
        trace_sink=sink.traces,
        logs_sink=sink.logs,
        api_key=settings.effective_api_key,
        max_message_bytes=settings.otlp_max_body_bytes,
    )
    host = settings.dashboard_host
    address = (
        f"[{host}]:{settings.otlp_grpc_port}"
        if ":" in host
        else f"{host}:{settings.otlp_grpc_port}"
    )
    port = server.add_insecure_port(address)
    if port == 0:
        raise RuntimeError(f"cannot bind the OTLP/gRPC receiver to {address}")
    await server.start()
    app.state.grpc_port = port
    log.info("OTLP/gRPC receiver listening on %s:%d", host, port)
    return server


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(IrisError)
    async def _iris(_: Request, exc: IrisError) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(Overloaded)
    async def _overloaded(_: Request, exc: Overloaded) -> JSONResponse:
        return error_response(
            IrisError(
                "IRIS_OVERLOADED",
                f"The service is at capacity: {exc.reason}.",
                status=503,
                recovery=["Retry after the number of seconds in Retry-After."],
                retry_after_s=exc.retry_after_s,
            )
        )

    @app.exception_handler(StorageUnavailable)
    async def _storage(_: Request, exc: StorageUnavailable) -> JSONResponse:
        return error_response(storage_unavailable(str(exc)))

    @app.exception_handler(OperationalError)
    @app.exception_handler(DBAPIError)
    async def _db(_: Request, exc: Exception) -> JSONResponse:
        log.warning("database error: %s", exc)
        return error_response(storage_unavailable(type(exc).__name__))

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        details = [
            {"field": ".".join(str(p) for p in e["loc"]), "message": e["msg"]} for e in exc.errors()
        ]
        return error_response(
            IrisError(
                "IRIS_INVALID_ARGUMENT",
                "Invalid request: " + "; ".join(f"{d['field']}: {d['message']}" for d in details),
                recovery=["Fix the fields named in details."],
                details=details,
            )
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "IRIS_NOT_FOUND", 405: "IRIS_METHOD_NOT_ALLOWED"}.get(
            exc.status_code, "IRIS_HTTP_ERROR"
        )
        return error_response(
            IrisError(code, str(exc.detail), status=exc.status_code, recovery=["See /api/docs."])
        )

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=exc)
        return error_response(
            IrisError(
                "IRIS_INTERNAL_ERROR",
                "An unexpected error occurred; it has been logged.",
                status=500,
                recovery=["Retry once; if it repeats, report it with the server log."],
            )
        )
