"""Tests for evaluators.detectors."""
