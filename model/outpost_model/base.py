"""What every entity shares: the base struct, the value types GitLab's and Sentry's JSON use, and the one
encoder and decoder."""

from __future__ import annotations

from typing import Any, TypeAlias, TypeVar

import msgspec
from msgspec import UNSET, UnsetType

__all__ = ["UNSET", "Entity", "Loose", "Message", "Text", "Time", "UnsetType", "decode", "encode"]

# A text field that may be null.
Text: TypeAlias = str | None
# An ISO 8601 time as GitLab and Sentry write it; both write null where the moment is unknown.
Time: TypeAlias = str | None
# A value an external Sentry passes through unchanged, whatever JSON scalar it sent.
Loose: TypeAlias = str | int | float | bool | None

E = TypeVar("E")


class Entity(msgspec.Struct, kw_only=True):
    """The base of every entity: fields given by name; an UNSET field is left out of the JSON."""


class Message(Entity):
    """GitLab's `{"message": ...}` body, as its 202 Accepted (a deletion scheduled) answers."""

    message: str


_ENCODER = msgspec.json.Encoder()


def encode(entity: Any) -> bytes:
    """The JSON of an entity, a list of them, or plain JSON values holding them."""
    return _ENCODER.encode(entity)


def decode(body: bytes | str, kind: type[E]) -> E:
    """An answer's JSON read into `kind` (an entity, or a list of them); msgspec.ValidationError when the
    answer does not have that shape."""
    return msgspec.json.decode(body, type=kind)
