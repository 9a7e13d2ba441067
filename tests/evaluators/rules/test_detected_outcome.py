"""_from_findings: the result and evidence the three detector rules return.

Pinned against the straightforward construction through the evidence helpers
in ``evaluators.rules.base`` that it inlines.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.detectors.findings import Finding
from evaluators.rules.base import Outcome, pattern, span
from evaluators.rules.detected import _from_findings


def _reference(findings: list[Any], what: str, report_text: bool = True) -> Outcome:
    if not findings:
        return Outcome(True, 1.0, f"No {what} found.", saw=("output",))
    ev: list[dict[str, Any]] = []
    kinds: dict[str, int] = {}
    for f in findings:
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    for f in findings[:15]:
        ev.append(span("output", int(f.start), int(f.end), str(f.kind)))
    ev += [pattern(k, n) for k, n in sorted(kinds.items())][:5]
    names = ", ".join(f"{k} ×{n}" for k, n in sorted(kinds.items()))
    msg = (
        f"Found {len(findings)} {what}: {names}."
        if report_text
        else f"Found {len(findings)} {what}."
    )
    return Outcome(False, 0.0, msg, ev, saw=("output",))


_FINDINGS = st.lists(
    st.builds(
        Finding,
        st.sampled_from(["email", "phone", "ssn", "aws", "iban", "ip", "dob", "z"]),
        st.just("pii"),
        st.integers(0, 500),
        st.integers(0, 500),
        st.text(max_size=5),
        st.text(max_size=5),
    ),
    max_size=25,
)


@settings(max_examples=300, deadline=None)
@given(_FINDINGS, st.booleans())
def test_matches_the_helper_construction(findings: list[Finding], report_text: bool) -> None:
    assert _from_findings(findings, "match(es)", report_text) == _reference(
        findings, "match(es)", report_text
    )


def test_empty_passes() -> None:
    out = _from_findings([], "things")
    assert out.passed and out.score == 1.0 and out.message == "No things found."
