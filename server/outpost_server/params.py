"""Request parameters the way Grape sees them: query string, form body and JSON body merged.

Every endpoint declares the parameters it reads (`query_params(...)` or `body_params(...)` as the
route's `openapi_extra`), so /api/v4/openapi.json lists them and fuzzing sends them, and the declaration
is enforced in each API's own way (see read_params). Reading a parameter the route did not declare is a
programming error (UndeclaredParameter, a 500 in tests).
"""

from __future__ import annotations

import builtins
import datetime as dt
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any, Literal, overload

import orjson
from fastapi import Depends, Request
from fastapi.routing import APIRoute

from outpost_server import http_errors, param_checks
from outpost_server.db import MAX_ROW_ID
from outpost_server.param_checks import Invalid

# GitLab's REST API validates the declared parameters as Grape does: all of them before the handler runs.
GRAPE_PREFIX = "/api/v4/"
# Sentry's web API (and GlitchTip's alerts beside it) refuses a parameter when its handler reads it, after
# the lookups before it, with Sentry's `{"detail": ...}`; a missing one is the handler's to answer.
SENTRY_PREFIX = "/api/0/"
# GitLab's project resources find the project and authorize the caller before Grape validates the
# parameters, so an outsider learns nothing of a route's parameters; their handlers look the project up first.
PROJECT_ROUTES = GRAPE_PREFIX + "projects/"
# Elsewhere (the Rails controllers of the error tracking web endpoints) handlers answer in their own words.
_MISSING = object()

ParamKind = Literal["string", "integer", "boolean", "array", "object", "datetime"]


@dataclass(frozen=True)
class Param:
    """One parameter an endpoint reads: its name, type, default and allowed values, as Grape declares them
    (`values:` is `choices` or `minimum`, `except_values:` is `excluded`); `invalid` is what Sentry's web
    API says of a bad value, when not "Invalid <name> parameter."."""

    name: str
    kind: ParamKind = "string"
    default: Any = None
    required: bool = False
    choices: tuple[Any, ...] = ()
    minimum: int | None = None
    excluded: tuple[int, ...] = ()
    invalid: str | None = None

    def schema(self) -> dict[str, Any]:
        enum = {"enum": list(self.choices)} if self.choices else {}
        if self.kind == "array":
            schema: dict[str, Any] = {"type": "array", "items": {"type": "string", **enum}}
        elif self.kind == "datetime":
            schema = {"type": "string", "format": "date-time"}
        else:
            schema = {"type": self.kind, **enum}
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.default is not None:
            schema["default"] = self.default
        return schema


class Declaration(dict[str, Any]):
    """A route's `openapi_extra`: what the OpenAPI document lists, keeping the declared Params for read_params."""

    def __init__(self, extra: dict[str, Any], params: tuple[Param, ...]):
        super().__init__(extra)
        self.params = params


def query_params(*params: Param) -> Declaration:
    """The `openapi_extra` of a GET or DELETE endpoint reading these parameters from its query string."""
    return Declaration({"parameters": [
        {"name": param.name, "in": "query", "required": param.required, "schema": param.schema()}
        for param in params]}, params)


def body_params(*params: Param) -> Declaration:
    """The `openapi_extra` of a POST, PUT or PATCH endpoint reading these parameters from its body, JSON or
    form-encoded as Grape accepts them (the query string works too, as in GitLab)."""
    schema: dict[str, Any] = {"type": "object", "properties": {param.name: param.schema() for param in params}}
    required = [param.name for param in params if param.required]
    if required:
        schema["required"] = required
    return Declaration({"requestBody": {"required": bool(required), "content": {
        "application/json": {"schema": schema},
        "application/x-www-form-urlencoded": {"schema": schema},
    }}}, params)


class UndeclaredParameter(RuntimeError):
    """A handler read a parameter its route does not declare: add it to the route's declaration."""


def declared_params(route: APIRoute) -> tuple[Param, ...] | None:
    """What `query_params`/`body_params` declared for the route; None when it declares nothing."""
    extra = route.openapi_extra
    return extra.params if isinstance(extra, Declaration) else None


@contextmanager
def _grape_words(name: str) -> Iterator[None]:
    """A value that breaks its declaration, refused as Grape words it: `{"error": "<name> is invalid"}`."""
    try:
        yield
    except Invalid as invalid:
        raise http_errors.ApiError(400, {"error": f"{name} {invalid.phrase}"}) from None


class Params:
    def __init__(self, values: dict[str, Any], *, declared: frozenset[str] | None = None,
                 sent: builtins.list[tuple[builtins.str, builtins.str]] | None = None,
                 refusals: dict[builtins.str, http_errors.ApiError] | None = None,
                 pending: http_errors.ApiError | None = None):
        self._values = values
        # None: the route declares nothing yet, so any name may be read.
        self._declared = declared
        # The query string's (name, value) pairs, repeats kept (Django's QueryDict.getlist).
        self._sent = sent or []
        # Sentry's answers for the values that break their declaration, given when the handler reads them.
        self._refusals = refusals or {}
        # A project route's Grape 400, given at the handler's first read: after its project lookup and
        # authorization, as GitLab's `before { authorize! … }` runs ahead of Grape's validation.
        self._pending = pending

    def _get(self, name: str, default: Any = None) -> Any:
        if self._declared is not None and name not in self._declared:
            raise UndeclaredParameter(name)
        if self._pending is not None:
            raise self._pending
        if name in self._refusals:
            raise self._refusals[name]
        return self._values.get(name, default)

    # The methods below are named after the types they return, so their annotations say builtins.X.

    def __contains__(self, name: builtins.str) -> builtins.bool:
        return self._get(name, _MISSING) is not _MISSING

    def raw(self, name: builtins.str, default: Any = None) -> Any:
        return self._get(name, default)

    def every(self, name: builtins.str) -> builtins.list[builtins.str]:
        """Every non-empty value the query string gives `name`, as sent (to forward them unchecked)."""
        if self._declared is not None and name not in self._declared:
            raise UndeclaredParameter(name)
        if self._pending is not None:
            raise self._pending
        return [value for key, value in self._sent if key == name and value]

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
        value = self._get(name)
        if value is None:
            return default
        with _grape_words(name):
            return param_checks.text(value)

    @overload
    def bool(self, name: builtins.str, default: builtins.bool) -> builtins.bool: ...
    @overload
    def bool(self, name: builtins.str, default: None = None) -> builtins.bool | None: ...

    def bool(self, name: builtins.str, default: builtins.bool | None = None) -> builtins.bool | None:
        value = self._get(name)
        if value is None:
            return default
        with _grape_words(name):
            return param_checks.boolean(value)

    @overload
    def int(self, name: builtins.str, default: builtins.int, *, bound: builtins.int | None = ...) -> builtins.int: ...
    @overload
    def int(self, name: builtins.str, default: None = None, *,
            bound: builtins.int | None = ...) -> builtins.int | None: ...

    def int(self, name: builtins.str, default: builtins.int | None = None, *,
            bound: builtins.int | None = MAX_ROW_ID) -> builtins.int | None:
        """A whole number; by default within the INTEGER columns ids land in (a number beyond them is as
        invalid as a word), `bound=None` for any size."""
        value = self._get(name)
        if value is None:
            return default
        with _grape_words(name):
            number = param_checks.integer(value, bound)
        return default if number is None else number

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
        value = self._get(name)
        with _grape_words(name):
            return None if value is None else param_checks.date(value)

    def datetime(self, name: builtins.str) -> dt.datetime | None:
        value = self._get(name)
        with _grape_words(name):
            return None if value is None else param_checks.datetime(value)

    def list(self, name: builtins.str) -> builtins.list[builtins.str] | None:
        value = self._get(name)
        with _grape_words(name):
            return None if value is None else param_checks.listed(value)


def _problems(declared: tuple[Param, ...], values: dict[str, Any], *, bound: int | None,
              required: bool, blank_unsent: bool) -> list[tuple[Param, str]]:
    """The declared parameters whose values break their declaration, with Grape's words, in declaration order."""
    found = []
    for param in declared:
        value = values.get(param.name)
        if value is None or (blank_unsent and value == ""):
            if required and param.required:
                found.append((param, "is missing"))
            continue
        try:
            param_checks.check(param, value, bound=bound)
        except Invalid as invalid:
            found.append((param, invalid.phrase))
    return found


async def read_params(request: Request) -> Params:
    """The request's parameters, its route's declaration enforced the way its API does:

    - GitLab's REST API, as Grape: every problem at once in one 400 `{"error": "a is missing, b is invalid"}`,
      before the handler runs, or on a project route at its first read of a parameter (after the project's
      lookup and authorization, which give their 404 or 403 first);
    - Sentry's web API, as Sentry's handlers: reading a bad value answers 400 `{"detail": "Invalid <name>
      parameter."}` (or the parameter's own words); a blank value counts as not sent, the query string only.
    """
    path = request.url.path
    sentry = path.startswith(SENTRY_PREFIX)
    sent = request.query_params.multi_items()
    values: dict[str, Any] = {}
    if sentry:
        values.update(sent)  # Django's QueryDict: a name's last value, and `name[]` is just another name
    else:
        for key, value in sent:
            _merge(values, key, value)
    if request.method in ("POST", "PUT", "PATCH", "DELETE") and not sentry:
        await _read_body(request, values)
    route = request.scope.get("route")
    declared = declared_params(route) if isinstance(route, APIRoute) else None
    if declared is None:
        return Params(values)
    names = frozenset(param.name for param in declared)
    if sentry:
        problems = _problems(declared, values, bound=None, required=False, blank_unsent=True)
        refusals = {param.name: http_errors.ApiError(
            400, {"detail": param.invalid or f"Invalid {param.name} parameter."}) for param, _ in problems}
        return Params(values, declared=names, sent=sent, refusals=refusals)
    if path.startswith(GRAPE_PREFIX):
        problems = _problems(declared, values, bound=param_checks.MAX_INTEGER, required=True, blank_unsent=False)
        if problems:
            words = ", ".join(f"{param.name} {phrase}" for param, phrase in problems)
            refused = http_errors.ApiError(400, {"error": words})
            if not path.startswith(PROJECT_ROUTES):
                raise refused
            return Params(values, declared=names, pending=refused)
    return Params(values, declared=names)


async def _read_body(request: Request, values: dict[str, Any]) -> None:
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
