"""The OpenTelemetry set-up every recipe shares: an OTLP/HTTP exporter pointed
at Iris, behind the SDK's batch processor.

These are the standard SDK's own lines; nothing here is Iris-specific but the
default endpoint. The exporter reads the usual variables, so
``OTEL_EXPORTER_OTLP_ENDPOINT`` and ``OTEL_EXPORTER_OTLP_HEADERS`` (for
``authorization=Bearer <IRIS_API_KEY>``) work as for any other backend.
"""

from __future__ import annotations

import os

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

# Where ``iris serve`` listens by default (README); an explicit variable wins.
IRIS_ENDPOINT = "http://127.0.0.1:6920"


def tracer_provider(service_name: str) -> TracerProvider:
    """A provider exporting to Iris. Call ``shutdown()`` on it before the
    program ends: that flushes the spans still in the batch."""
    os.environ.setdefault("OTEL_EXPORTER_OTLP_ENDPOINT", IRIS_ENDPOINT)
    provider = TracerProvider(resource=Resource.create({"service.name": service_name}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return provider
