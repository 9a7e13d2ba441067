#!/usr/bin/env python3
"""Worker identity check: what a worker stores, trace by trace, against a baseline.

Speed work on the worker (reading, deriving, judging, storing) must not
change what a reader gets back. This drains a copy of a template database
filled by ``bench/worker_instr.py --fill`` with one worker, then reads back
through the same functions the API uses each trace's row (its derived
fields, search document) and its evaluation (``evaluations_to_api``: rule
results joined with their profiles), drops what differs from run to run
(ids, clocks), and records a SHA-256 per trace:

    python bench/worker_instr.py --fill /tmp/tpl.db --traces 500
    python bench/worker_identity.py --write /tmp/worker-baseline.json /tmp/tpl.db  # before
    python bench/worker_identity.py --check /tmp/worker-baseline.json /tmp/tpl.db  # after

``--check`` prints the traces that differ (and the first difference of the
first one) and exits non-zero when any did.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from sqlalchemy import select, text  # noqa: E402
from worker_instr import template_worker  # noqa: E402

from service.worker import Worker  # noqa: E402
from storage.evaluations import evaluations_to_api  # noqa: E402
from storage.models import Evaluation, Trace  # noqa: E402

# Values that differ between two drains of the same template by design.
VOLATILE_TRACE = {"created_at", "ready_at", "latest_evaluation_id"}
VOLATILE_EVALUATION = {"id", "created_at"}


def _stable(value: Any) -> Any:
    """``value`` with the verdict's judging clock taken out."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k != "judgedAt"}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def snapshot(template: Path) -> dict[str, Any]:
    """Drain a copy of ``template``; every trace's stored state, volatile parts out."""
    with template_worker(template, "iris-worker-identity-") as (engine, settings, rules):
        worker = Worker(engine, settings, "identity", rules)
        while worker.step().claimed:
            pass
        out: dict[str, Any] = {}
        with engine.connect() as conn:
            for row in conn.execute(select(Trace.__table__)):
                values = {
                    k: (v.isoformat() if hasattr(v, "isoformat") else v)
                    for k, v in row._mapping.items()
                    if k not in VOLATILE_TRACE
                }
                out[row.trace_id] = {"trace": values}
            evaluations = list(conn.execute(select(Evaluation.__table__)))
            for api in evaluations_to_api(conn, evaluations):
                kept = {k: v for k, v in api.items() if k not in VOLATILE_EVALUATION}
                out[api["trace_id"]].setdefault("evaluations", []).append(_stable(kept))
            search = conn.execute(
                text("SELECT trace_id, input, output, tools, metadata FROM trace_search")
            ).all()
            for trace_id, *doc in search:
                out[trace_id]["search"] = doc
        return out


def digest(state: Any) -> str:
    return hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", type=Path, help="record the baseline here")
    mode.add_argument("--check", type=Path, help="compare against this baseline")
    ap.add_argument("template", type=Path, help="a database from worker_instr.py --fill")
    args = ap.parse_args()
    state = snapshot(args.template)
    hashes = {trace_id: digest(s) for trace_id, s in sorted(state.items())}
    if args.write:
        args.write.write_text(json.dumps({"hashes": hashes, "states": state}, default=str))
        print(f"wrote {len(hashes)} traces to {args.write}")
        return 0
    baseline = json.loads(args.check.read_text())
    changed = sorted(
        t
        for t in set(hashes) | set(baseline["hashes"])
        if hashes.get(t) != baseline["hashes"].get(t)
    )
    print(f"{len(hashes)} traces, {len(changed)} changed")
    if changed:
        first = changed[0]
        before = json.loads(json.dumps(baseline["states"].get(first), default=str))
        after = json.loads(json.dumps(state.get(first), default=str))
        print(f"first changed: {first}")
        for key in sorted(set(before or {}) | set(after or {})):
            if (before or {}).get(key) != (after or {}).get(key):
                print(f"  {key}: before {str((before or {}).get(key))[:400]}")
                print(f"  {key}: after  {str((after or {}).get(key))[:400]}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
