"""The two tools every recipe's agent has, so their traces compare across
frameworks: a weather look-up from a fixed table and a calculator.

The calculator walks Python's own expression tree and allows numbers and the
four operations only; ``eval`` on a model's arguments would run anything.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable

WEATHER: dict[str, dict[str, float | str]] = {
    "paris": {"temperature_c": 18.5, "condition": "partly cloudy", "humidity": 0.62},
    "tokyo": {"temperature_c": 24.0, "condition": "clear", "humidity": 0.55},
    "london": {"temperature_c": 12.0, "condition": "light rain", "humidity": 0.81},
}

_OPERATIONS: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}


class UnknownCityError(LookupError):
    """The weather table has no such city; the agent should say so."""


def get_weather(city: str) -> dict[str, float | str]:
    """Current weather for a city: temperature in °C, condition and humidity."""
    found = WEATHER.get(city.strip().lower())
    if found is None:
        known = ", ".join(sorted(name.title() for name in WEATHER))
        raise UnknownCityError(f"Unknown city: {city!r}. Known cities: {known}.")
    return {"city": city.strip().title(), **found}


def calculator(expression: str) -> float:
    """The value of an arithmetic expression of numbers, + - * / and brackets."""
    return _value(ast.parse(expression.strip(), mode="eval").body)


def _value(node: ast.expr) -> float:
    value = node.value if isinstance(node, ast.Constant) else None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATIONS:
        return _OPERATIONS[type(node.op)](_value(node.left), _value(node.right))
    raise ValueError(f"not arithmetic: {ast.unparse(node)!r} (numbers and + - * / only)")


def number_text(value: float) -> str:
    """161.0 → "161", 75.2 → "75.2": how an answer would write it."""
    return str(int(value)) if value == int(value) else f"{value:g}"
