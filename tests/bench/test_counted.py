"""``bench/counted.py``: the work runs once, through ``ffi_call``, and what it
returns or raises reaches the caller; under callgrind only the work is counted."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from counted import callgrind, collected, run_counted  # noqa: E402


def test_returns_what_the_work_returned() -> None:
    calls: list[int] = []

    def work() -> str:
        calls.append(1)
        return "done"

    assert run_counted(work) == "done"
    assert calls == [1]


def test_raises_what_the_work_raised() -> None:
    def work() -> None:
        raise KeyError("missing")

    with pytest.raises(KeyError, match="missing"):
        run_counted(work)


def test_collected_reads_callgrinds_count() -> None:
    output = "==12== Events    : Ir\n==12== Collected : 5895251592\n==12==\n"
    assert collected(output) == 5_895_251_592
    assert collected("valgrind: command not found") is None


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
def test_callgrind_counts_the_work_alone(tmp_path: Path) -> None:
    """The toggle names a function callgrind finds in this interpreter, and
    ten times the work counts about ten times the instructions."""
    script = tmp_path / "work.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(BENCH)!r})\n"
        "from counted import run_counted\n"
        "n = int(sys.argv[1])\n"
        "run_counted(lambda: sum(i * i for i in range(n)))\n"
    )

    def count(n: int) -> int:
        done = subprocess.run(
            [*callgrind(), sys.executable, str(script), str(n)],
            capture_output=True,
            text=True,
            check=True,
        )
        found = collected(done.stderr)
        assert found is not None, done.stderr[-2000:]
        return found

    small, large = count(20_000), count(200_000)
    assert small > 0
    assert 8 < large / small < 13  # (the larger sums cost a little more an addition)
