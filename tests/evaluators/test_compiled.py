"""The compiled-or-source guard (evaluators/_compiled.py): a compiled module
never runs behind an edited source, and IRIS_COMPILED=0 is obeyed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import evaluators
from evaluators import _compiled

ROOT = Path(__file__).resolve().parents[2]


def test_every_listed_module_has_a_source_file() -> None:
    for module in _compiled.COMPILED_MODULES:
        assert _compiled.source_path(module).is_file(), module
    assert "evaluators._compiled" not in _compiled.COMPILED_MODULES


def test_opt_out_by_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IRIS_COMPILED", "0")
    assert _compiled.why_source() == "IRIS_COMPILED=0"


def test_a_changed_source_sends_the_modules_to_source(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("IRIS_COMPILED", raising=False)
    built = _compiled.manifest()
    first = _compiled.COMPILED_MODULES[0]
    built[first] = "0" * 64  # as if the source had been edited after the build
    manifest = tmp_path / "sources.json"
    manifest.write_text(json.dumps(built))
    monkeypatch.setattr(_compiled, "MANIFEST", manifest)
    why = _compiled.why_source()
    assert why is not None
    assert "changed after it was compiled" in why
    assert str(_compiled.source_path(first).relative_to(ROOT)) in why


def test_no_manifest_means_source(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("IRIS_COMPILED", raising=False)
    monkeypatch.setattr(_compiled, "MANIFEST", tmp_path / "absent.json")
    assert _compiled.why_source() == "not compiled (no build manifest)"


def test_source_finder_finds_listed_modules_only() -> None:
    finder = _compiled._SourceFinder()
    spec = finder.find_spec("evaluators.engine", None)
    assert spec is not None and spec.origin is not None
    assert spec.origin.endswith(os.path.join("evaluators", "engine.py"))
    assert finder.find_spec("evaluators.rules._halkernel", None) is None  # a C kernel
    assert finder.find_spec("json", None) is None


def test_opting_out_loads_listed_modules_from_source_in_a_fresh_process() -> None:
    """End to end in a child process: with IRIS_COMPILED=0 the package
    imports the listed modules, evaluators' and receivers', from their .py."""
    code = (
        "from evaluators import _compiled\n"
        "print(_compiled.status)\n"
        "import evaluators.engine, receivers.mapping\n"
        "print(evaluators.engine.__file__)\n"
        "print(receivers.mapping.__file__)\n"
    )
    env = {**os.environ, "IRIS_COMPILED": "0", "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[0] == "source: IRIS_COMPILED=0"
    assert out[1].endswith("engine.py") and out[2].endswith("mapping.py")


def test_a_complete_build_loads_compiled() -> None:
    """Where the install compiled the modules and nothing changed since
    (CI, a fresh ./scripts/dev-setup), they are what runs."""
    if not _compiled.MANIFEST.exists() or os.environ.get("IRIS_COMPILED") == "0":
        pytest.skip("this tree was installed without the compiled modules")
    assert evaluators._compiled.status == "compiled", evaluators._compiled.status
