"""Loading the shared OTLP fixtures (captured real payloads) for the receiver tests."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from receivers.otlp.decode import decode_traces_json, decode_traces_protobuf
from receivers.otlp.logs import attach_log_events, decode_logs_json, decode_logs_protobuf
from receivers.spans import SpanRecord


def shared_dir() -> Path:
    env = os.environ.get("IRIS_SHARED_DIR")
    if env:
        return Path(env)
    return Path(__file__).parents[2].parent / "shared"


FIXTURES = shared_dir() / "fixtures"

needs_fixtures = pytest.mark.skipif(
    not FIXTURES.is_dir(), reason=f"shared fixtures not found at {FIXTURES}"
)


def trace_pb_fixtures() -> list[str]:
    """Every protobuf trace fixture, relative to ``FIXTURES`` (none when absent)."""
    if not FIXTURES.is_dir():
        return []
    return sorted(
        str(p.relative_to(FIXTURES)) for p in FIXTURES.glob("*/*.pb") if ".logs." not in p.name
    )


def scenario_parts(directory: str, scenario: str, ext: str) -> list[Path]:
    """The request files of one scenario, in arrival order (part1, part2, … or the single file)."""
    base = FIXTURES / directory
    single = base / f"{scenario}.{ext}"
    if single.exists():
        return [single]
    parts = sorted(
        base.glob(f"{scenario}_part*.{ext}"),
        key=lambda p: int(re.search(r"_part(\d+)\.", p.name).group(1)),  # type: ignore[union-attr]
    )
    return parts


def all_scenarios() -> list[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    if not FIXTURES.is_dir():
        return []
    for pb in FIXTURES.glob("*/*.pb"):
        if ".logs." in pb.name:
            continue
        found.add((pb.parent.name, re.sub(r"_part\d+$", "", pb.stem)))
    return sorted(found)


def load_spans(directory: str, scenario: str, fmt: str) -> list[SpanRecord]:
    """Decode every request of a scenario (and attach its log events, if any)."""
    decode = decode_traces_protobuf if fmt == "pb" else decode_traces_json
    spans: list[SpanRecord] = []
    for path in scenario_parts(directory, scenario, fmt):
        batch = decode(path.read_bytes())
        assert batch.rejected_spans == 0, batch.rejection_reasons
        spans.extend(batch.spans)
    logs = FIXTURES / directory / f"{scenario}.logs.{fmt}"
    if logs.exists():
        decode_logs = decode_logs_protobuf if fmt == "pb" else decode_logs_json
        unmatched = attach_log_events(spans, decode_logs(logs.read_bytes()).events)
        assert unmatched == []
    return spans
