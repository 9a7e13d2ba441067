"""API-key authentication and security headers as one small ASGI layer.

Pure ASGI rather than a Starlette ``BaseHTTPMiddleware`` because it sits in
front of the OTLP receiver, where per-request overhead is throughput.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from service.metrics import IrisMetrics

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Reachable without a key: load balancers and `iris` clients probe it.
OPEN_PATHS = frozenset({"/api/v1/health"})

SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"default-src 'none'; frame-ancestors 'none'"),
]


def route_group(path: str) -> str:
    """A low-cardinality label for a path: ids never become label values."""
    parts = [p for p in path.split("/") if p]
    if parts[:1] == ["v1"]:
        return "/" + "/".join(parts[:2])
    if parts[:2] == ["api", "v1"]:
        return "/" + "/".join(parts[:3])
    return "/" + (parts[0] if parts else "")


def _digest(value: str) -> bytes:
    return hashlib.sha256(value.encode("utf-8")).digest()


def key_matches(presented: str, expected: str) -> bool:
    """Timing-safe comparison on equal-length digests (SPEC §17.1)."""
    return hmac.compare_digest(_digest(presented), _digest(expected))


class SecurityMiddleware:
    def __init__(self, app: ASGIApp, api_key: str | None, metrics: IrisMetrics | None = None):
        self.app = app
        self.api_key = api_key
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.api_key is not None and scope["path"] not in OPEN_PATHS:
            refusal = self._check(scope)
            if refusal is not None:
                await self._refuse(send, *refusal)
                return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + SECURITY_HEADERS
                if self.metrics is not None:
                    self.metrics.requests.inc(
                        route=route_group(scope["path"]), status=str(message["status"])
                    )
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _check(self, scope: Scope) -> tuple[int, str, str] | None:
        assert self.api_key is not None
        header = b""
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                header = value
                break
        if not header:
            return 401, "IRIS_UNAUTHORIZED", "This server requires an API key."
        text = header.decode("latin-1")
        scheme, _, token = text.partition(" ")
        if scheme.lower() != "bearer" or not key_matches(token.strip(), self.api_key):
            return 403, "IRIS_FORBIDDEN", "The API key presented is not valid."
        return None

    @staticmethod
    async def _refuse(send: Send, status: int, code: str, message: str) -> None:
        body = json.dumps(
            {
                "error": {
                    "code": code,
                    "message": message,
                    "recovery": ["Send the header Authorization: Bearer <IRIS_API_KEY>."],
                    "retryable": False,
                }
            }
        ).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        if status == 401:
            headers.append((b"www-authenticate", b'Bearer realm="iris"'))
        await send(
            {"type": "http.response.start", "status": status, "headers": headers + SECURITY_HEADERS}
        )
        await send({"type": "http.response.body", "body": body})
