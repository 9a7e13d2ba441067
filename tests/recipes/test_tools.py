"""recipes/tools.py: the calculator is arithmetic and nothing else."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from recipes.tools import UnknownCityError, calculator, get_weather, number_text

_numbers = st.integers(min_value=0, max_value=10_000).map(str)


@st.composite
def _expressions(draw: st.DrawFn) -> str:
    parts = [draw(_numbers)]
    for _ in range(draw(st.integers(min_value=0, max_value=5))):
        parts += [draw(st.sampled_from(["+", "-", "*"])), draw(_numbers)]
    return " ".join(parts)


@given(_expressions())
def test_the_calculator_agrees_with_python_on_arithmetic(expression: str) -> None:
    assert calculator(expression) == float(eval(expression))  # test oracle only


@pytest.mark.parametrize(
    "expression",
    ["__import__('os').system('true')", "2 ** 64", "True + 1", "x * 2", "[1][0]", "'a' * 3"],
)
def test_anything_but_numbers_and_four_operations_is_refused(expression: str) -> None:
    with pytest.raises(ValueError, match="numbers and"):
        calculator(expression)


def test_division_and_brackets() -> None:
    assert calculator("24 * 9 / 5 + 32") == 75.2
    assert calculator("-(2 + 3) * 4") == -20.0


def test_weather_of_a_known_city_and_a_named_error_for_an_unknown_one() -> None:
    assert get_weather(" paris ")["temperature_c"] == 18.5
    with pytest.raises(UnknownCityError, match=r"Unknown city: 'Atlantis'\. Known cities: London"):
        get_weather("Atlantis")


def test_numbers_are_written_as_an_answer_would() -> None:
    assert [number_text(161.0), number_text(75.2), number_text(-3.0)] == ["161", "75.2", "-3"]
