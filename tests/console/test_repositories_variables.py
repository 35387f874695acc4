"""The variables repository against the real server: the list held as outpost_model's Variable values, saves
and deletes held as the server answers them, the count worked out when asked, and nothing of an earlier
connection (not even a read that lands after it changed)."""

from __future__ import annotations

import asyncio

import pytest

from console.core.api.client import ApiClient
from console.core.api.variables import VariablesApi, new_variable, with_changes
from console.core.repositories.variables import INSTANCE, VARIABLES, VARIABLES_LIMIT, VariablesRepository
from console.core.store import Change, Store
from outpost_model.variables import Variable
from tests.support import unique


@pytest.mark.asyncio
async def test_variables_are_read_saved_and_deleted_through_the_repository(server):
    key = unique("REPO").upper()
    store, heard = Store(), []
    variables = VariablesRepository(store)
    store.begin("root at the test server")
    assert variables.count() is None  # never read: no figure rather than a zero
    async with ApiClient(server.url, server.root_token) as client:
        api = VariablesApi(client)
        listed = await variables.fetch(api)
        assert all(isinstance(variable, Variable) for variable in listed)
        before = variables.count()
        assert before == len(listed) and not variables.is_stale(INSTANCE)
        store.subscribe(heard.append)
        try:
            created = await variables.create(api, new_variable(key, "first", masked=False, description="made here"))
            assert variables.variable(key) == created and variables.count() == before + 1
            assert heard == [Change(VARIABLES, INSTANCE, frozenset({key}))]
            updated = await variables.update(api, with_changes(created, value="second", protected=True))
            held = variables.variable(key)
            assert held == updated and held is not None and (held.value, held.protected) == ("second", True)
        finally:
            await variables.delete(api, key)
        assert variables.variable(key) is None and variables.count() == before
        assert key not in {variable.key for variable in await api.list()}

        late = asyncio.ensure_future(variables.fetch(api))
        await asyncio.sleep(0)  # the read is on its way
        store.begin("another connection")  # and lands after the connection changed
        await late
        assert variables.variables() == [] and variables.count() is None


@pytest.mark.asyncio
async def test_a_user_who_may_not_read_them_gets_none_and_nothing_is_held(server, api):
    _user, token = api.user()
    store = Store()
    variables = VariablesRepository(store)
    store.begin("a plain user")
    async with ApiClient(server.url, token) as client:
        assert await variables.fetch_if_allowed(VariablesApi(client)) is None
        assert await variables.fetch_limit(VariablesApi(client)) is None  # the plan limits: administrators only
    assert variables.count() is None and variables.variables() == [] and variables.limit() is None


@pytest.mark.asyncio
async def test_the_limit_is_held_with_the_variables_and_told_as_their_change(server, api):
    store, heard = Store(), []
    variables = VariablesRepository(store)
    store.begin("root at the test server")
    assert variables.limit() is None  # never read
    store.subscribe(heard.append)
    async with ApiClient(server.url, server.root_token) as client:
        limit = await variables.fetch_limit(VariablesApi(client))
    on_server = api.root.get("/application/plan_limits").json()["ci_instance_level_variables"]
    assert limit == variables.limit() == on_server
    assert [change.kind for change in heard] == [VARIABLES_LIMIT]
    assert any(variables.touched_by(change) for change in heard)
    store.begin("another connection")
    assert variables.limit() is None
