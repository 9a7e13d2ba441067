"""Bernoulli CUSUM regression alarm on a rule's failure rate (SPEC §12.6).

The chart is Page's cumulative sum (E. S. Page (1954), "Continuous inspection
schemes", Biometrika 41:100–115) of log-likelihood ratios for Bernoulli
observations — the Bernoulli CUSUM of M. R. Reynolds & Z. G. Stoumbos (1999),
"A CUSUM chart for monitoring a proportion when inspecting continuously",
Journal of Quality Technology 31:87–108:

    S_t = max(0, S_{t−1} + LLR_t),  LLR = ln(p1/p0) on a fail,
                                     ln((1−p1)/(1−p0)) on a pass,

alarm when S_t > h.  Using the LLR as the increment makes the reference value
k implicit: k = ln((1−p0)/(1−p1)) / ln(p1(1−p0)/(p0(1−p1))) per observation in
"count" units, which is the optimal (sequential-probability-ratio) choice for
detecting a shift from p0 to p1 (Moustakides 1986).

How the numbers are chosen, all derived, none typed:

* **Baseline** p0 is learnt from the stream itself: the Jeffreys estimate
  ``(fails + ½)/(n + 1)``, settled once ten fails are expected and its standard
  error is at most a quarter of the shift δ = 0.10 to detect.
* **Shift** p1 = min(0.999, p0 + δ).
* **Line h** so that the in-control false-alarm rate is 1/ARL₀ = 1/500
  *averaged over the baseline's posterior* Beta(fails+½, n−fails+½): the chart
  is built from an estimate, and an estimate a little too low would otherwise
  make it alarm far more often than designed (Jones, Champ & Rigdon 2004 on
  estimated-parameter CUSUMs).  Found by bisection on h ∈ [0.25, 16] (16
  halvings) over a seeded simulation of 100 streams × 4000 steps; the 100
  streams take the posterior's quantiles at (k+½)/100 (stratified sampling, a
  lower-variance form of drawing from it).
* **Family correction** per agent: with m streams watched for one agent each
  stream's line is raised until its simulated rate is 1/(500·m), so the agent
  as a whole sees about one false alarm per 500 evaluations however many rules
  it runs.  The SPEC writes this as ``h + ln(m)/θ`` with θ the slope of
  ln(rate) between h and h + 1.5 (kept as :func:`family_threshold` and
  ``CusumLimit.theta``); that extrapolation assumes one exponential, but the
  posterior-averaged rate is a mixture whose slope flattens further out, and
  measured on 25 rules it alarmed about twice too often.  The family line is
  therefore found by the same bisection at the family target
  (:func:`cusum_family_line`), on [h, h + ln(m)/0.2].

The simulation uses common random numbers, and draws the number of passes
before the next fail from the geometric distribution in one step (only fails
move S up, so alarms can only happen on fails): exact, and 1/p times faster
than drawing every Bernoulli.  Random numbers come from
:func:`evaluators.stats.seeded_rng`'s generator family (Mersenne Twister seeded
through FNV-1a), so the derived line is identical on every machine.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from evaluators.statistics.special import beta_ppf
from evaluators.stats import fnv1a

DEFAULT_DELTA = 0.10
DEFAULT_ARL0 = 500.0
SIM_STREAMS = 100
SIM_STEPS = 4000
SIM_HALVINGS = 16
H_RANGE = (0.25, 16.0)
THETA_STEP = 1.5
THETA_RANGE = (0.2, 1.0)
P1_CAP = 0.999


def jeffreys_rate(fails: int, n: int) -> float:
    """Jeffreys estimate of the fail rate, ``(fails + ½)/(n + 1)``."""
    return (fails + 0.5) / (n + 1.0)


def baseline_settled(fails: int, n: int, delta: float = DEFAULT_DELTA) -> bool:
    """Has the baseline seen enough? (SPEC §12.6)

    Ten expected fails (``n·p̂0 ≥ 10``) and a standard error no larger than a
    quarter of the shift to detect (``√(p̂0(1−p̂0)/n) ≤ δ/4``).  At a 20% fail
    rate that takes 256 evaluations, at 50% 400.
    """
    if n <= 0:
        return False
    p0 = jeffreys_rate(fails, n)
    return n * p0 >= 10.0 and math.sqrt(p0 * (1.0 - p0) / n) <= 0.25 * delta


def llr_steps(p0: float, p1: float) -> tuple[float, float]:
    """The two CUSUM increments: (ln(p1/p0) on a fail, ln((1−p1)/(1−p0)) on a pass)."""
    return math.log(p1 / p0), math.log((1.0 - p1) / (1.0 - p0))


@dataclass(frozen=True)
class CusumLimit:
    """The designed chart for one baseline.

    ``h`` gives an in-control alarm rate of 1/``arl0`` for a single stream;
    ``theta`` is the measured slope of ln(rate) in h used by the family
    correction; ``rate_at_h`` is the simulated in-control rate at ``h``.
    """

    p0: float
    p1: float
    up: float
    down: float
    h: float
    theta: float
    rate_at_h: float
    baseline_fails: int
    baseline_n: int
    delta: float
    arl0: float
    sim_streams: int = SIM_STREAMS
    sim_steps: int = SIM_STEPS
    sim_halvings: int = SIM_HALVINGS

    def family_h(self, streams: int) -> float:
        """The line for one of ``streams`` streams of an agent (rate 1/(arl0·m)).

        Simulated directly (:func:`cusum_family_line`); the SPEC's closed form
        ``h + ln(m)/θ`` is :func:`family_threshold`.
        """
        return cusum_family_line(
            self.baseline_fails,
            self.baseline_n,
            streams,
            self.delta,
            self.arl0,
            streams=self.sim_streams,
            steps=self.sim_steps,
            halvings=self.sim_halvings,
        )


def family_threshold(h: float, theta: float, streams: int) -> float:
    """Per-agent family correction ``h + ln(m)/θ`` (m ≥ 1)."""
    m = max(1, streams)
    return h + math.log(m) / theta


class _Run:
    """One simulated run from S = 0, extended lazily; kept as its record highs."""

    __slots__ = ("best", "levels", "next_gap", "next_t", "rand", "s", "times")

    def __init__(self, rand: Any, inv_log_q: float) -> None:
        self.rand = rand
        self.s = 0.0
        self.best = 0.0
        self.times: list[int] = []
        self.levels: list[float] = []
        self.next_gap = int(math.log(1.0 - rand()) * inv_log_q)
        self.next_t = self.next_gap + 1


class _Simulator:
    """Alarm rates of the chart (p0, p1) over streams with posterior true rates.

    A stream is a sequence of independent runs, each starting from S = 0 and
    ending at its alarm; run (k, j) draws its random numbers from a generator
    seeded by (seed, k, j) alone, so its path is the same whatever h is asked
    (common random numbers, which keeps the bisection monotone in practice).
    Each run is simulated only as far as some query has needed — to its first
    passage above h or to the step budget left in its stream — and kept as its
    record highs (time, level), from which the first passage above any lower h
    is read without simulating again.
    """

    def __init__(
        self, true_rates: list[float], up: float, down: float, steps: int, seed: int
    ) -> None:
        self.rates = true_rates
        self.up = up
        self.fall = -down  # > 0: how far one pass lowers S
        self.steps = steps
        self.seed = seed
        self.inv_log_q = [
            (1.0 / math.log1p(-p) if p < 1.0 else 0.0) if p > 0.0 else -0.0 for p in true_rates
        ]
        self.runs: dict[tuple[int, int], _Run] = {}

    def _extend(self, run: _Run, inv_log_q: float, h: float, budget: int) -> None:
        """Simulate on until S > h or the next fail falls beyond ``budget``."""
        rand = run.rand
        log = math.log
        up, fall = self.up, self.fall
        s, best = run.s, run.best
        gap, t = run.next_gap, run.next_t
        times, levels = run.times, run.levels
        while t <= budget:
            s -= gap * fall
            if s < 0.0:
                s = 0.0
            s += up
            # Passes before the next fail ~ Geometric(p): ⌊ln U / ln(1−p)⌋.
            gap = int(log(1.0 - rand()) * inv_log_q)
            crossed = False
            if s > best:
                best = s
                times.append(t)
                levels.append(s)
                crossed = s > h
            t += gap + 1
            if crossed:
                break
        run.s, run.best, run.next_gap, run.next_t = s, best, gap, t

    def _first_passage(self, k: int, j: int, h: float, budget: int) -> int | None:
        """Steps run (k, j) takes to exceed h, or None if not within ``budget``."""
        run = self.runs.get((k, j))
        if run is None:
            if self.rates[k] <= 0.0:
                return None
            rng = random.Random((self.seed << 40) | (k << 20) | j)
            run = _Run(rng.random, self.inv_log_q[k])
            self.runs[(k, j)] = run
        i = bisect_right(run.levels, h)
        if i == len(run.levels):
            if run.next_t > budget:
                return None
            self._extend(run, self.inv_log_q[k], h, budget)
            i = bisect_right(run.levels, h)
            if i == len(run.levels):
                return None
        t = run.times[i]
        return t if t <= budget else None

    def rate(self, h: float) -> float:
        """Mean over streams of alarms per step, resetting S to 0 after each alarm."""
        total = 0.0
        for k in range(len(self.rates)):
            used = 0
            alarms = 0
            j = 0
            while used < self.steps:
                t = self._first_passage(k, j, h, self.steps - used)
                if t is None:
                    break
                used += t
                alarms += 1
                j += 1
            total += alarms / self.steps
        return total / len(self.rates)


@lru_cache(maxsize=32)
def _simulator(
    fails: int, n: int, delta: float, arl0: float, streams: int, steps: int
) -> _Simulator:
    # Kept (with its simulated runs) so the family line reuses the paths the
    # base line already drew.
    p0 = jeffreys_rate(fails, n)
    p1 = min(P1_CAP, p0 + delta)
    up, down = llr_steps(p0, p1)
    a, b = fails + 0.5, n - fails + 0.5
    rates = [beta_ppf((k + 0.5) / streams, a, b) for k in range(streams)]
    seed = fnv1a(f"iris.cusum|{fails}|{n}|{delta!r}|{arl0!r}|{streams}|{steps}")
    return _Simulator(rates, up, down, steps, seed)


def _bisect_line(sim: _Simulator, target: float, lo: float, hi: float, halvings: int) -> float:
    for _ in range(halvings):
        mid = 0.5 * (lo + hi)
        if sim.rate(mid) > target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


@lru_cache(maxsize=4096)
def cusum_limit(
    fails: int,
    n: int,
    delta: float = DEFAULT_DELTA,
    arl0: float = DEFAULT_ARL0,
    *,
    streams: int = SIM_STREAMS,
    steps: int = SIM_STEPS,
    halvings: int = SIM_HALVINGS,
) -> CusumLimit:
    """Design the chart for a baseline of ``fails`` in ``n`` (SPEC §12.6).

    Returns the line h at which the simulated in-control alarm rate, averaged
    over the baseline posterior, is 1/``arl0``, plus the slope θ of the SPEC's
    family formula.  Deterministic (seeded by the arguments) and memoised.
    """
    if n <= 0 or not 0 <= fails <= n:
        raise ValueError(f"baseline needs 0 ≤ fails ≤ n, n > 0: fails={fails}, n={n}")
    sim = _simulator(fails, n, delta, arl0, streams, steps)
    p0 = jeffreys_rate(fails, n)
    p1 = min(P1_CAP, p0 + delta)
    h = _bisect_line(sim, 1.0 / arl0, H_RANGE[0], H_RANGE[1], halvings)
    r_h = sim.rate(h)
    r_far = sim.rate(h + THETA_STEP)
    # No alarm at one of the two lines leaves no slope to measure: assume the
    # correctly-specified value θ = 1 (the top of the clamp).
    slope = math.log(r_h / r_far) / THETA_STEP if r_h > 0.0 and r_far > 0.0 else 1.0
    theta = min(THETA_RANGE[1], max(THETA_RANGE[0], slope))
    return CusumLimit(
        p0, p1, sim.up, -sim.fall, h, theta, r_h, fails, n, delta, arl0, streams, steps, halvings
    )


@lru_cache(maxsize=4096)
def cusum_family_line(
    fails: int,
    n: int,
    family: int,
    delta: float = DEFAULT_DELTA,
    arl0: float = DEFAULT_ARL0,
    *,
    streams: int = SIM_STREAMS,
    steps: int = SIM_STEPS,
    halvings: int = SIM_HALVINGS,
) -> float:
    """The line for one of ``family`` streams of an agent: rate 1/(arl0·m).

    Found the same way as the base line — bisection over the posterior-averaged
    simulation — on [h, h + ln(m)/0.2].  This replaces the SPEC's extrapolation
    ``h + ln(m)/θ``: the posterior-averaged rate is a mixture of exponentials in
    h whose slope flattens further out (streams whose baseline underestimated
    the fail rate dominate there), so θ measured over [h, h + 1.5] overshoots
    and the extrapolated line alarmed about twice as often as designed
    (measured: per-agent ARL ≈ 230 instead of 500 for 25 rules).
    """
    base = cusum_limit(fails, n, delta, arl0, streams=streams, steps=steps, halvings=halvings)
    m = max(1, family)
    if m == 1:
        return base.h
    sim = _simulator(fails, n, delta, arl0, streams, steps)
    top = base.h + math.log(m) / THETA_RANGE[0]
    return _bisect_line(sim, 1.0 / (arl0 * m), base.h, top, halvings)


@dataclass(frozen=True)
class CusumAlarm:
    """A regression-alarm moment (SPEC §12.6): where the fail rate crossed the line."""

    rule: str
    trace_id: str | None
    run: str | None
    p0: float
    baseline_n: int
    monitored_n: int
    monitored_fails: int
    current_rate: float
    h: float
    streams: int
    statistic: float
    agent: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The moment's JSON shape: ``{rule, traceId, run, p0, baselineN, …}``."""
        return {
            "rule": self.rule,
            "traceId": self.trace_id,
            "run": self.run,
            "p0": round(self.p0, 4),
            "baselineN": self.baseline_n,
            "monitoredN": self.monitored_n,
            "monitoredFails": self.monitored_fails,
            "currentRate": round(self.current_rate, 4),
            "h": round(self.h, 4),
            "streams": self.streams,
            "statistic": round(self.statistic, 4),
        }


@dataclass
class CusumStream:
    """One monitored stream: a rule of an agent (optionally within one run).

    Feed observations in timestamp order with :meth:`observe` (``failed`` is
    True when the rule ran and failed; do not feed evaluations where the rule
    did not run).  The stream learns its baseline, designs its line, watches,
    and after an alarm resets and learns a new baseline from the next
    observation.  It reports; it never gates.
    """

    rule: str
    streams: int = 1
    run: str | None = None
    agent: str | None = None
    delta: float = DEFAULT_DELTA
    arl0: float = DEFAULT_ARL0
    baseline_fails: int = 0
    baseline_n: int = 0
    limit: CusumLimit | None = None
    h: float | None = None
    statistic: float = 0.0
    monitored_n: int = 0
    monitored_fails: int = 0
    alarms: list[CusumAlarm] = field(default_factory=list)

    @property
    def watching(self) -> bool:
        return self.limit is not None

    def observe(self, failed: bool, trace_id: str | None = None) -> CusumAlarm | None:
        """Take one observation; return an alarm when the line is crossed."""
        if self.limit is None:
            self.baseline_n += 1
            self.baseline_fails += int(failed)
            if baseline_settled(self.baseline_fails, self.baseline_n, self.delta):
                self.limit = cusum_limit(
                    self.baseline_fails, self.baseline_n, self.delta, self.arl0
                )
                self.h = self.limit.family_h(self.streams)
                self.statistic = 0.0
                self.monitored_n = self.monitored_fails = 0
            return None
        assert self.h is not None
        step = self.limit.up if failed else self.limit.down
        self.statistic = max(0.0, self.statistic + step)
        self.monitored_n += 1
        self.monitored_fails += int(failed)
        if self.statistic <= self.h:
            return None
        alarm = CusumAlarm(
            rule=self.rule,
            trace_id=trace_id,
            run=self.run,
            p0=self.limit.p0,
            baseline_n=self.baseline_n,
            monitored_n=self.monitored_n,
            monitored_fails=self.monitored_fails,
            current_rate=self.monitored_fails / self.monitored_n,
            h=self.h,
            streams=self.streams,
            statistic=self.statistic,
            agent=self.agent,
        )
        self.alarms.append(alarm)
        self.limit = None
        self.h = None
        self.baseline_fails = self.baseline_n = 0
        self.statistic = 0.0
        return alarm


@dataclass(frozen=True)
class RuleObservation:
    """One evaluation where ``rule`` ran for ``agent`` (input to :func:`regression_alarms`)."""

    agent: str
    rule: str
    failed: bool
    timestamp: str
    trace_id: str | None = None
    run: str | None = None


def regression_alarms(
    observations: list[RuleObservation],
    *,
    delta: float = DEFAULT_DELTA,
    arl0: float = DEFAULT_ARL0,
) -> list[CusumAlarm]:
    """Run every stream of SPEC §12.6 over a log and return the alarms in order.

    Streams: one per (agent, rule), plus one per (agent, run, rule) for
    observations carrying a run.  The family size m of an agent is its number
    of rules, doubled when any of its observations carries a run.  Observations
    are processed in (timestamp, input order).
    """
    rules_by_agent: dict[str, set[str]] = {}
    has_runs: dict[str, bool] = {}
    for o in observations:
        rules_by_agent.setdefault(o.agent, set()).add(o.rule)
        has_runs[o.agent] = has_runs.get(o.agent, False) or o.run is not None
    family = {
        agent: len(rules) * (2 if has_runs[agent] else 1) for agent, rules in rules_by_agent.items()
    }
    streams: dict[tuple[str, str | None, str], CusumStream] = {}
    alarms: list[CusumAlarm] = []
    order = sorted(range(len(observations)), key=lambda i: (observations[i].timestamp, i))
    for i in order:
        o = observations[i]
        keys: list[tuple[str, str | None, str]] = [(o.agent, None, o.rule)]
        if o.run is not None:
            keys.append((o.agent, o.run, o.rule))
        for key in keys:
            stream = streams.get(key)
            if stream is None:
                stream = CusumStream(
                    rule=o.rule,
                    streams=family[o.agent],
                    run=key[1],
                    agent=o.agent,
                    delta=delta,
                    arl0=arl0,
                )
                streams[key] = stream
            alarm = stream.observe(o.failed, o.trace_id)
            if alarm is not None:
                alarms.append(alarm)
    return alarms
