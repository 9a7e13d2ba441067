"""Which hot modules run compiled, and the guard that never lets a stale one load.

The install compiles the modules below with mypyc (setup.py): the same
source, as C extensions, about a tenth fewer instructions a judged trace.
A compiled module sits next to its ``.py`` and Python prefers it, so a
source edited after the build would silently not run. ``install()``, called
when ``evaluators`` is first imported (``receivers`` imports it first too),
compares each compiled module's source with the SHA-256 the build recorded
(``_compiled_sources.json``, written by setup.py) and, if any differs or a
compiled module is missing, loads *every* listed module from source instead:
compiled modules call each other natively, so a mix would run the old code
behind the new. ``IRIS_COMPILED=0`` asks for source on purpose (debugging,
coverage). Nothing here is compiled itself.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

# The modules the build compiles: the worker's hot path (rules, detectors,
# text scans, the engine, the evaluation context, and the storage and
# service glue from claiming a job to storing its verdict) and the
# receivers' span mapping and decoding, with the convention tables it reads
# (their names are Final: compiled readers load them as C statics rather
# than look each up in its module). Judged and Outcome compile as
# non-native classes: the C kernels copy and read their slots directly,
# which a native layout would break. Left out: evaluators.text.normalize
# (objects a C kernel fills slot by slot); the rest of storage and service
# (cold, or classes SQLAlchemy maps); the cold packages (statistics, custom,
# proof) gain nothing.
#
# The compiled storage and service modules are type-checked with SQLAlchemy's
# types (pyproject.toml's build requirements bring it to an isolated build).
# Those call a result row a tuple, which it is not, and compiled code checks
# what it is told: rows are read as ``Sequence[Any]`` or ``Any`` there.
COMPILED_MODULES: tuple[str, ...] = (
    "evaluators.composer",
    "evaluators.config",
    "evaluators.context",
    "evaluators.detectors.blocklist",
    "evaluators.detectors.checks",
    "evaluators.detectors.findings",
    "evaluators.detectors.gates",
    "evaluators.detectors.injection",
    "evaluators.detectors.injection_patterns",
    "evaluators.detectors.personal",
    "evaluators.detectors.phrases",
    "evaluators.detectors.pii",
    "evaluators.detectors.quotes",
    "evaluators.detectors.scan",
    "evaluators.detectors.secrets",
    "evaluators.engine",
    "evaluators.jsontext",
    "evaluators.judged",
    "evaluators.lexical.sentences",
    "evaluators.lexical.terms",
    "evaluators.model",
    "evaluators.request",
    "evaluators.risk",
    "evaluators.rules.asks",
    "evaluators.rules.base",
    "evaluators.rules.completeness",
    "evaluators.rules.compliance",
    "evaluators.rules.cost",
    "evaluators.rules.detected",
    "evaluators.rules.grounding",
    "evaluators.rules.hallucination",
    "evaluators.rules.hallucination_grounded",
    "evaluators.rules.registry",
    "evaluators.rules.relevance",
    "evaluators.rules.scan",
    "evaluators.rules.stub",
    "evaluators.rules.tool_failure",
    "evaluators.splitresults",
    "evaluators.stats",
    "evaluators.text.backtrack",
    "evaluators.text.case",
    "evaluators.text.confusables",
    "evaluators.text.linear",
    "evaluators.text.literals",
    "evaluators.text.starts",
    "evaluators.textview",
    "receivers.conventions.frameworks",
    "receivers.conventions.genai_current",
    "receivers.conventions.genai_legacy",
    "receivers.conventions.iris",
    "receivers.conventions.langsmith",
    "receivers.conventions.openinference",
    "receivers.conventions.precedence",
    "receivers.conventions.pydantic_ai",
    "receivers.conventions.traceloop",
    "receivers.conventions.vercel_ai",
    "receivers.mapping",
    "receivers.messages",
    "receivers.spans",
    "receivers.toolcalls",
    "receivers.usage",
    "receivers.otlp.decode",
    "receivers.otlp.wire",
    "receivers.timeutil",
    "service.derivation",
    "service.evaluation",
    "service.worker",
    "storage.assembly",
    "storage.codec",
    "storage.evaluations",
    "storage.fastinsert",
    "storage.jsontext",
    "storage.ruleprofiles",
    "storage.search",
)

# The shared library every compiled module's stub loads (mypyc's group).
GROUP = "iris_compiled"
ROOT = Path(__file__).resolve().parents[1]
MANIFEST = Path(__file__).with_name("_compiled_sources.json")
_EXT = importlib.machinery.EXTENSION_SUFFIXES[0]

# "compiled" or why the modules load from source; set by install().
status = "not checked"


def source_path(module: str) -> Path:
    """Where ``module``'s source is, under the tree that holds this file."""
    return ROOT.joinpath(*module.split(".")).with_suffix(".py")


def digest(path: Path) -> str:
    """The SHA-256 of a file's bytes, as hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build_artifacts() -> list[Path]:
    """What compiling the listed modules leaves in the tree: each module's
    extension, the group's shared library and the manifest. A build removes
    them before it starts, so a build that fails after the manifest is
    written leaves source running rather than the previous build's
    extensions under the new sources' digests."""
    extensions = [source_path(m).with_name(source_path(m).stem + _EXT) for m in COMPILED_MODULES]
    return [*extensions, ROOT / f"{GROUP}__mypyc{_EXT}", MANIFEST]


def manifest() -> dict[str, str]:
    """Each listed module's source digest, as the build compiles it now."""
    return {m: digest(source_path(m)) for m in COMPILED_MODULES}


def why_source() -> str | None:
    """None when every listed module may load compiled; else the reason not."""
    if os.environ.get("IRIS_COMPILED", "1") == "0":
        return "IRIS_COMPILED=0"
    try:
        built: dict[str, str] = json.loads(MANIFEST.read_text())
    except (OSError, ValueError):
        return "not compiled (no build manifest)"
    for module in COMPILED_MODULES:
        src = source_path(module)
        if module not in built:
            return (
                f"{module} was listed after the last build: running every compiled "
                "module from source; ./scripts/dev-setup compiles them again"
            )
        if built[module] != digest(src):
            return (
                f"{src.relative_to(ROOT)} changed after it was compiled: running every "
                "compiled module from source; ./scripts/dev-setup compiles them again"
            )
    for module in COMPILED_MODULES:
        src = source_path(module)
        if not src.with_name(src.stem + _EXT).exists():
            return f"{module} was not compiled"
    if importlib.util.find_spec(f"{GROUP}__mypyc") is None:
        return f"the compiled group {GROUP}__mypyc is missing"
    return None


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the listed modules' ``.py`` files, ahead of their compiled twins."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in _LISTED:
            return None
        src = source_path(fullname)
        loader = importlib.machinery.SourceFileLoader(fullname, str(src))
        return importlib.util.spec_from_file_location(fullname, src, loader=loader)


_LISTED = frozenset(COMPILED_MODULES)


def install() -> str:
    """Decide once per process whether the listed modules load compiled;
    when not, put the source finder first and warn if the reason is a stale
    build (a plain source tree, or IRIS_COMPILED=0, is no surprise)."""
    global status
    if status != "not checked":
        return status
    reason = why_source()
    if reason is None:
        status = "compiled"
        return status
    status = f"source: {reason}"
    sys.meta_path.insert(0, _SourceFinder())
    if "dev-setup" in reason or "missing" in reason:
        warnings.warn(f"Iris: {reason}", RuntimeWarning, stacklevel=2)
    return status
