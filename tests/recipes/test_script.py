"""recipes/script.py: the scripted model's plan and answers."""

from __future__ import annotations

from recipes.script import answer_sentence, planned_calls


def test_each_city_once_and_each_sum_becomes_a_call_in_order() -> None:
    assert planned_calls("What's the weather in Paris, and in Paris again, and 23 * 7?") == [
        ("call_w0", "get_weather", {"city": "Paris"}),
        ("call_c0", "calculator", {"expression": "23 * 7"}),
    ]
    assert planned_calls("Convert: 24 * 9 / 5 + 32") == [
        ("call_c0", "calculator", {"expression": "24 * 9 / 5 + 32"})
    ]
    assert planned_calls("Hello there") == []  # the model answers NOTHING_TO_DO


def test_answers_say_what_came_back_or_what_failed() -> None:
    paris = {"city": "Paris", "temperature_c": 18.5, "condition": "partly cloudy"}
    assert answer_sentence("get_weather", {"city": "Paris"}, paris, failed=False) == (
        "In Paris it is currently 18.5°C and partly cloudy."
    )
    assert answer_sentence("calculator", {}, "161.0", failed=False) == "The result is 161."
    assert answer_sentence("get_weather", {"city": "Atlantis"}, "Unknown city", failed=True) == (
        "I couldn't get the weather for Atlantis: Unknown city"
    )
