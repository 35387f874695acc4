"""Reading and writing .env and JSON files, planning an import, and the rules the dialogs explain."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from console.core.api.variables import new_variable
from console.core.variables import bulk
from console.core.variables.bulk import ADDED, CHANGED, INVALID, REMOVED, UNCHANGED, ImportFileError
from console.core.variables.rules import key_problems, masking_problems, variable_problems


def values(entries):
    return {entry.variable.key: entry.variable.value for entry in entries}


def test_dotenv_syntax():
    text = (
        "# deployment settings\n"
        "\n"
        "PLAIN=value\n"
        "export EXPORTED = spaced  \n"
        "COMMENTED=abc # trailing comment\n"
        "HASH_INSIDE=abc#def\n"
        "SINGLE='literal $HOME \\n'\n"
        'DOUBLE="line one\\nline \\"two\\""\n'
        'MULTI="first\n'
        'second"\n'
        "EMPTY=\n"
    )
    assert values(bulk.parse_dotenv(text)) == {
        "PLAIN": "value", "EXPORTED": "spaced", "COMMENTED": "abc", "HASH_INSIDE": "abc#def",
        "SINGLE": "literal $HOME \\n", "DOUBLE": 'line one\nline "two"', "MULTI": "first\nsecond", "EMPTY": ""}


@pytest.mark.parametrize(("text", "message"), [
    ("NO_EQUALS_SIGN\n", "Line 1: expected KEY=value."),
    ('A=1\nOPEN="never closed\nB=2\n', "Line 2: the quoted value of OPEN is never closed."),
    ("S='open\n", "Line 1: the quoted value of S is never closed."),
    ('Q="done" extra\n', "Line 1: unexpected text after the quoted value of Q."),
])
def test_dotenv_errors_say_where(text, message):
    with pytest.raises(ImportFileError) as raised:
        bulk.parse_dotenv(text)
    assert str(raised.value) == message


@given(st.dictionaries(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True),
                       st.text(st.characters(blacklist_categories=["Cs"]), max_size=40), max_size=8))
def test_dotenv_round_trip(mapping):
    variables = [new_variable(key, value) for key, value in mapping.items()]
    parsed = bulk.parse_dotenv(bulk.to_dotenv(variables))
    assert [(entry.variable.key, entry.variable.value) for entry in parsed] == [
        (variable.key, variable.value) for variable in variables]


def test_json_round_trip_keeps_every_attribute():
    variables = [new_variable("A", "one"), new_variable("B", "two\nlines", "file", True, True, True, "described")]
    parsed = bulk.parse_json(bulk.to_json(variables))
    assert [entry.variable for entry in parsed] == variables
    assert parsed[1].specified == frozenset(bulk.ATTRIBUTES)


def test_json_flat_object_and_errors():
    assert values(bulk.parse_json('{"A": "x", "B": 2, "C": true}')) == {"A": "x", "B": "2", "C": "true"}
    for text, message in (
        ("[1]", 'Entry 1: expected an object with at least "key" and "value".'),
        ('[{"key": "A", "value": "x", "variable_type": "yaml"}]',
         'Entry 1: variable_type must be "env_var" or "file".'),
        ('[{"key": "A", "value": "x", "masked": "yes"}]', "Entry 1: masked must be true or false."),
        ('{"A": {"nested": 1}}', "The value of A must be text."),
        ("3", "Expected a list of variables or an object of KEY: value pairs."),
    ):
        with pytest.raises(ImportFileError) as raised:
            bulk.parse_json(text)
        assert str(raised.value) == message
    with pytest.raises(ImportFileError, match="Not valid JSON"):
        bulk.parse_json("{")


def test_plan_import_categories():
    current = [new_variable("SAME", "1"), new_variable("NEW_VALUE", "old", masked=True, description="kept"),
               new_variable("ONLY_ON_SERVER", "x")]
    incoming = bulk.parse_dotenv("SAME=1\nNEW_VALUE=changed-value\nADDED_ONE=a\nBAD-KEY=v\nADDED_ONE=b\n")
    plan = bulk.plan_import(current, incoming, exact_sync=False)
    kinds = {item.variable.key: item.kind for item in plan.items}
    assert kinds == {"SAME": UNCHANGED, "NEW_VALUE": CHANGED, "ADDED_ONE": ADDED, "BAD-KEY": INVALID}
    changed = next(item for item in plan.items if item.kind == CHANGED)
    # A .env file says nothing about the flags: they are kept.
    assert changed.variable == new_variable("NEW_VALUE", "changed-value", masked=True, description="kept")
    assert changed.changed == ("value",)
    assert next(item for item in plan.items if item.kind == ADDED).variable.value == "b"  # the last one wins
    assert [change.action for _, change in plan.changes()] == ["create", "update"]  # additions first

    synced = bulk.plan_import(current, incoming, exact_sync=True)
    assert [item.variable.key for item in synced.items if item.kind == REMOVED] == ["ONLY_ON_SERVER"]
    assert synced.count(REMOVED) == 1


def test_plan_flags_a_change_that_breaks_masking():
    current = [new_variable("TOKEN", "maskable-value", masked=True)]
    plan = bulk.plan_import(current, bulk.parse_dotenv('TOKEN="not maskable"\n'), exact_sync=False)
    assert plan.items[0].kind == INVALID
    assert "single line without spaces" in plan.items[0].problems[0]


def test_key_rules():
    assert key_problems("  ") == ["Enter a key."]
    assert key_problems(" PADDED ") == []
    assert key_problems("A-B C") == ["The key can contain only letters, digits and '_' (not '-', a space)."]
    assert key_problems("K" * 256) == ["The key is 256 characters long; at most 255 are allowed."]
    assert key_problems("TAKEN", taken={"TAKEN"}) == ["A variable with the key TAKEN already exists."]


def test_masking_rules_explain_why():
    assert masking_problems("dckr_pat_7Qm2xV9s", raw=False) == []
    assert masking_problems("short", raw=False) == ["A masked value needs at least 8 characters; this one has 5."]
    assert masking_problems("pa$$word!", raw=False) == [
        "With variable references expanded, a masked value may only contain letters, digits and "
        "_ + = / @ : . ~ - (it contains '$', '!'). Clear \"Expand variable reference\" to allow other characters."]
    assert masking_problems("pa$$word!", raw=True) == []
    assert masking_problems("two\nlines!", raw=True) == [
        "A masked value must be a single line without spaces (it contains a line break)."]


def test_variable_rules_cover_lengths():
    problems = variable_problems(new_variable("K", "v" * 10_001, description="d" * 256))
    assert problems == ["The value is 10,001 characters long; at most 10,000 are allowed.",
                        "The description is 256 characters long; at most 255 are allowed."]


def test_exported_json_is_gitlabs_entity_shape():
    document = json.loads(bulk.to_json([new_variable("A", "x")]))
    assert document == [{"key": "A", "value": "x", "variable_type": "env_var", "protected": False,
                         "masked": False, "raw": False, "description": None}]
