"""The ``iris`` command: serve, migrate, and (later) workers and tools.

Flags override ``IRIS_*`` variables by being handed to the one Settings
object as constructor arguments.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from service.commands import evaluate as evaluate_cmd
from service.commands import mcp as mcp_cmd
from service.commands import proof as proof_cmd
from service.commands import worker as worker_cmd
from service.settings import Settings, is_loopback
from service.version import iris_version


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--home", type=Path, help="directory for everything Iris writes (IRIS_HOME)"
    )
    parser.add_argument("--db-path", type=Path, help="SQLite database file (IRIS_DB_PATH)")
    parser.add_argument("--db-url", help="SQLAlchemy URL, e.g. postgresql://... (IRIS_DB_URL)")
    parser.add_argument(
        "--log-level", choices=["debug", "info", "warn", "error"], help="(IRIS_LOG_LEVEL)"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="iris",
        description="Iris Collector: store AI-agent traces from OTLP and judge them.",
        epilog="Flags override IRIS_* environment variables. See docs/configuration.md.",
    )
    parser.add_argument("--version", action="version", version=iris_version())
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the API and receivers")
    _common(serve)
    serve.add_argument("--host", help="bind address (IRIS_DASHBOARD_HOST, default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="API/OTLP-HTTP port (IRIS_DASHBOARD_PORT, 6920)")
    serve.add_argument("--api-key", help="require this Bearer key (IRIS_API_KEY)")
    serve.add_argument(
        "--otlp-grpc",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="start the OTLP/gRPC receiver (IRIS_OTLP_GRPC, on)",
    )
    serve.add_argument(
        "--otlp-grpc-port", type=int, help="OTLP/gRPC port (IRIS_OTLP_GRPC_PORT, 4317)"
    )
    serve.add_argument(
        "--workers", type=int, help="evaluator worker processes (IRIS_WORKERS, default: cores)"
    )

    migrate_cmd = sub.add_parser("migrate", help="create or upgrade the database schema")
    _common(migrate_cmd)
    _common(worker_cmd.add_parser(sub))
    evaluate_cmd.add_parser(sub)
    proof_cmd.add_parser(sub)
    _common(mcp_cmd.add_parser(sub))
    return parser


def settings_from_args(args: argparse.Namespace) -> Settings:
    overrides: dict[str, Any] = {}
    mapping = {
        "home": "home",
        "db_path": "db_path",
        "db_url": "db_url",
        "log_level": "log_level",
        "host": "dashboard_host",
        "port": "dashboard_port",
        "api_key": "api_key",
        "otlp_grpc": "otlp_grpc",
        "otlp_grpc_port": "otlp_grpc_port",
        "workers": "workers",
    }
    for arg, setting in mapping.items():
        value = getattr(args, arg, None)
        if value is not None:
            overrides[setting] = value
    return Settings(**overrides)


def _configure_logging(settings: Settings) -> None:
    level = {"warn": "WARNING"}.get(settings.log_level, settings.log_level.upper())
    logging.basicConfig(
        level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )


def cmd_migrate(settings: Settings) -> int:
    from storage import migrate
    from storage.engine import make_engine

    settings.ensure_home()
    engine = make_engine(settings.database_url)
    try:
        head = migrate.upgrade(engine)
    finally:
        engine.dispose()
    print(f"database at revision {head}: {engine.url.render_as_string(hide_password=True)}")
    return 0


def check_bind(settings: Settings) -> str | None:
    """Refuse to expose traces beyond loopback without a key (SPEC §17.1)."""
    host = settings.dashboard_host
    if is_loopback(host) or settings.effective_api_key or settings.allow_unauthenticated:
        return None
    return (
        f"refusing to listen on {host} without an API key: anyone who can reach it could read "
        "and write every trace. Set IRIS_API_KEY (or --api-key), or set "
        "IRIS_ALLOW_UNAUTHENTICATED=1 if the network is fenced on purpose."
    )


def cmd_serve(settings: Settings) -> int:
    import uvicorn

    from service.app import create_app
    from service.worker import tune_gc

    refusal = check_bind(settings)
    if refusal:
        print(f"iris: {refusal}", file=sys.stderr)
        return 2
    app = create_app(settings)
    # The receiving process allocates a few short-lived containers per span,
    # almost none in cycles: collect as the workers do (see tune_gc).
    tune_gc()
    uvicorn.run(
        app,
        host=settings.dashboard_host,
        port=settings.dashboard_port,
        log_level={"warn": "warning"}.get(settings.log_level, settings.log_level),
        access_log=settings.log_level == "debug",
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        settings = settings_from_args(args)
    except Exception as exc:  # pydantic names the bad variable
        print(f"iris: invalid configuration: {exc}", file=sys.stderr)
        return 2
    _configure_logging(settings)
    if args.command == "evaluate":
        return evaluate_cmd.run(args)
    if args.command == "proof":
        return proof_cmd.run(args)
    if args.command == "mcp":
        return mcp_cmd.run(args, settings)
    if args.command == "worker":
        return worker_cmd.run(args, settings)
    if args.command == "migrate":
        return cmd_migrate(settings)
    if args.command == "serve":
        return cmd_serve(settings)
    parser.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
