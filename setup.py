"""The one build step pyproject.toml cannot state stably: the C extensions.

Every extension is optional: without a C compiler the package still
installs, and each module falls back to its pure-Python reference (the same
results, slower). Everything else is in pyproject.toml.

* ``receivers/otlp/_spanscan.c``: reads OTLP spans straight from the bytes.
* ``evaluators/lexical/_lexkernel.c``: the sentence splitter and tokenisers.
* ``evaluators/text/_scankernel.c``: the detectors' literal scans (gates and start places).
* ``evaluators/rules/_numkernel.c``: the grounded rules' scans (figures, locations, files).
* ``evaluators/detectors/_piikernel.c``: the no_pii detector's candidate scans.
* ``evaluators/_resultkernel.c``: the engine's built-in rule result dicts.
* ``evaluators/rules/_toolkernel.c``: the failure verdict of a string tool output.
* ``evaluators/text/_matchkernel.c``: the injection phrase tier's backtracking matcher.
* ``evaluators/rules/_saykernel.c``: says_something's letter-run and repeated-sentence counts.
* ``evaluators/rules/_argkernel.c``: valid_tool_arguments' plain schema check.
* ``evaluators/detectors/_findkernel.c``: the detectors' overlap sweep, findings and evidence.
* ``evaluators/rules/_halkernel.c``: no_hallucination_markers' digit, date and flag scans.
* ``evaluators/_riskkernel.c``: the risk layer's sampled interval (per-draw noisy-OR, sorted).
* ``evaluators/rules/_keykernel.c``: a tool step input's loop key and JSON text.
* ``evaluators/rules/_stubkernel.c``: no_stub_output's marker-word scan.
* ``evaluators/text/_litkernel.c``: LiteralSet's one-pass literal presence.

The hot Python modules listed in ``evaluators/_compiled.py`` are compiled
with mypyc too, when it is installed (the build requires it) and
``IRIS_COMPILE`` is not ``0``. The build records each one's source digest
in ``evaluators/_compiled_sources.json``; at import, a module whose source
no longer matches (or a failed compile) sends them all back to source.
"""

import json
import os
import runpy
import sys
from pathlib import Path

from setuptools import Extension, setup

# The setup.py commands that compile (the others, such as egg_info or
# dist_info, only read metadata).
BUILD_COMMANDS = frozenset(
    {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install", "bdist_egg"}
)


def _ext(name: str, source: str) -> Extension:
    return Extension(name, sources=[source], optional=True, extra_compile_args=["-O2"])


def _compiled() -> list[Extension]:
    """The mypyc extensions of the listed modules (none without mypyc, or
    with IRIS_COMPILE=0), each optional: a failed compile leaves source."""
    if os.environ.get("IRIS_COMPILE", "1") == "0":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    listing = runpy.run_path("evaluators/_compiled.py")
    sources = [listing["source_path"](m) for m in listing["COMPILED_MODULES"]]
    # Only a command that builds replaces the compiled modules and their
    # manifest (setup.py also runs for metadata). It clears the previous
    # build's first: a build failing after this point then leaves source
    # running, never old extensions under a manifest of new sources.
    building = bool(BUILD_COMMANDS.intersection(sys.argv[1:]))
    if building:
        for artifact in listing["build_artifacts"]():
            artifact.unlink(missing_ok=True)
    # A module compiled in place by an earlier build but no longer listed
    # would still shadow its source: its extension goes.
    for pkg in ("evaluators", "receivers", "service", "storage"):
        for ext in Path(pkg).rglob("*.cpython-*.so"):
            src = ext.with_name(ext.name.split(".")[0] + ".py")
            if src.exists() and src.resolve() not in sources:
                ext.unlink()
    paths = [str(src.relative_to(listing["ROOT"])) for src in sources]
    try:
        exts = mypycify(paths, opt_level="3", multi_file=True, group_name=listing["GROUP"])
    except (Exception, SystemExit) as exc:  # mypyc's type check exits on an error
        print(f"warning: the hot modules stay source (mypyc: {exc!r})", file=sys.stderr)
        return []
    for ext in exts:
        ext.optional = True
    if building:
        Path(listing["MANIFEST"]).write_text(
            json.dumps(listing["manifest"](), indent=1, sort_keys=True) + "\n"
        )
    return exts


setup(
    ext_modules=[
        _ext("receivers.otlp._spanscan", "receivers/otlp/_spanscan.c"),
        _ext("evaluators.lexical._lexkernel", "evaluators/lexical/_lexkernel.c"),
        _ext("evaluators.text._scankernel", "evaluators/text/_scankernel.c"),
        _ext("evaluators.rules._numkernel", "evaluators/rules/_numkernel.c"),
        _ext("evaluators.detectors._piikernel", "evaluators/detectors/_piikernel.c"),
        _ext("evaluators.rules._saykernel", "evaluators/rules/_saykernel.c"),
        _ext("evaluators._resultkernel", "evaluators/_resultkernel.c"),
        _ext("evaluators.rules._toolkernel", "evaluators/rules/_toolkernel.c"),
        _ext("evaluators.text._matchkernel", "evaluators/text/_matchkernel.c"),
        _ext("evaluators.rules._argkernel", "evaluators/rules/_argkernel.c"),
        _ext("evaluators.detectors._findkernel", "evaluators/detectors/_findkernel.c"),
        _ext("evaluators.rules._halkernel", "evaluators/rules/_halkernel.c"),
        _ext("evaluators._riskkernel", "evaluators/_riskkernel.c"),
        _ext("evaluators.rules._keykernel", "evaluators/rules/_keykernel.c"),
        _ext("evaluators.rules._stubkernel", "evaluators/rules/_stubkernel.c"),
        _ext("evaluators.text._litkernel", "evaluators/text/_litkernel.c"),
        *_compiled(),
    ]
)
