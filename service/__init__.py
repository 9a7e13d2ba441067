"""The service: wires receivers, storage and evaluators into the API, MCP,
the worker pool and the CLI.

``evaluators`` is imported first so that its compiled-or-source decision
(``evaluators._compiled``) also covers this package's compiled modules."""

import evaluators  # noqa: F401
