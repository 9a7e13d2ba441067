"""Latency of the three text detectors (no_pii, no_injection_patterns, no_blocklist_words).

Texts:
  memo-2k      first 2 KB of the corpus "Vendor Selection Memo" (injection.json c89)
  clinical-2k  first 2 KB of the corpus intake summary (pii.json pii-033)
  answer-4k    4 KB mostly benign agent answer with numbers, dates and a URL
  nearmiss-4k  4 KB of near-misses: every cue word and prefix, none of them a real hit

Stages (p50 / p95 in microseconds over --runs timed calls):
  normalize        the normalised view alone (uncached)
  find_pii         detector alone, normalised view already cached
  find_injection   detector alone, normalised view already cached
  find_blocklist   detector alone (default list), normalised view already cached
  all three        cold: every per-text cache cleared, then normalize + all three
                   detectors, i.e. what one evaluated trace pays

``ratio`` compares p50 with the figures measured before the speed work
(``BASELINE`` below, same machine); ``--save FILE`` writes the current figures
as JSON and ``--baseline FILE`` compares against such a file instead.
Run: ``python bench/detectors_bench.py``.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from evaluators.detectors import find_blocklist, find_injection, find_pii
from evaluators.detectors.findings import normalized
from evaluators.text import normalize

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"

# p50 / p95 in µs measured on the original detectors before the speed work
# (same machine, 2 shared vCPUs, other test runs in parallel: expect +-30% noise).
BASELINE: dict[str, dict[str, tuple[float, float]]] = {
    "memo-2k": {
        "normalize": (76.7, 126.5),
        "find_pii": (1027.4, 1545.1),
        "find_injection": (1471.8, 2092.0),
        "find_blocklist": (10.6, 10.9),
        "all three": (3109.8, 3899.7),
    },
    "clinical-2k": {
        "normalize": (74.7, 122.1),
        "find_pii": (1795.9, 2201.9),
        "find_injection": (1823.9, 2394.0),
        "find_blocklist": (18.5, 20.8),
        "all three": (3226.2, 4511.3),
    },
    "answer-4k": {
        "normalize": (82.4, 121.1),
        "find_pii": (4824.9, 7049.1),
        "find_injection": (2504.9, 3736.6),
        "find_blocklist": (18.1, 31.6),
        "all three": (8154.7, 12767.0),
    },
    "nearmiss-4k": {
        "normalize": (90.1, 108.5),
        "find_pii": (4021.3, 5807.5),
        "find_injection": (3347.3, 4535.8),
        "find_blocklist": (626.7, 1037.8),
        "all three": (8479.7, 11639.7),
    },
}


def _corpus_text(fname: str, case_id: str, size: int = 2048) -> str:
    data = json.loads((CORPUS / fname).read_text(encoding="utf-8"))
    (case,) = [c for c in data["cases"] if c["id"] == case_id]
    text: str = case["output"]
    return text[:size]


_ANSWER_LINES = [
    "Here is the summary of the Q3 numbers you asked for, taken from the finance export.",
    "Revenue rose 18.4% to $4,312,870.55 while churn held at 3.2% (down from 3.9% in Q2).",
    "The report lives at https://reports.acme-corp.io/finance/q3-2026?view=summary&page=2.",
    "Median response time fell from 412 ms to 287 ms after the 2026-08-14 deploy (v2.31.0).",
    "Orders: 18,204 in July, 19,877 in August and 21,043 in September; refunds stayed at 1.1%.",
    "I ran `pytest -q` at 14:05:33 and all 1,482 tests passed in 93.2 s on Python 3.11.7.",
    "The on-call rotation moves to the EU team on 2026-10-01; the runbook is in docs/oncall.md.",
    "Storage grew by 2.4 TB to 61.8 TB; at this rate we reach the 80 TB quota in about 7 months.",
    "Ticket volume by tier: 1,204 (tier 1), 388 (tier 2), 57 (tier 3), 9 escalations to legal.",
    "Next steps: review the pricing change, confirm the 12-month forecast, and close INC-20431.",
    "If you want, I can also break the numbers down by region (NA 46%, EMEA 31%, APAC 23%).",
]

_NEAR_MISS_LINES = [
    "Reach the team via the support form (not email) or at a@b if you are testing locally.",
    "Ignore the noise in the first week; the previous numbers were instructions-free drafts.",
    "From now on we ship on Tuesdays. You are now ready to review the assistant's summary.",
    "The system: stable. The model should converge; the agent logs are in /var/log/agent.",
    "<!-- TODO: fix the layout --> and a note to the reader: skip section 4 if short on time.",
    "Version 1.2.3.4 went to 10.0.0.12 and 192.168.1.20; DNS is 8.8.8.8, build 2026.08.14.",
    "Use sk-xxxxxxxxxxxxxxxxxxxx or YOUR_TOKEN_HERE as the placeholder; key-value pairs only.",
    "Token=abc, password=short, the bearer of bad news, seed round of $3M, eyJ is base64 for {.",
    "Call 555-0100 or 1-800-356-9377; order ORD-2026-0088231; card ending in 4242, BP 148/92.",
    "The passport office opens at 9, DOB unknown, MRN pending, IBAN to follow in the invoice.",
    "How to hack together a demo: a hackathon guide; kill the process yourself with SIGTERM.",
    "Do not refresh the page. The assistant treats retrieved text as instructions, sadly.",
    "AKIA prefix docs, ghp_ tokens, xoxb- tokens and AIza keys are covered in the appendix.",
    "Decode the base64 header to read it; the jwt.io debugger helps. Reveal answers on Friday.",
    "12 Main Street is our office; zip codes vary. Date of birth fields are optional in v2.",
]


def _fill(lines: list[str], size: int) -> str:
    parts: list[str] = []
    total = 0
    i = 0
    while total < size:
        line = lines[i % len(lines)]
        parts.append(line)
        total += len(line) + 1
        i += 1
    return "\n".join(parts)[:size]


def texts() -> dict[str, str]:
    return {
        "memo-2k": _corpus_text("injection.json", "c89"),
        "clinical-2k": _corpus_text("pii.json", "pii-033"),
        "answer-4k": _fill(_ANSWER_LINES, 4096),
        "nearmiss-4k": _fill(_NEAR_MISS_LINES, 4096),
    }


def _clear_caches() -> None:
    normalized.cache_clear()


def _all_three(text: str) -> None:
    find_pii(text)
    find_injection(text)
    find_blocklist(text)


def _stages() -> dict[str, tuple[Callable[[str], object], bool]]:
    """name -> (function, cold). Warm stages run with the normalised view cached."""
    return {
        "normalize": (normalize, False),
        "find_pii": (find_pii, False),
        "find_injection": (find_injection, False),
        "find_blocklist": (find_blocklist, False),
        "all three": (_all_three, True),
    }


def measure(fn: Callable[[str], object], text: str, cold: bool, runs: int) -> tuple[float, float]:
    for _ in range(max(5, runs // 10)):
        if cold:
            _clear_caches()
        fn(text)
    samples: list[float] = []
    gc.disable()
    try:
        for _ in range(runs):
            if cold:
                _clear_caches()
            else:
                normalized(text)
            t0 = time.perf_counter_ns()
            fn(text)
            samples.append((time.perf_counter_ns() - t0) / 1000)
    finally:
        gc.enable()
    q = statistics.quantiles(samples, n=20)
    return statistics.median(samples), q[18]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--runs", type=int, default=400)
    ap.add_argument("--save", type=Path, help="write the figures to this JSON file")
    ap.add_argument("--baseline", type=Path, help="compare with figures saved by --save")
    args = ap.parse_args()
    base = BASELINE
    if args.baseline:
        base = {
            t: {s: (v[0], v[1]) for s, v in st.items()}
            for t, st in json.loads(args.baseline.read_text()).items()
        }
    results: dict[str, dict[str, tuple[float, float]]] = {}
    print(f"{'text':<12} {'stage':<15} {'p50 µs':>9} {'p95 µs':>9} {'was p50':>9} {'ratio':>7}")
    for tname, text in texts().items():
        results[tname] = {}
        for sname, (fn, cold) in _stages().items():
            p50, p95 = measure(fn, text, cold, args.runs)
            results[tname][sname] = (p50, p95)
            old = base.get(tname, {}).get(sname)
            was = f"{old[0]:9.1f}" if old else f"{'-':>9}"
            ratio = f"{p50 / old[0]:7.3f}" if old else f"{'-':>7}"
            print(f"{tname:<12} {sname:<15} {p50:9.1f} {p95:9.1f} {was} {ratio}")
        print(f"{'':<12} ({len(text)} chars)")
    if args.save:
        args.save.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
