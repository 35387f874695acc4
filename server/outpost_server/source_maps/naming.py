"""A mapped frame's function name, as Sentry's symbolicator gives it.

symbolic's SourceMapCache reads the minified file's scopes and names each through the map's names at its
bindings, so a method is `Cart.checkout` whatever letter the minifier gave the class, and a top-level
function has its source name. Where the scope says nothing useful, the caller's call site names the function
(its token's name in the map), else the minified name stays. Repeated parts of a long member path fold into
`{part#count}` groups, as Sentry shows them.
"""

from __future__ import annotations

# symbolic's scope names for a position outside any function (the top level) and for a function without one.
OUTSIDE_FUNCTIONS = "<unknown>"
ANONYMOUS = "<anonymous>"
# Names that say nothing of the function: the call site's name is better where there is one.
UNHELPFUL = (ANONYMOUS, "__webpack_require__", "__webpack_modules__")


def function_name(*, scope: str | None, minified: str | None, call_site: str | None) -> str:
    """The frame's name from its scope, the name its caller's call site gives it, or its minified name."""
    named = (minified or OUTSIDE_FUNCTIONS) if scope in (None, OUTSIDE_FUNCTIONS) else scope
    if named not in UNHELPFUL:
        chosen = named
    elif call_site:
        chosen = call_site
    else:
        chosen = named if minified is None else minified
    return fold(chosen)


def fold(name: str) -> str:
    """Runs of one part before the last fold into `{part#n}`: `a.b.b.c` is `a.{b#2}.c`."""
    *parts, last = name.split(".")
    if not parts:
        return name
    groups: list[list[str]] = []
    for part in parts:
        if groups and groups[-1][0] == part:
            groups[-1].append(part)
        else:
            groups.append([part])
    folded = [group[0] if len(group) == 1 else f"{{{group[0]}#{len(group)}}}" for group in groups]
    return ".".join([*folded, last])
