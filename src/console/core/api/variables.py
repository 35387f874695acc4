"""GitLab's instance-level CI/CD variables API (``/admin/ci/variables``) and the variable limit.

Only GitLab's documented endpoints are used, so this works against any GitLab instance as
well as the bundled server.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from console.core.api.client import ApiClient
from console.core.api.errors import ApiError, Forbidden, NotFound
from outpost_model import decode
from outpost_model.base import UNSET, Entity, UnsetType
from outpost_model.variables import Variable

__all__ = ["DEFAULT_CONCURRENCY", "ENV_VAR", "FILE", "Change", "Outcome", "Variable", "VariablesApi", "fields_of",
           "new_variable", "value_of", "with_changes"]

ENV_VAR = "env_var"
FILE = "file"
# Parallel requests while applying many changes: enough to hide latency, few enough to be polite.
DEFAULT_CONCURRENCY = 8


class InstanceVariablesLimit(Entity):
    """The one figure the console reads of GitLab's PlanLimit entity (``GET /application/plan_limits``). Declared
    apart from outpost_model's ``PlanLimits`` because GitLab's other limits come and go between releases (a 17.x
    has not all of them), and a read must not fail on one the console never shows; the others are ignored."""

    # The instance's maximum number of CI/CD variables; 0: no limit.
    ci_instance_level_variables: int | UnsetType = UNSET


def new_variable(key: str, value: str, variable_type: str = ENV_VAR, protected: bool = False, masked: bool = False,
                 raw: bool = False, description: str | None = None) -> Variable:
    """A variable the console is about to send, with GitLab's defaults for what a create leaves out."""
    return Variable(variable_type=variable_type, key=key, value=value, protected=protected, masked=masked, raw=raw,
                    description=description)


def fields_of(variable: Variable) -> dict[str, Any]:
    return {name: getattr(variable, name) for name in variable.__struct_fields__}


def with_changes(variable: Variable, **changes: Any) -> Variable:
    """A copy of ``variable`` with some fields changed (as dataclasses.replace does)."""
    return Variable(**{**fields_of(variable), **changes})


def value_of(variable: Variable) -> str:
    """The variable's value as text; GitLab sends null where the caller may not read it."""
    return variable.value or ""


@dataclass(frozen=True)
class Change:
    """One write of a bulk operation: create, update or delete of ``variable.key``."""

    action: str  # "create" | "update" | "delete"
    variable: Variable


@dataclass(frozen=True)
class Outcome:
    change: Change
    error: ApiError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def _path(key: str) -> str:
    return "/admin/ci/variables/" + quote(key, safe="")


def _form(variable: Variable, *, with_key: bool) -> dict[str, Any]:
    body = fields_of(variable)
    if not with_key:
        del body["key"]
    if body["description"] is None:
        del body["description"]
    return body


class VariablesApi:
    def __init__(self, client: ApiClient) -> None:
        self.client = client

    async def list(self) -> list[Variable]:
        return [item async for item in self.client.paginate_as(Variable, "/admin/ci/variables")]

    async def get(self, key: str) -> Variable:
        return decode((await self.client.request("GET", _path(key))).content, Variable)

    async def create(self, variable: Variable) -> Variable:
        response = await self.client.request("POST", "/admin/ci/variables", json=_form(variable, with_key=True))
        return decode(response.content, Variable)

    async def update(self, variable: Variable) -> Variable:
        response = await self.client.request("PUT", _path(variable.key), json=_form(variable, with_key=False))
        return decode(response.content, Variable)

    async def delete(self, key: str) -> None:
        await self.client.request("DELETE", _path(key))

    async def limit(self) -> int | None:
        """The instance's maximum number of variables (0 = none), or None when it cannot be read."""
        try:
            limits = await self.client.get_as(InstanceVariablesLimit, "/application/plan_limits")
        except (Forbidden, NotFound):
            return None
        value = limits.ci_instance_level_variables
        return None if isinstance(value, UnsetType) else value

    async def apply(self, changes: Sequence[Change], *, on_outcome: Callable[[int, Outcome], None] | None = None,
                    concurrency: int = DEFAULT_CONCURRENCY) -> builtins.list[Outcome]:
        """Send every change, a few at a time; a failure is recorded and the rest still go out.

        ``on_outcome(index, outcome)`` is called as each change finishes, in completion order.
        Deletions are finished first so that an exact sync frees room under the variable limit.
        """
        outcomes: list[Outcome | None] = [None] * len(changes)
        deletions = [index for index, change in enumerate(changes) if change.action == "delete"]
        writes = [index for index, change in enumerate(changes) if change.action != "delete"]
        for phase in (deletions, writes):
            queue: asyncio.Queue[int] = asyncio.Queue()
            for index in phase:
                queue.put_nowait(index)

            async def worker(queue: asyncio.Queue[int]) -> None:
                while not queue.empty():
                    index = queue.get_nowait()
                    outcome = await self._apply_one(changes[index])
                    outcomes[index] = outcome
                    if on_outcome is not None:
                        on_outcome(index, outcome)

            await asyncio.gather(*(worker(queue) for _ in range(max(1, min(concurrency, len(phase))))))
        return [outcome for outcome in outcomes if outcome is not None]

    async def _apply_one(self, change: Change) -> Outcome:
        try:
            if change.action == "create":
                await self.create(change.variable)
            elif change.action == "update":
                await self.update(change.variable)
            else:
                await self.delete(change.variable.key)
        except ApiError as exc:
            return Outcome(change, exc)
        return Outcome(change)
