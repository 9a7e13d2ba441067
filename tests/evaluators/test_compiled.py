"""The compiled-or-source guard (evaluators/_compiled.py): a compiled module
never runs behind an edited source, and IRIS_COMPILED=0 is obeyed."""

from __future__ import annotations

import ast
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


@pytest.mark.parametrize("package", sorted({m.split(".")[0] for m in _compiled.COMPILED_MODULES}))
def test_opting_out_holds_whichever_package_is_imported_first(package: str) -> None:
    """End to end in a child process, with IRIS_COMPILED=0: every listed
    module loads from its .py, whichever package the process imports first.
    A compiled module loaded before the decision would call the others
    natively, compiled, whatever the decision said; so each package with
    compiled modules imports evaluators first (storage and service did not,
    and a bench importing storage first ran compiled)."""
    first = next(m for m in _compiled.COMPILED_MODULES if m.startswith(package + "."))
    code = (
        f"import {first}\n"
        "import importlib\n"
        "from evaluators import _compiled\n"
        "print(_compiled.status)\n"
        "for m in _compiled.COMPILED_MODULES:\n"
        "    print(importlib.import_module(m).__file__)\n"
    )
    env = {**os.environ, "IRIS_COMPILED": "0", "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[0] == "source: IRIS_COMPILED=0"
    files = out[1:]
    assert len(files) == len(_compiled.COMPILED_MODULES)
    assert [f for f in files if not f.endswith(".py")] == []


def test_a_complete_build_loads_compiled() -> None:
    """Where the install compiled the modules and nothing changed since
    (CI, a fresh ./scripts/dev-setup), they are what runs."""
    if not _compiled.MANIFEST.exists() or os.environ.get("IRIS_COMPILED") == "0":
        pytest.skip("this tree was installed without the compiled modules")
    assert evaluators._compiled.status == "compiled", evaluators._compiled.status


def _lower_calls(path: Path) -> list[int]:
    """Lines of ``path`` that call a ``.lower()`` method, per the syntax tree."""
    tree = ast.parse(path.read_text())
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "lower"
        and not node.args
    )


def test_compiled_modules_lower_through_the_exact_lower() -> None:
    """Compiled, ``s.lower()`` misses CPython's final-sigma rule before 3.13
    (evaluators/text/case.py), so a compiled module lowers through
    ``text.case.lower``; a bare ``.lower()`` is only for text known to be
    ASCII, and says so on its line."""
    offenders = []
    for module in _compiled.COMPILED_MODULES:
        path = _compiled.source_path(module)
        lines = path.read_text().split("\n")
        for n in _lower_calls(path):
            line = lines[n - 1]
            if "ASCII" not in line and "isascii()" not in line:
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, "use evaluators.text.case.lower:\n" + "\n".join(offenders)


def test_the_lower_guard_sees_a_bare_lower(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("a = 'X'\nb = a.lower()\nc = str.lower(a)\nd = a.lower  # not a call\n")
    assert _lower_calls(src) == [2]


def test_a_build_clears_every_artifact_of_the_last_one_first() -> None:
    """setup.py removes these before compiling: a build failing after it
    wrote the manifest must leave source, not the last build's extensions
    recorded as built from the new sources."""
    artifacts = _compiled.build_artifacts()
    assert _compiled.MANIFEST in artifacts
    assert _compiled.ROOT / f"{_compiled.GROUP}__mypyc{_compiled._EXT}" in artifacts
    extensions = {p for p in artifacts if p.name.endswith(_compiled._EXT)}
    assert len(extensions) == len(_compiled.COMPILED_MODULES) + 1
    for module in _compiled.COMPILED_MODULES:
        src = _compiled.source_path(module)
        assert src.with_name(src.stem + _compiled._EXT) in extensions
