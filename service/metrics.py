"""A small Prometheus registry: counters, gauges and summaries, text format.

Written here rather than pulled in as a dependency because Iris needs a
dozen series and the exposition format is a page of rules. Thread-safe: the
writer thread, the event loop and the supervisor all record into it.
"""

from __future__ import annotations

import math
import threading
from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Iterable

LabelKey = tuple[tuple[str, str], ...]


def _key(labels: dict[str, str] | None) -> LabelKey:
    return tuple(sorted((labels or {}).items()))


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _render_labels(key: LabelKey, extra: Iterable[tuple[str, str]] = ()) -> str:
    pairs = list(key) + list(extra)
    if not pairs:
        return ""
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in pairs) + "}"


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


class _Metric(ABC):
    kind = "untyped"

    def __init__(self, name: str, help_text: str):
        self.name = name
        self.help = help_text
        self._lock = threading.Lock()

    @abstractmethod
    def lines(self) -> list[str]:
        """The sample lines of this metric in exposition format."""

    def render(self) -> list[str]:
        return [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} {self.kind}", *self.lines()]


class Counter(_Metric):
    kind = "counter"

    def __init__(self, name: str, help_text: str):
        super().__init__(name, help_text)
        self._values: dict[LabelKey, float] = defaultdict(float)

    def inc(self, amount: float = 1.0, **labels: str) -> None:
        with self._lock:
            self._values[_key(labels)] += amount

    def set_total(self, total: float, **labels: str) -> None:
        """For a count kept elsewhere (in this process): its running total."""
        with self._lock:
            self._values[_key(labels)] = total

    def value(self, **labels: str) -> float:
        return self._values.get(_key(labels), 0.0)

    def lines(self) -> list[str]:
        with self._lock:
            items = sorted(self._values.items())
        return [f"{self.name}{_render_labels(k)} {_number(v)}" for k, v in items]


class Gauge(_Metric):
    kind = "gauge"

    def __init__(self, name: str, help_text: str):
        super().__init__(name, help_text)
        self._values: dict[LabelKey, float] = {}

    def set(self, value: float, **labels: str) -> None:
        with self._lock:
            self._values[_key(labels)] = value

    def lines(self) -> list[str]:
        with self._lock:
            items = sorted(self._values.items())
        return [f"{self.name}{_render_labels(k)} {_number(v)}" for k, v in items]


class Summary(_Metric):
    """Count, sum and quantiles over a sliding window of recent observations."""

    kind = "summary"
    WINDOW = 2048
    QUANTILES = (0.5, 0.9, 0.99)

    def __init__(self, name: str, help_text: str):
        super().__init__(name, help_text)
        self._count: dict[LabelKey, int] = defaultdict(int)
        self._sum: dict[LabelKey, float] = defaultdict(float)
        self._recent: dict[LabelKey, list[float]] = defaultdict(list)

    def observe(self, value: float, **labels: str) -> None:
        key = _key(labels)
        with self._lock:
            self._count[key] += 1
            self._sum[key] += value
            recent = self._recent[key]
            recent.append(value)
            if len(recent) > self.WINDOW:
                del recent[: len(recent) - self.WINDOW]

    def lines(self) -> list[str]:
        out = []
        with self._lock:
            keys = sorted(self._count)
            snapshot = {k: (self._count[k], self._sum[k], sorted(self._recent[k])) for k in keys}
        for key, (count, total, recent) in snapshot.items():
            for q in self.QUANTILES:
                value = recent[min(len(recent) - 1, int(q * len(recent)))] if recent else 0.0
                out.append(
                    f"{self.name}{_render_labels(key, [('quantile', str(q))])} {_number(value)}"
                )
            out.append(f"{self.name}_count{_render_labels(key)} {count}")
            out.append(f"{self.name}_sum{_render_labels(key)} {_number(total)}")
        return out


class Registry:
    def __init__(self) -> None:
        self._metrics: list[_Metric] = []

    def counter(self, name: str, help_text: str) -> Counter:
        metric = Counter(name, help_text)
        self._metrics.append(metric)
        return metric

    def gauge(self, name: str, help_text: str) -> Gauge:
        metric = Gauge(name, help_text)
        self._metrics.append(metric)
        return metric

    def summary(self, name: str, help_text: str) -> Summary:
        metric = Summary(name, help_text)
        self._metrics.append(metric)
        return metric

    def render(self) -> str:
        lines: list[str] = []
        for metric in self._metrics:
            lines.extend(metric.render())
        return "\n".join(lines) + "\n"


class IrisMetrics:
    """Every series Iris exports, in one place."""

    def __init__(self) -> None:
        r = self.registry = Registry()
        self.spans_received = r.counter("iris_spans_received_total", "Spans received, by protocol.")
        self.spans_accepted = r.counter(
            "iris_spans_accepted_total", "Spans committed to storage, by protocol."
        )
        self.spans_refused = r.counter(
            "iris_spans_refused_total", "Spans refused, by protocol and reason."
        )
        self.requests = r.counter(
            "iris_http_requests_total", "HTTP requests answered, by route group and status."
        )
        self.traces_ready = r.counter(
            "iris_traces_ready_total", "Traces the assembler marked ready."
        )
        self.commit_batch = r.summary(
            "iris_commit_batch_requests", "Requests coalesced into one commit."
        )
        self.commit_seconds = r.summary("iris_commit_seconds", "Time to apply and commit a batch.")
        self.queue_depth = r.gauge(
            "iris_queue_jobs", "Evaluation jobs waiting, running or failed, by state."
        )
        self.queue_oldest = r.gauge(
            "iris_queue_oldest_pending_seconds", "Age of the oldest pending evaluation job."
        )
        self.evaluations = r.counter(
            "iris_evaluations_total", "Evaluations stored by the worker pool, by bundle."
        )
        self.evaluation_seconds = r.summary(
            "iris_evaluation_batch_seconds_per_trace",
            "Worker time per trace (claim, derive, judge, store), by bundle.",
        )
        self.write_turns = r.counter(
            "iris_sqlite_write_turns_total",
            "Write transactions that took a turn at SQLite's one write lock, by process.",
        )
        self.write_wait_seconds = r.counter(
            "iris_sqlite_write_wait_seconds_total",
            "Seconds writers waited for their turn at SQLite's write lock, by process "
            "(growing near the workers' busy time: the database is the limit; see PostgreSQL).",
        )
        self.worker_restarts = r.counter(
            "iris_worker_restarts_total", "Worker processes restarted after dying."
        )
        self.workers_alive = r.gauge("iris_workers_alive", "Worker processes alive in this server.")
        self.inflight = r.gauge(
            "iris_ingest_inflight", "Spans and bytes admitted but not committed."
        )
