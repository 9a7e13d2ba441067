"""The cached per-rule ``Judged`` makers give the Judged the engine built inline.

``engine._builtin_rows`` binds each built-in rule's metadata (and its
effective criticality under the config's lists) once per eval type and
critical lists; these check the bound fields against a plain construction
for every eval type and several critical lists, and that a change of the
registry's specs is noticed.
"""

from __future__ import annotations

import pytest

from evaluators import engine
from evaluators.judged import Judged
from evaluators.rules import registry
from evaluators.rules.base import Outcome
from evaluators.rules.registry import BUNDLES, RULES, effective_critical, rules_for
from tests.support.judged import builtin_judged

OUT = Outcome(True, 1.0, "ok", [])


def _plain(eval_type: str, crit: tuple[str, ...], non: tuple[str, ...]) -> list[Judged]:
    out = []
    for spec in rules_for(eval_type):
        is_crit, src = effective_critical(spec, crit, non)
        out.append(builtin_judged(spec, OUT, critical=is_crit, source=src))
    return out


LISTS = [
    ((), ()),
    (("no_pii", "max_steps"), ()),
    ((), ("no_pii", "no_injection_patterns")),
    (("no_pii",), ("no_pii", "keyword_overlap")),
]


@pytest.mark.parametrize("eval_type", ["all", *BUNDLES])
@pytest.mark.parametrize(("crit", "non"), LISTS)
def test_rows_equal_the_plain_construction(
    eval_type: str, crit: tuple[str, ...], non: tuple[str, ...]
) -> None:
    for _ in range(2):  # built, then from the cache
        rows = engine._builtin_rows(eval_type, crit, non)
        assert [spec for spec, _, _ in rows] == list(rules_for(eval_type))
        assert [make(OUT) for _, make, _ in rows] == _plain(eval_type, crit, non)


def test_a_changed_registry_is_noticed(monkeypatch: pytest.MonkeyPatch) -> None:
    engine._builtin_rows("all", (), ())
    fewer = RULES[:3]
    # the registry's table itself: engine's call of rules_for is bound
    # natively when compiled, a patched rules_for would not be called
    monkeypatch.setattr(registry, "RULES", fewer)
    assert rules_for("all") == fewer
    rows = engine._builtin_rows("all", (), ())
    assert [spec for spec, _, _ in rows] == list(fewer)


def test_each_call_gets_fresh_judged() -> None:
    (_, make, _), *_ = engine._builtin_rows("all", (), ())
    a, b = make(OUT), make(OUT)
    assert a == b and a is not b
    a.role = "gate"
    assert b.role == "advisory"
