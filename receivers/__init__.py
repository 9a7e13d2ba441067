"""Receivers: decode OTLP and native payloads and map spans to agent traces.

``evaluators`` is imported first so that its compiled-or-source decision
(``evaluators._compiled``) also covers the receivers' compiled modules."""

import evaluators  # noqa: F401
