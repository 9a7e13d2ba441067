"""``iris evaluate`` and ``iris proof`` as a user runs them."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

from service.commands.evaluate import evaluate_lines

ROOT = Path(__file__).resolve().parents[2]


def test_evaluate_ndjson_matches_the_engine_and_keeps_order() -> None:
    lines = "\n".join(
        [
            json.dumps({"output": "Reach me at john.doe@gmail.com", "input": "contact?"}),
            "",
            json.dumps({"output": "x", "bogus": 1}),
            json.dumps(
                {
                    "output": "The answer is 42.",
                    "input": "What is 6*7?",
                    "eval_type": "completeness",
                }
            ),
        ]
    )
    out = io.StringIO()
    code = evaluate_lines(io.StringIO(lines), out)
    results = [json.loads(line) for line in out.getvalue().splitlines()]
    assert code == 1  # one bad line
    assert len(results) == 3
    assert results[0]["passed"] is False and "no_pii" in results[0]["critical_failures"]
    assert all("rule" in r for r in results[0]["rule_results"])
    assert results[1]["error"]["code"] == "IRIS_INVALID_ARGUMENT"
    assert "line 3" in results[1]["error"]["message"]
    assert results[2]["eval_type"] == "completeness"


def test_evaluate_command_reads_stdin() -> None:
    body = json.dumps({"output": "All good here.", "input": "status?"}) + "\n"
    result = subprocess.run(
        [sys.executable, "-m", "service", "evaluate"],
        input=body,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["eval_type"] == "all"


def test_committed_proof_figures_match_the_code() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "service", "proof", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "match" in result.stdout


def test_proof_on_another_directory_does_not_touch_the_published_figures(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "stub.json").write_text((ROOT / "proof" / "corpus" / "stub.json").read_text())
    published = (ROOT / "evaluators" / "data" / "proof.json").read_text()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "service",
            "proof",
            "--corpus",
            str(corpus),
            "--out",
            str(tmp_path / "out"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert [r["name"] for r in data["rules"]] == ["no_stub_output"]
    assert (tmp_path / "out" / "RESULTS.md").exists()
    assert (ROOT / "evaluators" / "data" / "proof.json").read_text() == published
