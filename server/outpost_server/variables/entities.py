"""GitLab's Ci::Variable entity as exposed for instance variables."""

from __future__ import annotations

from outpost_model.variables import Variable
from outpost_server.variables.models import VARIABLE_TYPE_NAMES, InstanceVariable


def variable_entity(variable: InstanceVariable, *, value: str | None) -> Variable:
    return Variable(variable_type=VARIABLE_TYPE_NAMES[variable.variable_type], key=variable.key, value=value,
                    protected=variable.protected, masked=variable.masked, raw=variable.raw,
                    description=variable.description)
