"""``iris mcp``: the MCP server over stdio (default) or Streamable HTTP."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from service.settings import Settings, is_loopback
from service.state import ServiceState


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "mcp",
        help="run the MCP server (stdio, or Streamable HTTP at /mcp)",
        description="Expose Iris's tools and resources to agents over MCP. stdio is what an "
        "MCP client starts by default; --transport http serves /mcp on --port (3000).",
    )
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    parser.add_argument("--host", default=None, help="HTTP bind address (IRIS_HOST, 127.0.0.1)")
    parser.add_argument("--port", type=int, default=None, help="HTTP port (IRIS_PORT, 3000)")
    return parser


def run(args: argparse.Namespace, settings: Settings) -> int:
    if args.transport == "stdio":
        asyncio.run(_stdio(settings))
        return 0
    host = args.host or settings.mcp_host
    port = args.port or settings.mcp_port
    key = settings.effective_api_key
    if not is_loopback(host) and not key and not settings.allow_unauthenticated:
        print(
            f"iris: refusing to serve MCP on {host} without an API key. Set IRIS_API_KEY, or "
            "IRIS_ALLOW_UNAUTHENTICATED=1 on a fenced network.",
            file=sys.stderr,
        )
        return 2
    import uvicorn

    uvicorn.run(http_app(settings, host), host=host, port=port, log_level="warning")
    return 0


async def _stdio(settings: Settings) -> None:
    from mcp.server.stdio import stdio_server

    from service.mcp.server import build_server, running_state

    settings.ensure_home()
    async with running_state(ServiceState.create(settings)) as state:
        server = build_server(state, "stdio")
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())


def http_app(settings: Settings, host: str) -> Any:
    """The Streamable HTTP app at ``/mcp``, behind the API key when one is set."""
    from starlette.applications import Starlette
    from starlette.routing import Mount

    from service.mcp.server import build_server, running_state
    from service.security import SecurityMiddleware

    settings.ensure_home()
    state = ServiceState.create(settings)
    server = build_server(state, "http")
    inner = server.streamable_http_app(streamable_http_path="/mcp", host=host)

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        async with running_state(state), inner.router.lifespan_context(inner):
            yield

    app = Starlette(routes=[Mount("/", app=inner)], lifespan=lifespan)
    return SecurityMiddleware(app, api_key=settings.effective_api_key)
