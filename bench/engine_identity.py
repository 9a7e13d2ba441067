"""Engine identity check: every result byte-for-byte against a saved baseline.

Speed work on the engine must not change a single verdict, message, offset or
figure. This evaluates a wide set of inputs — the engine benchmark's 500
cases, every case of the proof corpus (full evaluation, every bundle), and
every corpus output under each of the seven disguises applied to the whole
text, and with ``--varied`` the benchmark's varied-vocabulary cases too — and
records the SHA-256 of each canonical result.

    python bench/engine_identity.py --write /tmp/engine-baseline.json   # before
    python bench/engine_identity.py --check /tmp/engine-baseline.json   # after

``--check`` prints the differing case ids (and the first difference of the
first one) and exits non-zero when any result changed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_bench import make_cases

from evaluators.engine import evaluate
from evaluators.proof.transforms import TRANSFORMS
from evaluators.request import EvaluationRequest

CORPUS = Path(__file__).resolve().parent.parent / "proof" / "corpus"


def _corpus_payloads() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for path in sorted(CORPUS.rglob("*.json")):
        doc = json.loads(path.read_text())
        for case in doc.get("cases", []):
            payload = {k: case[k] for k in ("output", "input", "expected") if k in case}
            ctx = case.get("context")
            if isinstance(ctx, str):
                ctx = json.loads(ctx)
            if isinstance(ctx, dict):
                payload["context"] = ctx
            payload["judged_at"] = "2026-01-01T00:00:00Z"
            out.append((f"{path.stem}:{case['id']}", payload))
            if case.get("label") == "positive" and isinstance(case.get("output"), str):
                for name, fn in TRANSFORMS.items():
                    out.append(
                        (
                            f"{path.stem}:{case['id']}:{name}",
                            {**payload, "output": fn(case["output"])},
                        )
                    )
    return out


def results(varied: bool = False) -> dict[str, dict[str, Any]]:
    res: dict[str, dict[str, Any]] = {}
    for i, req in enumerate(make_cases()):
        res[f"bench:{i}"] = evaluate(req)
    if varied:
        for i, req in enumerate(make_cases(varied=True)):
            res[f"varied:{i}"] = evaluate(req)
    for key, payload in _corpus_payloads():
        try:
            req = EvaluationRequest.from_payload(payload)
        except Exception as exc:  # an input the engine refuses is a result too
            res[key] = {"refused": repr(exc)}
            continue
        res[key] = evaluate(req)
    return res


def _digest(obj: Any) -> str:
    canon = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canon.encode()).hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", type=Path)
    group.add_argument("--check", type=Path)
    ap.add_argument(
        "--varied", action="store_true", help="also the benchmark's varied-vocabulary cases"
    )
    args = ap.parse_args()
    res = results(args.varied)
    digests = {k: _digest(v) for k, v in res.items()}
    if args.write:
        args.write.write_text(json.dumps({"digests": digests, "results": res}, ensure_ascii=False))
        print(f"wrote {len(digests)} result digests to {args.write}")
        return
    base = json.loads(args.check.read_text())
    changed = [k for k in base["digests"] if digests.get(k) != base["digests"][k]]
    missing = [k for k in digests if k not in base["digests"]]
    print(f"{len(digests)} results, {len(changed)} changed, {len(missing)} not in baseline")
    if changed:
        first = changed[0]
        print("changed:", ", ".join(changed[:40]))
        old, new = base["results"].get(first), res.get(first)
        for field in sorted(set(old or {}) | set(new or {})):
            if (old or {}).get(field) != (new or {}).get(field):
                print(f"first difference in {first}, field {field!r}:")
                print("  before:", json.dumps((old or {}).get(field), ensure_ascii=False)[:600])
                print("  after: ", json.dumps((new or {}).get(field), ensure_ascii=False)[:600])
                break
        sys.exit(1)


if __name__ == "__main__":
    main()
