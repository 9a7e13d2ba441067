"""The rules engine: usable as a plain library (no web or database code).

Importing the package first decides whether its hot modules load compiled
or from source (``evaluators._compiled``)."""

from evaluators import _compiled

_compiled.install()
