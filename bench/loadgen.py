"""The shared OTLP load generator (``shared/bench/otlp_load.py``), as the benchmarks use it.

``IRIS_BENCH_LOAD`` names the generator script; otherwise it is found under
``IRIS_SHARED_DIR`` (default: the ``shared`` folder beside the repository).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOAD = Path(
    os.environ.get("IRIS_BENCH_LOAD")
    or Path(os.environ.get("IRIS_SHARED_DIR", ROOT.parent / "shared")) / "bench" / "otlp_load.py"
)


def dump_bodies(
    where: Path, *, traces: int, protocol: str = "http-protobuf", spans_per_request: int = 100
) -> list[bytes]:
    """The generator's request bodies for this load, in send order (encoded
    once, written to ``where``, read back)."""
    subprocess.run(
        [
            sys.executable,
            str(LOAD),
            "--protocol",
            protocol,
            "--traces",
            str(traces),
            "--spans-per-request",
            str(spans_per_request),
            "--dump",
            str(where),
            "--quiet",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    manifest = json.loads((where / "manifest.json").read_text())
    return [(where / f["file"]).read_bytes() for f in manifest["files"]]


def body_spans(where: Path) -> list[int]:
    """The spans in each body ``dump_bodies`` wrote to ``where``, in send order."""
    manifest = json.loads((where / "manifest.json").read_text())
    return [int(f["spans"]) for f in manifest["files"]]
