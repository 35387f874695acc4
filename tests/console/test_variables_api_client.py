"""The console's variables API client against a real server: CRUD, the limit, and bulk apply."""

import pytest

from console.core.api.client import ApiClient
from console.core.api.errors import NotFound, ValidationFailed
from console.core.api.variables import Change, VariablesApi, new_variable
from tests.support import ApiHelper, start_server


@pytest.fixture(scope="module")
def variables_server(tmp_path_factory):
    with start_server(tmp_path_factory.mktemp("variables-client")) as running:
        yield running


@pytest.mark.asyncio
async def test_crud_and_field_errors(variables_server):
    async with ApiClient(variables_server.url, variables_server.root_token) as client:
        api = VariablesApi(client)
        created = await api.create(new_variable("CLIENT_A", "pa$$word!", "file", True, True, True, "made here"))
        assert created == new_variable("CLIENT_A", "pa$$word!", "file", True, True, True, "made here")
        assert await api.get("CLIENT_A") == created
        updated = await api.update(new_variable("CLIENT_A", "plain", masked=False))
        assert (updated.value, updated.masked, updated.variable_type, updated.description) == (
            "plain", False, "env_var", "made here")
        with pytest.raises(ValidationFailed) as raised:
            await api.create(new_variable("CLIENT_A", "again"))
        assert raised.value.field_errors == {"key": ["(CLIENT_A) has already been taken"]}
        assert "(CLIENT_A) has already been taken" in raised.value.message
        assert [variable.key for variable in await api.list()] == ["CLIENT_A"]
        await api.delete("CLIENT_A")
        with pytest.raises(NotFound):
            await api.get("CLIENT_A")
        assert await api.limit() == 25


@pytest.mark.asyncio
async def test_limit_is_none_when_it_cannot_be_read(variables_server):
    _, token = ApiHelper(variables_server).user()
    async with ApiClient(variables_server.url, token) as client:
        assert await VariablesApi(client).limit() is None


@pytest.mark.asyncio
async def test_apply_deletes_first_and_reports_each_failure(variables_server):
    async with ApiClient(variables_server.url, variables_server.root_token) as client:
        api = VariablesApi(client)
        await client.request("PUT", "/application/plan_limits",
                             json={"plan_name": "default", "ci_instance_level_variables": 3})
        try:
            for key in ("OLD_1", "OLD_2", "KEEP"):
                await api.create(new_variable(key, "v"))
            # At the limit: the two additions only fit because the deletions are done first.
            changes = [Change("create", new_variable("NEW_1", "n")), Change("delete", new_variable("OLD_1", "")),
                       Change("create", new_variable("NEW_2", "n")), Change("update", new_variable("MISSING", "x")),
                       Change("delete", new_variable("OLD_2", "")),
                       Change("update", new_variable("KEEP", "short", masked=True))]
            seen = []
            outcomes = await api.apply(changes, on_outcome=lambda index, outcome: seen.append(index), concurrency=4)
        finally:
            await client.request("PUT", "/application/plan_limits",
                                 json={"plan_name": "default", "ci_instance_level_variables": 25})
        assert sorted(seen) == list(range(6))
        assert set(seen[:2]) == {1, 4}  # deletions first
        assert [outcome.ok for outcome in outcomes] == [True, True, True, False, True, False]
        assert isinstance(outcomes[3].error, NotFound)
        assert outcomes[5].error.field_errors == {"value": ["is invalid"]}
        assert sorted(variable.key for variable in await api.list()) == ["KEEP", "NEW_1", "NEW_2"]
        for key in ("KEEP", "NEW_1", "NEW_2"):
            await api.delete(key)
