"""Tests for evaluators.text."""
