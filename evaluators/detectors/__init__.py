"""Disguise-proof text detectors for the safety rules (no_pii, no_injection_patterns,
no_blocklist_words). Each returns :class:`Finding` objects with offsets into the raw text."""

from evaluators.detectors.blocklist import DEFAULT_BLOCKLIST, find_blocklist
from evaluators.detectors.findings import Finding
from evaluators.detectors.injection import find_injection
from evaluators.detectors.pii import find_pii

__all__ = ["DEFAULT_BLOCKLIST", "Finding", "find_blocklist", "find_injection", "find_pii"]
