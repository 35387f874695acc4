"""JSON shape of GitLab's Ci::Variable entity as exposed for instance variables."""

from __future__ import annotations

from typing import Any

from outpost_server.variables.models import VARIABLE_TYPE_NAMES, InstanceVariable


def variable_entity(variable: InstanceVariable, *, value: str | None) -> dict[str, Any]:
    return {
        "variable_type": VARIABLE_TYPE_NAMES[variable.variable_type],
        "key": variable.key,
        "value": value,
        "protected": variable.protected,
        "masked": variable.masked,
        "raw": variable.raw,
        "description": variable.description,
    }
