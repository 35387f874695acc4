"""GitLab's Ci::Variable entity as /api/v4/admin/ci/variables renders an instance variable."""

from __future__ import annotations

from outpost_model.base import Entity, Text


class Variable(Entity):
    # "env_var" or "file".
    variable_type: str
    key: str
    # Null where the caller may not read it.
    value: Text
    protected: bool
    masked: bool
    raw: bool
    description: Text
