"""Small builders for the JSON Schemas of the OpenAPI document's responses.

Objects list every field GitLab (or Sentry) always renders as required and leave extra fields allowed:
a newer GitLab adds fields, and clients ignore what they do not know.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

STRING: Schema = {"type": "string"}
INTEGER: Schema = {"type": "integer"}
NUMBER: Schema = {"type": "number"}
BOOLEAN: Schema = {"type": "boolean"}
ANY_OBJECT: Schema = {"type": "object"}
ANY_ARRAY: Schema = {"type": "array"}
# An ISO 8601 time as GitLab and Sentry write it; both write null where the moment is unknown.
TIME: Schema = {"type": ["string", "null"]}
NULL: Schema = {"type": "null"}


def nullable(schema: Schema) -> Schema:
    kind = schema.get("type")
    if isinstance(kind, str):
        return {**schema, "type": [kind, "null"]}
    return {"anyOf": [schema, NULL]}


def array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


def obj(fields: dict[str, Schema], optional: dict[str, Schema] | None = None) -> Schema:
    """An object with `fields` always present and `optional` sometimes present."""
    return {"type": "object", "required": list(fields), "properties": {**fields, **(optional or {})}}


def extend(base: Schema, fields: dict[str, Schema], optional: dict[str, Schema] | None = None) -> Schema:
    """`base` with more fields, as GitLab's entities extend each other."""
    return {"type": "object", "required": [*base["required"], *fields],
            "properties": {**base["properties"], **fields, **(optional or {})}}


def time_series() -> Schema:
    """Sentry's and GitLab's frequency lists: [[unix time, count], ...]."""
    return array(array(INTEGER))
