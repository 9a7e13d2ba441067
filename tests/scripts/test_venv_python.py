"""``scripts/venv-python``: which interpreter ``./.venv`` is made from."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "venv-python"


def pick(*candidates: str | Path, iris_python: str | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "IRIS_PYTHON"}
    if iris_python is not None:
        env["IRIS_PYTHON"] = iris_python
    done = subprocess.run(
        [str(SCRIPT), *map(str, candidates)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return done.stdout.strip()


def fails(tmp_path: Path, name: str) -> Path:
    """An executable that exits non-zero whatever it is asked: an interpreter
    too old, or without venv or its headers, answers the script's check so."""
    path = tmp_path / name
    path.write_text("#!/bin/sh\nexit 1\n")
    path.chmod(0o755)
    return path


def test_iris_python_wins_over_every_candidate() -> None:
    assert pick(sys.executable, iris_python="/opt/my/python3.12") == "/opt/my/python3.12"


def test_a_candidate_that_can_host_iris_is_picked() -> None:
    # The interpreter running the tests is 3.11+ with venv and the headers the
    # install compiled against.
    assert pick(sys.executable) == sys.executable


def test_the_first_candidate_that_can_host_iris_wins(tmp_path: Path) -> None:
    unfit = fails(tmp_path, "python3-old")
    assert pick(unfit, sys.executable) == sys.executable


def test_without_a_fit_candidate_the_path_python3_is_used(tmp_path: Path) -> None:
    assert pick(fails(tmp_path, "python3"), tmp_path / "missing") == "python3"


def test_an_interpreter_without_its_c_headers_is_passed_over(tmp_path: Path) -> None:
    # A wrapper that runs the real interpreter with its include path moved
    # elsewhere: it is 3.11+ and has venv, but the install could not compile.
    wrapper = tmp_path / "python3-noheaders"
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import sysconfig\n"
        "_real = sysconfig.get_paths\n"
        "def get_paths(*a, **k):\n"
        "    paths = _real(*a, **k)\n"
        "    paths['include'] = '/nonexistent/include'\n"
        "    return paths\n"
        "sysconfig.get_paths = get_paths\n"
    )
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH={site} exec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    assert pick(wrapper) == "python3"
