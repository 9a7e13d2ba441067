"""Errors the OTLP decoding layer raises.

The servers translate these into protocol answers (400 for a body that does
not decode, 413 for one that inflates past the cap, 415 for an encoding we do
not speak), so each carries enough detail for a useful error message.
"""

from __future__ import annotations


class OtlpDecodeError(ValueError):
    """A body that is not a well-formed OTLP request.

    ``offset`` is the byte offset (protobuf) or character offset (JSON syntax)
    where decoding broke, when it is known; the message names the field path.
    """

    def __init__(self, message: str, offset: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset

    def __str__(self) -> str:
        if self.offset is None:
            return self.message
        return f"{self.message} (at offset {self.offset})"


class BodyTooLarge(ValueError):
    """The (decompressed) body would exceed the configured byte cap."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(f"body exceeds the limit of {max_bytes} bytes once decompressed")
        self.max_bytes = max_bytes


class UnsupportedEncoding(ValueError):
    """A ``Content-Encoding`` we do not decode; the message lists the accepted ones."""

    def __init__(self, encoding: str, accepted: tuple[str, ...]) -> None:
        super().__init__(
            f"unsupported Content-Encoding {encoding!r}; accepted: {', '.join(accepted)}"
        )
        self.encoding = encoding
        self.accepted = accepted
