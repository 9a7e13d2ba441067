"""Text views for the safety detectors.

Detectors never look at the caller's raw string directly: they read a
normalised view built by :func:`normalize`, whose offset table lets every
finding point back at the exact raw characters it came from.
"""

from evaluators.text.normalize import NormalizedText, normalize

__all__ = ["NormalizedText", "normalize"]
