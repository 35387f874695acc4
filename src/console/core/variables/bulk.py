"""Import and export of variables as .env or JSON files, and the plan of an import.

JSON is either GitLab's own list of variable objects (what the API returns, so an export
round-trips every attribute) or a plain ``{"KEY": "value"}`` object. A .env file carries keys
and values only; attributes of variables that already exist are then left as they are.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from console.core.api.variables import ENV_VAR, FILE, Change, Variable, new_variable, value_of, with_changes
from console.core.variables.rules import variable_problems

ADDED, CHANGED, REMOVED, UNCHANGED, INVALID = "added", "changed", "removed", "unchanged", "invalid"
# The order in which a plan lists its changes.
KIND_ORDER = {ADDED: 0, CHANGED: 1, REMOVED: 2, INVALID: 3, UNCHANGED: 4}
ATTRIBUTES = ("value", "variable_type", "protected", "masked", "raw", "description")


class ImportFileError(ValueError):
    """The file cannot be read as variables; the message says where and why."""


@dataclass(frozen=True)
class Incoming:
    """A variable read from a file, with the attributes the file actually specified."""

    variable: Variable
    specified: frozenset[str]


# --- .env -----------------------------------------------------------------------------------

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "$": "$"}
_LINE = re.compile(r"\s*(?:export\s+)?([^=\s#]+)\s*=\s*(.*)\Z", re.DOTALL)


def _line_problem(line: str) -> str:
    """Why a line is not KEY=value, naming what is wrong in it."""
    key, equals, _ = line.strip().removeprefix("export ").partition("=")
    if not equals:
        return "expected KEY=value."
    if not key.strip():
        return "the key before = is missing."
    key = key.strip()
    if not re.search(r"\s", key):
        return f"“{key}” is not a key: keys are letters, digits and _ only."
    suggestion = re.sub(r"\s+", "_", key)
    return f"the key “{key}” contains a space; keys are letters, digits and _ only (e.g. {suggestion})."


def parse_dotenv(text: str) -> list[Incoming]:
    variables: list[Incoming] = []
    # Only \n (and \r\n) end a line; other separators are part of the value.
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    number = 0
    while number < len(lines):
        line = lines[number]
        number += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _LINE.match(line)
        if match is None:
            raise ImportFileError(f"Line {number}: {_line_problem(line)}")
        key, rest = match.groups()
        start = number
        if rest.startswith('"'):
            # A double-quoted value may continue over several lines.
            body = rest[1:]
            while (end := _closing_quote(body)) is None:
                if number >= len(lines):
                    raise ImportFileError(f"Line {start}: the quoted value of {key} is never closed.")
                body += "\n" + lines[number]
                number += 1
            value = _unescape(body[:end])
            trailing = body[end + 1:].strip()
        elif rest.startswith("'"):
            end = rest.find("'", 1)
            if end < 0:
                raise ImportFileError(f"Line {start}: the quoted value of {key} is never closed.")
            value, trailing = rest[1:end], rest[end + 1:].strip()
        else:
            value, trailing = rest.partition(" #")[0].strip(), ""
        if trailing and not trailing.startswith("#"):
            raise ImportFileError(f"Line {start}: unexpected text after the quoted value of {key}.")
        variables.append(Incoming(new_variable(key, value), frozenset({"value"})))
    return variables


def _closing_quote(body: str) -> int | None:
    escaped = False
    for index, character in enumerate(body):
        if escaped:
            escaped = False
        elif character == "\\":
            escaped = True
        elif character == '"':
            return index
    return None


def _unescape(body: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), "\\" + m.group(1)), body)


def to_dotenv(variables: list[Variable]) -> str:
    lines = []
    for variable in variables:
        value = value_of(variable)
        if value and re.fullmatch(r"[A-Za-z0-9_+=/@:.,~%-]+", value):
            lines.append(f"{variable.key}={value}")
        else:
            escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
            lines.append(f'{variable.key}="{escaped}"')
    return "\n".join(lines) + ("\n" if lines else "")


# --- JSON -----------------------------------------------------------------------------------

def parse_json(text: str) -> list[Incoming]:
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise ImportFileError(f"Not valid JSON: {exc}.") from None
    if isinstance(document, dict):
        return [Incoming(new_variable(str(key), _text(value, key)), frozenset({"value"}))
                for key, value in document.items()]
    if not isinstance(document, list):
        raise ImportFileError("Expected a list of variables or an object of KEY: value pairs.")
    variables = []
    for position, item in enumerate(document, start=1):
        if not isinstance(item, dict) or "key" not in item or "value" not in item:
            raise ImportFileError(f"Entry {position}: expected an object with at least \"key\" and \"value\".")
        variables.append(_incoming_from_object(item, position))
    return variables


def _text(value: Any, key: Any) -> str:
    if isinstance(value, (dict, list)) or value is None:
        raise ImportFileError(f"The value of {key} must be text.")
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _incoming_from_object(item: dict[str, Any], position: int) -> Incoming:
    specified = {name for name in ATTRIBUTES if name in item}
    variable_type = item.get("variable_type", ENV_VAR)
    if variable_type not in (ENV_VAR, FILE):
        raise ImportFileError(f"Entry {position}: variable_type must be \"env_var\" or \"file\".")
    for flag in ("protected", "masked", "raw"):
        if flag in item and not isinstance(item[flag], bool):
            raise ImportFileError(f"Entry {position}: {flag} must be true or false.")
    description = item.get("description")
    variable = new_variable(str(item["key"]), _text(item["value"], item["key"]), variable_type=variable_type,
                            protected=item.get("protected", False), masked=item.get("masked", False),
                            raw=item.get("raw", False), description=None if description is None else str(description))
    return Incoming(variable, frozenset(specified))


def to_json(variables: list[Variable]) -> str:
    # Key and value first, then GitLab's attributes: the file reads as the list of KEY=value it is.
    entries = [{"key": variable.key, **{name: getattr(variable, name) for name in ATTRIBUTES}}
               for variable in variables]
    return json.dumps(entries, indent=2, ensure_ascii=False) + "\n"


def parse_file(name: str, text: str) -> list[Incoming]:
    """Parse by file name: ``*.json`` as JSON, anything else as .env."""
    return parse_json(text) if name.lower().endswith(".json") else parse_dotenv(text)


# --- plan -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PlannedChange:
    kind: str  # ADDED, CHANGED, REMOVED, UNCHANGED or INVALID
    variable: Variable
    changed: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()

    def as_change(self) -> Change | None:
        action = {ADDED: "create", CHANGED: "update", REMOVED: "delete"}.get(self.kind)
        return Change(action, self.variable) if action else None


@dataclass
class ImportPlan:
    items: list[PlannedChange] = field(default_factory=list)

    def count(self, kind: str) -> int:
        return sum(1 for item in self.items if item.kind == kind)

    def changes(self) -> list[tuple[int, Change]]:
        """(index in items, change) for everything that needs a request."""
        return [(index, change) for index, item in enumerate(self.items) if (change := item.as_change())]


def plan_import(current: list[Variable], incoming: list[Incoming], *, exact_sync: bool) -> ImportPlan:
    """Compare a file with the server's variables.

    A key given twice in the file counts once (the last wins). With ``exact_sync`` variables
    missing from the file are removed.
    """
    existing = {variable.key: variable for variable in current}
    latest: dict[str, Incoming] = {}
    for entry in incoming:
        latest[entry.variable.key.strip()] = entry
    plan = ImportPlan()
    for key, entry in latest.items():
        wanted = with_changes(entry.variable, key=key)
        before = existing.get(key)
        if before is not None:
            # Attributes the file does not mention keep their current values.
            wanted = with_changes(before, **{name: getattr(wanted, name) for name in entry.specified})
            changed = tuple(name for name in ATTRIBUTES if getattr(before, name) != getattr(wanted, name))
            kind = CHANGED if changed else UNCHANGED
        else:
            changed, kind = (), ADDED
        problems = tuple(variable_problems(wanted)) if kind != UNCHANGED else ()
        plan.items.append(PlannedChange(INVALID if problems else kind, wanted, changed, problems))
    if exact_sync:
        plan.items += [PlannedChange(REMOVED, variable) for key, variable in existing.items() if key not in latest]
    plan.items.sort(key=lambda item: KIND_ORDER[item.kind])
    return plan
