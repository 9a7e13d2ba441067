"""Locate where a protobuf body stops being a valid message.

upb's ``DecodeError`` says only "Error parsing message", but SPEC §7.3 wants a
400 that points at the byte offset. This walker runs only after a parse has
failed (so its speed does not matter): it follows the wire format guided by the
message descriptors and reports the first offset and field path that is wrong.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import FieldDescriptor

_WT_VARINT, _WT_I64, _WT_LEN, _WT_SGROUP, _WT_EGROUP, _WT_I32 = 0, 1, 2, 3, 4, 5


class _WireError(ValueError):
    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def write_varint(n: int) -> bytes:
    """``n`` (not negative) as a protobuf varint."""
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def read_varint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    """(value, position after it) of the varint at ``pos``; ``ValueError`` if
    it is truncated or too long."""
    result = shift = 0
    start = pos
    while True:
        if pos >= end:
            raise _WireError("truncated varint", start)
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise _WireError("varint longer than 10 bytes", start)


# How deep ``_walk`` follows nested messages: compiled, it has no interpreter
# recursion limit to stop it before the C stack overflows. Python's default
# limit, where it stopped before it was compiled.
_MAX_NESTING = 1000


def _walk(buf: bytes, pos: int, end: int, descriptor: Any, path: str, depth: int = 0) -> None:
    if depth > _MAX_NESTING:
        raise RecursionError(f"{path}: nested more than {_MAX_NESTING} deep")
    fields = descriptor.fields_by_number if descriptor is not None else {}
    while pos < end:
        tag_at = pos
        tag, pos = read_varint(buf, pos, end)
        number, wire_type = tag >> 3, tag & 7
        if number == 0:
            raise _WireError(f"{path}: field number 0 is invalid", tag_at)
        field = fields.get(number)
        name = f"{path}.{field.name}" if field is not None else f"{path}.<field {number}>"
        if wire_type == _WT_VARINT:
            _, pos = read_varint(buf, pos, end)
        elif wire_type == _WT_I64:
            if pos + 8 > end:
                raise _WireError(f"{name}: truncated 64-bit value", pos)
            pos += 8
        elif wire_type == _WT_I32:
            if pos + 4 > end:
                raise _WireError(f"{name}: truncated 32-bit value", pos)
            pos += 4
        elif wire_type == _WT_LEN:
            len_at = pos
            length, pos = read_varint(buf, pos, end)
            if pos + length > end:
                raise _WireError(
                    f"{name}: length {length} runs past the end of its enclosing message", len_at
                )
            if field is not None and field.type == FieldDescriptor.TYPE_MESSAGE:
                _walk(buf, pos, pos + length, field.message_type, name, depth + 1)
            elif field is not None and field.type == FieldDescriptor.TYPE_STRING:
                try:
                    buf[pos : pos + length].decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise _WireError(
                        f"{name}: string is not valid UTF-8", pos + exc.start
                    ) from None
            pos += length
        elif wire_type in (_WT_SGROUP, _WT_EGROUP):
            raise _WireError(f"{name}: groups (wire type {wire_type}) are not valid here", tag_at)
        else:
            raise _WireError(f"{name}: invalid wire type {wire_type}", tag_at)
        if field is not None and _wire_mismatch(field, wire_type):
            raise _WireError(f"{name}: wire type {wire_type} does not match the field type", tag_at)


def _wire_mismatch(field: Any, wire_type: int) -> bool:
    """A known field sent with the wrong wire type (packed repeated scalars are LEN)."""
    t = field.type
    if t in (FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES):
        return wire_type != _WT_LEN
    if wire_type == _WT_LEN:
        return not _is_repeated(field)
    if t in _I64_TYPES:
        return wire_type != _WT_I64
    if t in _I32_TYPES:
        return wire_type != _WT_I32
    return wire_type != _WT_VARINT


_I64_TYPES = (
    FieldDescriptor.TYPE_FIXED64,
    FieldDescriptor.TYPE_SFIXED64,
    FieldDescriptor.TYPE_DOUBLE,
)
_I32_TYPES = (
    FieldDescriptor.TYPE_FIXED32,
    FieldDescriptor.TYPE_SFIXED32,
    FieldDescriptor.TYPE_FLOAT,
)


def _is_repeated(field: Any) -> bool:
    is_rep = getattr(field, "is_repeated", None)
    if isinstance(is_rep, bool):
        return is_rep
    return bool(field.label == FieldDescriptor.LABEL_REPEATED)


def locate_error(body: bytes, descriptor: Any, root: str) -> tuple[str, int | None]:
    """Describe the first wire-format fault in ``body``: (message with field path, offset)."""
    try:
        _walk(body, 0, len(body), descriptor, root)
    except _WireError as err:
        return err.message, err.offset
    except RecursionError:
        return f"{root}: message nesting too deep", None
    return f"{root}: body does not parse as this message type", None
