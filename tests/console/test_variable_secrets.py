"""A variable's value is a secret (a masked one above all): the outpost_model Variable the console's API client
returns never shows it when printed, logged or inspected, while the wire still carries it."""

from __future__ import annotations

import logging
import pprint

import pytest

from console.core.api.client import ApiClient
from console.core.api.variables import VariablesApi, new_variable
from outpost_model import decode, encode
from outpost_model.variables import Variable
from tests.support import unique

SECRET = "s3cr3t-" + "9" * 24


def _shows_no_secret(text: str, key: str) -> None:
    assert key in text and "Variable" in text  # it still says which variable it is
    assert SECRET not in text and "9999" not in text


def test_repr_str_pprint_and_rich_show_no_value():
    variable = new_variable("DEPLOY_TOKEN", SECRET, masked=True, description="the deploy token")
    for text in (repr(variable), str(variable), f"{variable}", f"{variable!r}", repr([variable]),
                 str({"variable": variable}), pprint.pformat(variable)):
        _shows_no_secret(text, "DEPLOY_TOKEN")
    shown = dict(variable.__rich_repr__())
    assert "value" not in shown and shown["key"] == "DEPLOY_TOKEN" and shown["masked"] is True


def test_the_json_still_carries_the_value():
    variable = new_variable("DEPLOY_TOKEN", SECRET, masked=True)
    assert decode(encode(variable), dict)["value"] == SECRET
    assert decode(encode(variable), Variable) == variable


@pytest.mark.asyncio
async def test_a_variable_read_from_the_server_and_logged_shows_no_value(server, caplog):
    key = unique("SECRET").upper()
    async with ApiClient(server.url, server.root_token) as client:
        api = VariablesApi(client)
        created = await api.create(new_variable(key, SECRET, masked=True))
        try:
            read = await api.get(key)
            assert isinstance(read, Variable) and read.value == SECRET and read == created
            with caplog.at_level(logging.INFO):
                logging.getLogger("tests.variable_secrets").info("saved %s among %r", read, await api.list())
            _shows_no_secret(caplog.text, key)
        finally:
            await api.delete(key)
