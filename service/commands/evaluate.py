"""``iris evaluate``: evaluate_output bodies as NDJSON in, full results out.

Offline: no server, no database. The same engine, the same result shape as
``POST /api/v1/evaluate`` minus the storage-minted ``id``. One output line
per input line, in order; a bad line answers with the error envelope and the
exit code becomes 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import IO, Any

from pydantic import ValidationError

from evaluators.engine import evaluate
from receivers.native import validation_details
from service.evaluation import engine_config, now_iso
from service.operations.evaluations import EvaluateBody, build_request


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "evaluate",
        help="evaluate NDJSON evaluate_output bodies offline",
        description="Read one evaluate_output body per line (file or stdin) and print one "
        "result per line. No server or database is needed.",
    )
    parser.add_argument("file", nargs="?", default="-", help="NDJSON file (default: stdin)")
    parser.add_argument("--pretty", action="store_true", help="indent each result")
    return parser


def _error(
    line: int, code: str, message: str, details: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": f"line {line}: {message}", "recovery": []}
    if details:
        body["details"] = details
    return {"error": body}


def evaluate_lines(stream: IO[str], out: IO[str], *, pretty: bool = False) -> int:
    failures = 0
    config = engine_config()
    for number, raw in enumerate(stream, start=1):
        text = raw.strip()
        if not text:
            continue
        try:
            payload = json.loads(text)
            if not isinstance(payload, dict):
                raise ValueError("each line must be a JSON object")
            if "trace_id" in payload:
                raise ValueError("trace_id needs a server; send the trace's fields instead")
            body = EvaluateBody.model_validate(payload)
            request = dataclasses.replace(build_request(body, None, []), judged_at=now_iso())
            result: dict[str, Any] = evaluate(request, config)
        except ValidationError as exc:
            failures += 1
            result = _error(
                number, "IRIS_INVALID_ARGUMENT", "invalid body", validation_details(exc)
            )
        except (ValueError, json.JSONDecodeError) as exc:
            failures += 1
            result = _error(number, "IRIS_INVALID_ARGUMENT", str(exc))
        out.write(json.dumps(result, indent=2 if pretty else None, ensure_ascii=False) + "\n")
        out.flush()
    return 1 if failures else 0


def run(args: argparse.Namespace) -> int:
    if args.file == "-":
        return evaluate_lines(sys.stdin, sys.stdout, pretty=args.pretty)
    with open(args.file, encoding="utf-8") as stream:
        return evaluate_lines(stream, sys.stdout, pretty=args.pretty)
