"""Ruby's own renderings of values, as GitLab's output contains them.

* `ruby_time`: Time#to_s of a UTC time (`2022-10-07 13:34:41 UTC`).
* `ruby_inspect`: #inspect (which Hash#to_s and Array#to_s are) of a JSON-like value, as Ruby before 3.4
  writes it: `{"file"=>"main.rb", "start_line"=>3}`, no spaces around `=>`. Hash keys come in PostgreSQL
  jsonb order (shorter keys first, then bytewise), the order GitLab reads a jsonb column back in.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from datetime import datetime, timezone
from functools import lru_cache


@lru_cache(maxsize=4096)
def ruby_time(moment: datetime) -> str:
    """Time#to_s of a UTC time: 2022-10-07 13:34:41 UTC. Cached: rows of one scan share their time."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


_RUBY_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\f": "\\f",
    "\v": "\\v",
    "\b": "\\b",
    "\a": "\\a",
    "\x1b": "\\e",
}
_NEEDS_ESCAPING = re.compile(r'["\\#\x00-\x1f\x7f-\x9f]')


def _ruby_printable(ch: str) -> bool:
    return ch.isprintable() or unicodedata.category(ch) == "Zs"


def ruby_string_inspect(text: str) -> str:
    """String#inspect of a UTF-8 string."""
    if not _NEEDS_ESCAPING.search(text) and (text.isascii() or text.isprintable()):
        return '"' + text + '"'
    out = ['"']
    for index, ch in enumerate(text):
        if ch in _RUBY_ESCAPES:
            out.append(_RUBY_ESCAPES[ch])
        elif ch == "#" and text[index + 1 : index + 2] in ("{", "$", "@"):
            out.append("\\#")
        elif _ruby_printable(ch):
            out.append(ch)
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(f"\\u{{{ord(ch):X}}}")
    out.append('"')
    return "".join(out)


_inspect_key = lru_cache(maxsize=4096)(ruby_string_inspect)


def _jsonb_key_order(key: str) -> tuple[int, bytes]:
    encoded = key.encode("utf-8")
    return (len(encoded), encoded)


@lru_cache(maxsize=1024)
def _jsonb_ordered(keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted(keys, key=_jsonb_key_order))


def ruby_inspect(value: object) -> str:
    """Ruby (< 3.4) #inspect of a JSON-like value; hashes in jsonb key order."""
    if isinstance(value, str):
        return ruby_string_inspect(value)
    kind = type(value)
    if value is None:
        return "nil"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return str(value)
    if kind is float:
        return repr(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join([_inspect_key(str(key)) + "=>" + ruby_inspect(value[key])
                                for key in _jsonb_ordered(tuple(value))]) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join([ruby_inspect(item) for item in value]) + "]"
    return ruby_string_inspect(str(value))
