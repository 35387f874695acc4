"""The instance's CI/CD variables, as the server last listed them; no Qt here.

The variables tab's table and the Overview's count both render what is held here, and whatever reads or
changes them goes through :class:`VariablesRepository`: the tab's load, a save, a delete, an import's
comparison, the Overview's read. How many there are is counted when asked (:meth:`count`), never kept. The
instance's limit on their number is held here too (:meth:`limit`), so the tab and the Overview show one figure.
Each value is outpost_model's ``Variable``, whose repr never shows the value.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable

from console.core.api.errors import Forbidden, NotFound
from console.core.api.variables import Variable, VariablesApi
from console.core.repositories.base import Repository
from console.core.store import Kind

INSTANCE = ""  # instance variables belong to no project
VARIABLES: Kind[Variable] = Kind("variable")  # by key
VARIABLES_LIMIT: Kind[int] = Kind("variables_limit")  # one value, under LIMIT
LIMIT = "ci_instance_level_variables"


class VariablesRepository(Repository):
    kind = VARIABLES
    kinds = (VARIABLES, VARIABLES_LIMIT)

    def variables(self) -> list[Variable]:
        return list(self.store.items(VARIABLES, INSTANCE).values())

    def variable(self, key: str) -> Variable | None:
        return self.store.get(VARIABLES, INSTANCE, key)

    def count(self) -> int | None:
        """How many variables the instance has, from what is held now; None when they were not read on this
        connection (or could not be: only administrators may)."""
        return None if self.age(INSTANCE) is None else len(self.store.items(VARIABLES, INSTANCE))

    def limit(self) -> int | None:
        """The instance's maximum number of variables (0: no limit) as last read; None when it was not read on this
        connection or is not readable (the plan limits are for administrators)."""
        return self.store.get(VARIABLES_LIMIT, INSTANCE, LIMIT)

    def hold_all(self, variables: Iterable[Variable]) -> None:
        """What a full list says: these variables and no others."""
        self.store.replace_all(VARIABLES, INSTANCE, {variable.key: variable for variable in variables})
        self.read_now(INSTANCE)

    # reads and writes ----------------------------------------------------------------------------------------
    async def fetch(self, api: VariablesApi) -> list[Variable]:
        current = self.scope_guard()
        variables = await api.list()
        if current():
            self.hold_all(variables)
        return variables

    async def fetch_limit(self, api: VariablesApi) -> int | None:
        """Reads the limit into the repository (None, and nothing held, where it is not readable)."""
        current = self.scope_guard()
        limit = await api.limit()
        if current():
            if limit is None:
                self.store.remove(VARIABLES_LIMIT, INSTANCE, [LIMIT])
            else:
                self.store.put(VARIABLES_LIMIT, INSTANCE, LIMIT, limit)
        return limit

    async def fetch_if_allowed(self, api: VariablesApi) -> list[Variable] | None:
        """:meth:`fetch` for a caller who may not be an administrator: None where the list is not readable."""
        try:
            return await self.fetch(api)
        except (Forbidden, NotFound):
            return None

    async def create(self, api: VariablesApi, variable: Variable) -> Variable:
        return await self._held_once_saved(api.create(variable))

    async def update(self, api: VariablesApi, variable: Variable) -> Variable:
        return await self._held_once_saved(api.update(variable))

    async def _held_once_saved(self, saving: Awaitable[Variable]) -> Variable:
        current = self.scope_guard()
        saved = await saving
        if current():
            self.store.put(VARIABLES, INSTANCE, saved.key, saved)
        return saved

    async def delete(self, api: VariablesApi, key: str) -> None:
        current = self.scope_guard()
        await api.delete(key)
        if current():
            self.store.remove(VARIABLES, INSTANCE, [key])
