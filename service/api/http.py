"""HTTP plumbing shared by every router: the error envelope, bounded bodies."""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse

from receivers import jsonload
from service.errors import IrisError


def error_response(error: IrisError) -> JSONResponse:
    headers = {}
    if error.retry_after_s is not None:
        headers["Retry-After"] = str(error.retry_after_s)
    return JSONResponse(error.envelope(), status_code=error.status, headers=headers)


def too_large(limit: int, setting: str) -> IrisError:
    return IrisError(
        "IRIS_PAYLOAD_TOO_LARGE",
        f"The request body is larger than {limit} bytes.",
        status=413,
        recovery=[f"Send smaller batches, or raise {setting} on the server."],
    )


async def read_body(request: Request, limit: int, setting: str) -> bytes:
    """Read at most ``limit`` bytes; refuse (413) before buffering more."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise too_large(limit, setting)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large(limit, setting)
        chunks.append(chunk)
    return b"".join(chunks)


async def read_json(request: Request, limit: int, setting: str) -> Any:
    content_type = request.headers.get("content-type", "application/json")
    media = content_type.split(";", 1)[0].strip().lower()
    if media not in ("application/json", "") and not media.endswith("+json"):
        raise IrisError(
            "IRIS_UNSUPPORTED_MEDIA_TYPE",
            f"Content-Type {media!r} is not accepted here; send application/json.",
            status=415,
            recovery=["Set Content-Type: application/json and send a JSON body."],
        )
    raw = await read_body(request, limit, setting)
    try:
        return jsonload.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        position = getattr(exc, "pos", None)
        raise IrisError(
            "IRIS_INVALID_ARGUMENT",
            f"The body is not valid JSON ({exc}).",
            status=400,
            recovery=["Send a JSON object as the body."],
            details=[{"field": "(body)", "message": str(exc), "position": position}],
        ) from None
