"""Outpost's API entities, declared once: the server returns them, its OpenAPI document's response schemas
are generated from them and the console reads the server's answers into them.

Every entity is a `msgspec.Struct` (docs/server.md says why msgspec and not pydantic). Field names are the
wire names, GitLab's or Sentry's exactly, so `entity.groupID` reads what the JSON calls `groupID`; only
names Python cannot spell (`event.type`, `_meta`) are renamed. A field typed `... | UnsetType` is one the
API sends only sometimes: left UNSET it is omitted from the JSON, and the schema does not require it.

Nothing here knows the server: no database, no HTTP; only msgspec.
"""

from outpost_model.base import UNSET, Entity, Loose, Message, Text, Time, UnsetType, decode, encode

__all__ = ["UNSET", "Entity", "Loose", "Message", "Text", "Time", "UnsetType", "decode", "encode"]
