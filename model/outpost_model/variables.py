"""GitLab's Ci::Variable entity as /api/v4/admin/ci/variables renders an instance variable."""

from __future__ import annotations

from typing import Any

from outpost_model.base import Entity, Text


class Variable(Entity):
    """A variable's value is a secret (a masked one above all): its repr (and str, and rich's repr) names the
    variable and its flags only, so a variable printed or logged by mistake never gives the value away."""

    # "env_var" or "file".
    variable_type: str
    key: str
    # Null where the caller may not read it.
    value: Text
    protected: bool
    masked: bool
    raw: bool
    description: Text

    def __repr__(self) -> str:
        return (f"Variable(key={self.key!r}, variable_type={self.variable_type!r}, protected={self.protected!r}, "
                f"masked={self.masked!r}, raw={self.raw!r})")

    def __rich_repr__(self) -> list[tuple[str, Any]]:
        return [("key", self.key), ("variable_type", self.variable_type), ("protected", self.protected),
                ("masked", self.masked), ("raw", self.raw)]
