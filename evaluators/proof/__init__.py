"""Proof harness: measure every rule on a labelled corpus and publish figures."""
