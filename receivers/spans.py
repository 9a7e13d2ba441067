"""The span record every receiver produces.

A receiver's whole job is bytes → ``SpanRecord`` (plus, once a trace's spans
are together, the derived trace fields in :mod:`receivers.mapping`). Storage
persists these records as they are; nothing here touches a database.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# OTLP Span.SpanKind enum values → names.
OTLP_SPAN_KINDS: dict[int, str] = {
    0: "UNSPECIFIED",
    1: "INTERNAL",
    2: "SERVER",
    3: "CLIENT",
    4: "PRODUCER",
    5: "CONSUMER",
}
# OTLP Status.StatusCode enum values → names.
OTLP_STATUS_CODES: dict[int, str] = {0: "UNSET", 1: "OK", 2: "ERROR"}


@dataclass(frozen=True, slots=True)
class SpanEventRecord:
    name: str
    time_unix_nano: int
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True, init=False)
class SpanRecord:
    """One decoded span, ids as lowercase hex, attributes as Python values.

    Attribute values: str, bool, int, float, list (array), dict (kvlist);
    bytes holding UTF-8 text are decoded to str, other bytes to hex.
    ``kind`` is the OTLP span kind name; ``iris_kind`` is what the convention
    adapters decided (``LLM``, ``TOOL``, ``AGENT`` ... or the OTLP kind).

    ``__init__`` is written out rather than generated: compiled (mypyc), a
    dataclass keeps the generated one, which runs interpreted at ~2,400
    instructions a record; this one compiles (the worker builds a record per
    span, the receivers one per span received). Same parameters and defaults.
    """

    trace_id: str
    span_id: str
    name: str
    parent_span_id: str | None = None
    kind: str = "INTERNAL"
    start_unix_nano: int = 0
    end_unix_nano: int = 0
    status_code: str = "UNSET"
    status_message: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    events: list[SpanEventRecord] = field(default_factory=list)
    resource: dict[str, Any] = field(default_factory=dict)
    scope_name: str | None = None
    scope_version: str | None = None

    def __init__(
        self,
        trace_id: str,
        span_id: str,
        name: str,
        parent_span_id: str | None = None,
        kind: str = "INTERNAL",
        start_unix_nano: int = 0,
        end_unix_nano: int = 0,
        status_code: str = "UNSET",
        status_message: str | None = None,
        attributes: dict[str, Any] | None = None,
        events: list[SpanEventRecord] | None = None,
        resource: dict[str, Any] | None = None,
        scope_name: str | None = None,
        scope_version: str | None = None,
    ) -> None:
        self.trace_id = trace_id
        self.span_id = span_id
        self.name = name
        self.parent_span_id = parent_span_id
        self.kind = kind
        self.start_unix_nano = start_unix_nano
        self.end_unix_nano = end_unix_nano
        self.status_code = status_code
        self.status_message = status_message
        self.attributes = {} if attributes is None else attributes
        self.events = [] if events is None else events
        self.resource = {} if resource is None else resource
        self.scope_name = scope_name
        self.scope_version = scope_version


def has_key_prefix(attributes: dict[str, Any], prefix: str) -> bool:
    """Whether some key starts with ``prefix`` (a non-string key answers True:
    the caller then scans as it would anyway).

    Readers of flattened attributes (``llm.input_messages.<i>.…``) use it to
    skip spans that carry none (most spans: only OpenInference flattens).
    Compiled, a loop over the keys costs half what joining them into one
    string to search did (the way that was cheapest interpreted)."""
    keys: Iterable[object] = attributes  # a stray non-string key must not raise
    for key in keys:  # noqa: SIM110 - a plain loop, as compiled and measured
        if not isinstance(key, str) or key.startswith(prefix):
            return True
    return False


def carries_none(attributes: dict[str, Any], keys: tuple[str, ...]) -> bool:
    """True when ``attributes`` has none of ``keys``: readers that would
    otherwise try each key of a convention table in turn pass a span over
    with one call. A loop of dict look-ups over a short tuple, not
    ``attributes.keys().isdisjoint(frozenset)``: compiled, that built a view
    and an iterator and made a generic containment call per key."""
    for key in keys:  # noqa: SIM110 - a plain loop, as compiled and measured
        if key in attributes:
            return False
    return True
