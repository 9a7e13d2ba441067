"""The running release, read from package metadata."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def iris_version() -> str:
    try:
        return version("iris-collector")
    except PackageNotFoundError:  # running from a source tree without install
        return "0.0.0+source"
