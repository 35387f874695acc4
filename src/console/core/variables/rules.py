"""GitLab's rules for instance variables, checked before anything is sent.

Each check returns sentences a person can act on, so the dialogs can say *why* a value
cannot be saved. The server remains the authority: its refusals are shown as well.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet

from console.core.api.variables import Variable, value_of

KEY_MAX_LENGTH = 255
VALUE_MAX_LENGTH = 10_000
DESCRIPTION_MAX_LENGTH = 255
MASK_MIN_LENGTH = 8
KEY_CHARACTERS = re.compile(r"[A-Za-z0-9_]")
# Characters a masked variable may hold when it is expanded: Base64 plus @ : . ~
MASK_CHARACTERS = re.compile(r"[A-Za-z0-9_+=/@:.~-]")
WHITESPACE = " \t\n\v\f\r"


def _listing(characters: list[str]) -> str:
    shown = []
    for character in characters[:8]:
        names = {" ": "a space", "\t": "a tab", "\n": "a line break", "\r": "a carriage return"}
        shown.append(names.get(character, f"'{character}'"))
    more = len(characters) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def _distinct(characters) -> list[str]:
    return list(dict.fromkeys(characters))


def key_problems(key: str, *, taken: AbstractSet[str] = frozenset()) -> list[str]:
    key = key.strip(WHITESPACE + "\0")
    if not key:
        return ["Enter a key."]
    problems = []
    if len(key) > KEY_MAX_LENGTH:
        problems.append(f"The key is {len(key)} characters long; at most {KEY_MAX_LENGTH} are allowed.")
    invalid = _distinct(c for c in key if not KEY_CHARACTERS.fullmatch(c))
    if invalid:
        problems.append(f"The key can contain only letters, digits and '_' (not {_listing(invalid)}).")
    if key in taken:
        problems.append(f"A variable with the key {key} already exists.")
    return problems


def masking_problems(value: str, *, raw: bool) -> list[str]:
    """Why ``value`` cannot be masked (empty when it can)."""
    problems = []
    if len(value) < MASK_MIN_LENGTH:
        problems.append(f"A masked value needs at least {MASK_MIN_LENGTH} characters; this one has {len(value)}.")
    whitespace = _distinct(c for c in value if c in WHITESPACE)
    if whitespace:
        problems.append(f"A masked value must be a single line without spaces (it contains {_listing(whitespace)}).")
    if not raw:
        others = _distinct(c for c in value if c not in WHITESPACE and not MASK_CHARACTERS.fullmatch(c))
        if others:
            problems.append(
                f"With variable references expanded, a masked value may only contain letters, digits and "
                f"_ + = / @ : . ~ - (it contains {_listing(others)}). Clear \"Expand variable reference\" "
                f"to allow other characters.")
    return problems


def variable_problems(variable: Variable, *, taken: AbstractSet[str] = frozenset()) -> list[str]:
    problems, value = key_problems(variable.key, taken=taken), value_of(variable)
    if len(value) > VALUE_MAX_LENGTH:
        problems.append(f"The value is {len(value):,} characters long; at most {VALUE_MAX_LENGTH:,} are allowed.")
    if variable.masked:
        problems += masking_problems(value, raw=variable.raw)
    if variable.description and len(variable.description) > DESCRIPTION_MAX_LENGTH:
        problems.append(f"The description is {len(variable.description)} characters long; at most "
                        f"{DESCRIPTION_MAX_LENGTH} are allowed.")
    return problems
