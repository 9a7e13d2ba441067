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
"""

from setuptools import Extension, setup


def _ext(name: str, source: str) -> Extension:
    return Extension(name, sources=[source], optional=True, extra_compile_args=["-O2"])


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
    ]
)
