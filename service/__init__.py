"""Service: wires receivers, storage and evaluators into the API, MCP and workers.

``evaluators`` is imported first so that its compiled-or-source decision
(``evaluators._compiled``) also covers the service's compiled modules:
compiled modules call each other natively, so one loaded compiled before
the decision would run old code beside new source."""

import evaluators  # noqa: F401
