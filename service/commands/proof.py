"""``iris proof``: measure every rule on a labelled corpus; check the figures."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from evaluators.proof.harness import check, run_proof, write_results

DEFAULT_OUT = Path("proof")
DEFAULT_CORPUS = DEFAULT_OUT / "corpus"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "proof",
        help="measure each rule's precision and recall on a labelled corpus",
        description="Writes RESULTS.md and results.json. --check fails when the committed "
        "figures differ from what the code produces.",
    )
    parser.add_argument(
        "--corpus", type=Path, default=None, help="corpus directory (default proof/corpus)"
    )
    parser.add_argument("--out", type=Path, default=None, help="output directory (default proof/)")
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    return parser


def run(args: argparse.Namespace) -> int:
    corpus = args.corpus or DEFAULT_CORPUS
    out = args.out or (DEFAULT_OUT if args.corpus is None else corpus.parent / "proof-results")
    if not corpus.is_dir():
        print(
            f"iris proof: corpus directory {corpus} not found (run from the repository root "
            "or pass --corpus DIR)",
            file=sys.stderr,
        )
        return 2
    if args.check:
        diffs = check(out, corpus)
        for line in diffs:
            print(line)
        print("proof figures match the code" if not diffs else f"{len(diffs)} difference(s)")
        return 1 if diffs else 0
    results = run_proof(corpus)
    publish = args.corpus is None and args.out is None
    write_results(results, out, publish=publish)
    for rule in results.to_json()["rules"]:
        figures = f"P={rule['precision']} R={rule['recall']} F1={rule['f1']}"
        print(f"{rule['name']:<28} n={rule['n']:<4} {figures}")
    print(f"wrote {out / 'RESULTS.md'} and {out / 'results.json'}")
    return 0
