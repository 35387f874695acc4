"""GitLab's global IDs (`gid://gitlab/<Model>/<id>`) and the typed ID scalars built on them.

An argument typed `GitlabErrorTrackingDetailedErrorID` accepts only ids of that model, with the
messages GitLab's GlobalIDType gives for anything else.
"""

from __future__ import annotations

import re
from typing import Any

from ariadne import ScalarType
from graphql import GraphQLError, StringValueNode, ValueNode

DETAILED_ERROR = "Gitlab::ErrorTracking::DetailedError"
ERROR = "Gitlab::ErrorTracking::Error"
PROJECT = "Project"
USER = "User"
_SHAPE = re.compile(r"gid://gitlab/(?P<model>[A-Za-z][A-Za-z0-9]*(?:::[A-Za-z][A-Za-z0-9]*)*)/(?P<id>[^/?#\s]+)")


def build(model: str, model_id: object) -> str:
    return f"gid://gitlab/{model}/{model_id}"


def model_id(value: Any, model: str) -> str:
    """The id part of a global id of `model`; GraphQLError otherwise."""
    if not isinstance(value, str) or not (match := _SHAPE.fullmatch(value)):
        raise GraphQLError(f"{_ruby_inspect(value)} is not a valid Global ID")
    if match.group("model") != model:
        raise GraphQLError(f"{_ruby_inspect(value)} does not represent an instance of {model}")
    return match.group("id")


def _ruby_inspect(value: Any) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def typed_id_scalar(name: str, model: str) -> ScalarType:
    """A scalar whose input value is the model's id (the text after the last slash)."""
    scalar = ScalarType(name)

    @scalar.serializer
    def serialize(value: Any) -> str:
        return str(value)

    @scalar.value_parser
    def parse_value(value: Any) -> str:
        return model_id(value, model)

    @scalar.literal_parser
    def parse_literal(node: ValueNode, _variables: dict[str, Any] | None = None) -> str:
        if not isinstance(node, StringValueNode):
            raise GraphQLError(f"{name} must be a string")
        return model_id(node.value, model)

    return scalar
