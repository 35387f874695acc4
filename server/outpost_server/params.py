"""Request parameters the way Grape sees them: query string, form body and JSON body merged.

Every endpoint declares the parameters it reads (`query_params(...)` or `body_params(...)` as the
route's `openapi_extra`), so /api/v4/openapi.json lists them and fuzzing sends them. Reading a
parameter the route did not declare is a programming error (UndeclaredParameter, a 500 in tests).
"""

from __future__ import annotations

import builtins
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, overload

import orjson
from fastapi import Depends, Request
from fastapi.routing import APIRoute

from outpost_server import http_errors
from outpost_server.db import MAX_ROW_ID

# Grape validates the declared parameters of GitLab's REST API; Rails controllers (the error tracking web
# endpoints) and Sentry's web API answer bad parameters in their own words, from their handlers.
GRAPE_PREFIX = "/api/v4/"
_TRUE = {"1", "t", "true", "y", "yes", "on"}
_FALSE = {"0", "f", "false", "n", "no", "off"}
_MISSING = object()

ParamKind = Literal["string", "integer", "boolean", "array", "object", "datetime"]


@dataclass(frozen=True)
class Param:
    """One parameter an endpoint reads: its name, type, default and allowed values (for its documentation;
    the handler still checks and coerces the value, with GitLab's messages)."""

    name: str
    kind: ParamKind = "string"
    default: Any = None
    required: bool = False
    choices: tuple[str, ...] = ()

    def schema(self) -> dict[str, Any]:
        enum = {"enum": list(self.choices)} if self.choices else {}
        if self.kind == "array":
            schema: dict[str, Any] = {"type": "array", "items": {"type": "string", **enum}}
        elif self.kind == "datetime":
            schema = {"type": "string", "format": "date-time"}
        else:
            schema = {"type": self.kind, **enum}
        if self.default is not None:
            schema["default"] = self.default
        return schema


def query_params(*params: Param) -> dict[str, Any]:
    """The `openapi_extra` of a GET or DELETE endpoint reading these parameters from its query string."""
    return {"parameters": [{"name": param.name, "in": "query", "required": param.required, "schema": param.schema()}
                           for param in params]}


def body_params(*params: Param) -> dict[str, Any]:
    """The `openapi_extra` of a POST, PUT or PATCH endpoint reading these parameters from its body, JSON or
    form-encoded as Grape accepts them (the query string works too, as in GitLab)."""
    schema: dict[str, Any] = {"type": "object", "properties": {param.name: param.schema() for param in params}}
    required = [param.name for param in params if param.required]
    if required:
        schema["required"] = required
    return {"requestBody": {"required": bool(required), "content": {
        "application/json": {"schema": schema},
        "application/x-www-form-urlencoded": {"schema": schema},
    }}}


class UndeclaredParameter(RuntimeError):
    """A handler read a parameter its route does not declare: add it to the route's declaration."""


def declared_names(route: APIRoute) -> frozenset[str] | None:
    """The names `query_params`/`body_params` declared for the route; None when it declares none."""
    extra = route.openapi_extra
    if not extra:
        return None
    names = {parameter["name"] for parameter in extra.get("parameters", ()) if parameter.get("in") == "query"}
    for content in extra.get("requestBody", {}).get("content", {}).values():
        names.update(content["schema"].get("properties", {}))
    return frozenset(names)


class Params:
    def __init__(self, values: dict[str, Any], *, declared: frozenset[str] | None = None):
        self._values = values
        # None: the route declares nothing yet, so any name may be read.
        self._declared = declared

    def _get(self, name: str, default: Any = None) -> Any:
        if self._declared is not None and name not in self._declared:
            raise UndeclaredParameter(name)
        return self._values.get(name, default)

    # The methods below are named after the types they return, so their annotations say builtins.X.

    def __contains__(self, name: builtins.str) -> builtins.bool:
        return self._get(name, _MISSING) is not _MISSING

    def raw(self, name: builtins.str, default: Any = None) -> Any:
        return self._get(name, default)

    def require(self, *names: builtins.str) -> None:
        """For parameters required together only in some cases (the declaration enforces the rest)."""
        missing = [name for name in names if self._get(name) is None]
        if missing:
            raise http_errors.missing_params(*missing)

    def values_of(self, declarations: tuple[Param, ...]) -> dict[builtins.str, Any]:
        """The given parameters that were sent, coerced to their declared kinds (already validated)."""
        coerce: dict[builtins.str, Callable[[builtins.str], Any]] = {
            "boolean": self.bool, "integer": self.int, "array": self.list}
        return {param.name: coerce.get(param.kind, self.str)(param.name) for param in declarations
                if self.raw(param.name) is not None}

    @overload
    def str(self, name: builtins.str, default: builtins.str) -> builtins.str: ...
    @overload
    def str(self, name: builtins.str, default: None = None) -> builtins.str | None: ...

    def str(self, name: builtins.str, default: builtins.str | None = None) -> builtins.str | None:
        value = self._get(name, _MISSING)
        if value is _MISSING or value is None:
            return default
        if isinstance(value, (dict, list)):
            raise http_errors.invalid_param(name)
        if isinstance(value, bool):
            return "true" if value else "false"
        text = str(value)
        # PostgreSQL text cannot hold NUL; GitLab refuses such parameters before they reach it.
        if "\x00" in text:
            raise http_errors.invalid_param(name)
        return text

    @overload
    def bool(self, name: builtins.str, default: builtins.bool) -> builtins.bool: ...
    @overload
    def bool(self, name: builtins.str, default: None = None) -> builtins.bool | None: ...

    def bool(self, name: builtins.str, default: builtins.bool | None = None) -> builtins.bool | None:
        value = self._get(name, _MISSING)
        if value is _MISSING or value is None:
            return default
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str):
            lowered = value.strip().lower()
            if lowered == "":
                raise http_errors.empty_param(name)
            if lowered in _TRUE:
                return True
            if lowered in _FALSE:
                return False
        raise http_errors.invalid_param(name)

    @overload
    def int(self, name: builtins.str, default: builtins.int) -> builtins.int: ...
    @overload
    def int(self, name: builtins.str, default: None = None) -> builtins.int | None: ...

    def int(self, name: builtins.str, default: builtins.int | None = None) -> builtins.int | None:
        value = self._get(name, _MISSING)
        if value is _MISSING or value is None or value == "":
            return default
        if isinstance(value, bool):
            raise http_errors.invalid_param(name)
        if isinstance(value, str):
            try:
                value = int(value.strip())
            except ValueError:
                pass
        # Integer parameters land in INTEGER columns; a number beyond them is as invalid as a word.
        if isinstance(value, int) and -MAX_ROW_ID <= value <= MAX_ROW_ID:
            return value
        raise http_errors.invalid_param(name)

    @overload
    def choice(self, name: builtins.str, allowed: tuple[builtins.str, ...], default: builtins.str) -> builtins.str: ...
    @overload
    def choice(self, name: builtins.str, allowed: tuple[builtins.str, ...],
               default: None = None) -> builtins.str | None: ...

    def choice(self, name: builtins.str, allowed: tuple[builtins.str, ...],
               default: builtins.str | None = None) -> builtins.str | None:
        value = self.str(name, default)
        if value is not None and value not in allowed:
            raise http_errors.invalid_value(name)
        return value

    def date(self, name: builtins.str) -> dt.date | None:
        value = self.str(name)
        if value is None or value == "":
            return None
        try:
            return dt.date.fromisoformat(value[:10])
        except ValueError:
            raise http_errors.invalid_param(name) from None

    def datetime(self, name: builtins.str) -> dt.datetime | None:
        """An ISO 8601 time (Grape's DateTime); without a zone it is UTC."""
        value = self.str(name)
        if value is None or value == "":
            return None
        try:
            parsed = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise http_errors.invalid_param(name) from None
        return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=dt.timezone.utc)

    def list(self, name: builtins.str) -> builtins.list[builtins.str] | None:
        value = self._get(name, _MISSING)
        if value is _MISSING or value is None:
            return None
        if isinstance(value, list):
            return [str(item) for item in value]
        if isinstance(value, str):
            return [part for part in value.split(",") if part]
        raise http_errors.invalid_param(name)


async def read_params(request: Request) -> Params:
    values: dict[str, Any] = {}
    for key, value in request.query_params.multi_items():
        _merge(values, key, value)
    if request.method in ("POST", "PUT", "PATCH", "DELETE"):
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type == "application/json":
            body = await request.body()
            if body.strip():
                try:
                    document = orjson.loads(body)
                except ValueError:
                    raise http_errors.bad_request("invalid JSON body") from None
                if not isinstance(document, dict):
                    raise http_errors.bad_request("the JSON body must be an object")
                values.update(document)
        elif content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.form()
            for key, field in form.multi_items():
                if isinstance(field, str):
                    _merge(values, key, field)
    route = request.scope.get("route")
    if not isinstance(route, APIRoute):
        return Params(values)
    params = Params(values, declared=declared_names(route))
    if request.url.path.startswith(GRAPE_PREFIX):
        enforce_declared(route, params)
    return params


# Routes live as long as their application: their declarations are read once.
_DECLARED: dict[int, tuple[Param, ...]] = {}


def declared_params(route: APIRoute) -> tuple[Param, ...]:
    """The route's declared parameters, read back from its `openapi_extra`."""
    cached = _DECLARED.get(id(route))
    if cached is None:
        cached = _DECLARED[id(route)] = _read_declaration(route)
    return cached


def _read_declaration(route: APIRoute) -> tuple[Param, ...]:
    extra = route.openapi_extra or {}
    found = [Param(parameter["name"], _kind(parameter["schema"]), required=parameter.get("required", False),
                   choices=_choices(parameter["schema"]))
             for parameter in extra.get("parameters", ()) if parameter.get("in") == "query"]
    for content in extra.get("requestBody", {}).get("content", {}).values():
        schema = content["schema"]
        required = set(schema.get("required", ()))
        found += [Param(name, _kind(prop), required=name in required, choices=_choices(prop))
                  for name, prop in schema.get("properties", {}).items()]
        break  # every content type declares the same schema
    return tuple(found)


def _kind(schema: dict[str, Any]) -> ParamKind:
    kind = schema.get("type", "string")
    if kind == "string" and schema.get("format") == "date-time":
        return "datetime"
    return kind if kind in ("string", "integer", "boolean", "array", "object") else "string"


def _choices(schema: dict[str, Any]) -> tuple[str, ...]:
    return tuple((schema.get("items", {}) if schema.get("type") == "array" else schema).get("enum", ()))


def _check_integer(name: str, value: Any) -> None:
    """Grape's Integer coercion: a whole number, as a number or as text (its size is the handler's
    business: an id is bounded by its column, a byte count is not)."""
    if isinstance(value, bool):
        raise http_errors.invalid_param(name)
    if isinstance(value, str) and not value.strip():
        return  # Grape coerces a blank Integer to nil
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise http_errors.invalid_param(name) from None
    if not isinstance(value, int) or abs(value) > 2**63 - 1:
        raise http_errors.invalid_param(name)


def enforce_declared(route: APIRoute, params: Params) -> None:
    """Grape's validation of the declared parameters, before the handler runs: every problem at once, in
    declaration order, as one 400 `{"error": "a is missing, b is invalid"}`."""
    problems: list[str] = []
    for param in declared_params(route):
        if param.name not in params or params.raw(param.name) is None:
            if param.required:
                problems.append(f"{param.name} is missing")
            continue
        try:
            if param.kind == "integer":
                _check_integer(param.name, params.raw(param.name))
            elif param.kind == "boolean":
                params.bool(param.name)
            elif param.kind == "datetime":
                params.datetime(param.name)
            elif param.kind == "object":
                pass  # a JSON object (Grape's Hash): its own parser checks its keys
            elif param.kind == "array":
                values = params.list(param.name) or []
                if param.choices and any(value not in param.choices for value in values):
                    raise http_errors.invalid_value(param.name)
            elif param.choices:
                params.choice(param.name, param.choices)
            else:
                params.str(param.name)
        except http_errors.ApiError as problem:
            problems.append(problem.body["error"])
    if problems:
        raise http_errors.ApiError(400, {"error": ", ".join(problems)})


def _merge(values: dict[str, Any], key: str, value: str) -> None:
    # Rack's convention: "scopes[]=a&scopes[]=b" is a list named "scopes".
    if key.endswith("[]"):
        listed = values.setdefault(key[:-2], [])
        if not isinstance(listed, list):  # "a=1&a[]=2": Rack refuses a name that is both
            raise http_errors.invalid_param(key[:-2])
        listed.append(value)
    else:
        values[key] = value


ParamsDep = Annotated[Params, Depends(read_params)]
