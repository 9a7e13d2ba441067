"""The ingest path's row building: memoised span facts equal the convention tables'."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from receivers.conventions import iris as iris_conv
from receivers.mapping import classify_span, finalize_requested
from receivers.otlp.decode import INGEST_ATTRIBUTE_KEYS
from receivers.spans import OTLP_SPAN_KINDS, SpanRecord
from service import ingest

# Values that collide as dict keys (1 == True == 1.0) or differ only in type.
values = st.one_of(
    st.sampled_from(
        [0, 1, True, False, 1.0, 0.0, "1", "true", "True", "no", "", "chat", "tool", "agent"]
    ),
    st.text(max_size=10),
    st.lists(st.sampled_from(["a", 1]), max_size=2),
)
names = st.one_of(
    st.sampled_from(["agent run", "invoke_agent", "chat gpt-4o", "execute_tool x", "run"]),
    st.text(max_size=10),
)
# the ingest keys, and others a JSON-decoded span carries (the memo ignores them)
keys = st.one_of(
    st.sampled_from(sorted(INGEST_ATTRIBUTE_KEYS)),
    st.sampled_from(["gen_ai.input.messages", "llm.model_name", "x"]),
)


@st.composite
def records(draw: st.DrawFn) -> SpanRecord:
    attributes: dict[str, Any] = draw(st.dictionaries(keys, values, max_size=4))
    return SpanRecord(
        "ab" * 16,
        "cd" * 8,
        draw(names),
        kind=draw(st.sampled_from(sorted(OTLP_SPAN_KINDS.values()))),
        attributes=attributes,
    )


@settings(max_examples=400, deadline=None)
@given(st.lists(records(), min_size=1, max_size=6))
def test_memoised_span_facts_equal_the_convention_tables(batch: list[SpanRecord]) -> None:
    # the same records twice: the second pass answers from the memo
    for record in batch + batch:
        assert ingest.span_facts(record) == (classify_span(record), finalize_requested(record))


def test_the_memo_is_bounded() -> None:
    for i in range(ingest.SPAN_FACTS_MAX + 10):
        record = SpanRecord("ab" * 16, "cd" * 8, f"span {i}", attributes={"iris.finalize": "1"})
        assert ingest.span_facts(record)[1] is True
    assert len(ingest._SPAN_FACTS) <= ingest.SPAN_FACTS_MAX
    assert iris_conv.FINALIZE == ("iris.finalize",)


def test_markers_are_not_read_by_value() -> None:
    # The memo keys markers by name only; that is right only while no
    # convention reads one of them by value.
    from receivers.conventions import genai_current as gc
    from receivers.conventions import langsmith as ls
    from receivers.conventions import openinference as oi
    from receivers.conventions import traceloop as tl

    read_by_value = {gc.OPERATION_NAME, oi.SPAN_KIND, ls.SPAN_KIND, tl.SPAN_KIND}
    read_by_value.update(iris_conv.FINALIZE)
    assert not ingest.PRESENCE_KEYS & read_by_value
    assert ingest.PRESENCE_KEYS <= INGEST_ATTRIBUTE_KEYS


def test_tool_spans_with_their_own_call_ids_share_one_memo_entry() -> None:
    ingest._SPAN_FACTS.clear()
    for i in range(50):
        record = SpanRecord(
            "ab" * 16,
            "cd" * 8,
            "execute_tool search",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.call.id": f"call_{i}",
            },
        )
        assert ingest.span_facts(record) == ("TOOL", False)
    assert len(ingest._SPAN_FACTS) == 1
