"""JSON Schemas of the entities, for the OpenAPI document's response bodies.

msgspec writes a schema as a `$ref` into its `$defs`; inside an OpenAPI document such a reference would
resolve against the document's root, so every reference is replaced by the definition it names, giving
one self-contained schema per body (the entities are not recursive).
"""

from __future__ import annotations

from typing import Any

import msgspec

Schema = dict[str, Any]


def json_schema(kind: Any) -> Schema:
    """The schema of `kind`: an entity, `list[Entity]`, or any type msgspec can describe."""
    document = msgspec.json.schema(kind)
    definitions = document.pop("$defs", {})
    return _inline(document, definitions)


def _inline(node: Any, definitions: dict[str, Schema]) -> Any:
    if isinstance(node, dict):
        reference = node.get("$ref")
        if isinstance(reference, str) and reference.startswith("#/$defs/"):
            return _inline(definitions[reference.removeprefix("#/$defs/")], definitions)
        return {key: _inline(value, definitions) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline(item, definitions) for item in node]
    return node
