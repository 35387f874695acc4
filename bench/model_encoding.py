"""Entity encoding benchmark: msgspec structs against pydantic models for the same answers.

    .venv/bin/python -m bench.model_encoding [--repeat 200]

Two answers the console reads most: a page of the error list (50 ErrorListItem rows) and one event in full
(an Event with a chained exception of 3 x 40 frames, 60 breadcrumbs and a request). Each is built from the
same plain row values and encoded to JSON four ways, timed per answer (median of --repeat runs):

- the baseline, as the server answered before the entities were declared: dicts through `json.dumps`
  (what Starlette's JSONResponse does);
- msgspec: the outpost_model structs, encoded by msgspec;
- pydantic, validated: the same fields as pydantic models, built the way FastAPI's `response_model` builds
  them (validating every value) and dumped with `model_dump_json`;
- pydantic, unvalidated: `model_construct` (no validation), then `model_dump_json`.

The pydantic models are generated from the structs' fields (same names, aliases and types), so both sides
declare exactly the same entities. Every variant's JSON is decoded and compared with the baseline's first.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import types
import typing
from collections.abc import Callable
from typing import Any

import msgspec
import pydantic

from outpost_model import UNSET, UnsetType
from outpost_model.error_tracking import ErrorList, ErrorListItem, PageCursor, Pagination
from outpost_model.sentry_events import Event, EventEntry, EventTag, Metadata, ReleaseReference, Sdk, SentryFrame

# --- the same entities as pydantic models ---------------------------------------------------------------

_MODELS: dict[type, type[pydantic.BaseModel]] = {}


def _pydantic_type(kind: Any) -> Any:
    if isinstance(kind, type) and issubclass(kind, msgspec.Struct):
        return pydantic_model(kind)
    origin, arguments = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        kept = tuple(_pydantic_type(argument) for argument in arguments if argument is not UnsetType)
        return typing.Union[kept] if len(kept) > 1 else kept[0]  # noqa: UP007  (built at run time)
    if origin is not None and arguments:
        return origin[tuple(_pydantic_type(argument) for argument in arguments)]
    return kind


def pydantic_model(struct: type[msgspec.Struct]) -> type[pydantic.BaseModel]:
    """A pydantic model with the struct's fields: an UNSET default becomes pydantic's unset field,
    left out of the JSON by `exclude_unset`."""
    if struct not in _MODELS:
        fields: dict[str, Any] = {}
        for field in msgspec.structs.fields(struct):
            default = None if field.default is UNSET else (
                ... if field.default is msgspec.NODEFAULT else field.default)
            alias = field.encode_name if field.encode_name != field.name else None
            fields[field.name] = (_pydantic_type(field.type), pydantic.Field(default, alias=alias))
        _MODELS[struct] = pydantic.create_model(
            struct.__name__, __config__=pydantic.ConfigDict(populate_by_name=True), **fields)
    return _MODELS[struct]


# --- the rows ------------------------------------------------------------------------------------------


def error_rows(count: int = 50) -> list[dict[str, Any]]:
    return [{"id": str(1000 + n), "title": f"ValueError: invalid literal for int() with base 10: 'x{n}'",
             "type": "error", "user_count": n % 7, "count": 40 + n, "first_seen": "2026-05-01T10:00:00.000Z",
             "last_seen": "2026-05-09T12:34:56.000Z", "message": f"invalid literal for int() with base 10: 'x{n}'",
             "culprit": "shop.checkout in parse_amount", "external_url": f"http://127.0.0.1/shop/web/-/error_tracking/{n}/details",
             "project_id": 7, "project_name": "web", "project_slug": "web", "short_id": None, "status": "unresolved",
             "frequency": [[1778300000 + 3600 * hour, hour % 5] for hour in range(24)]} for n in range(count)]


def _frame(n: int) -> dict[str, Any]:
    return {"filename": f"shop/module_{n}.py", "absPath": f"/srv/shop/module_{n}.py", "module": f"shop.module_{n}",
            "package": None, "platform": None, "instructionAddr": None, "symbolAddr": None,
            "function": f"handler_{n}", "rawFunction": None, "symbol": None,
            "context": [(10 + line, f"    value = compute_{line}(value)  # line {line}") for line in range(11)],
            "lineNo": 15, "colNo": None, "inApp": n % 3 != 0, "trust": None, "errors": None, "lock": None,
            "vars": {"value": "'42'", "request": "<Request GET /checkout>", "n": str(n)}}


def event_row() -> dict[str, Any]:
    values = [{"type": "ValueError", "value": f"cause {n}", "module": None, "mechanism": {"type": "generic"},
               "threadId": None, "frames": [_frame(n * 40 + i) for i in range(40)]} for n in range(3)]
    crumbs = [{"type": "default", "category": "http", "level": "info", "message": f"GET /api/item/{n}",
               "data": {"status_code": 200}, "timestamp": "2026-05-09T12:34:50.000Z", "event_id": None}
              for n in range(60)]
    return {"values": values, "crumbs": crumbs,
            "tags": [("browser", "Firefox 120"), ("environment", "production"), ("level", "error"),
                     ("release", "shop@1.2.3"), ("url", "https://shop.example/checkout")]}


# --- the three ways of building an answer --------------------------------------------------------------


def _event_fields(row: dict[str, Any], frame: Callable[..., Any], entry: Callable[..., Any],
                  tag: Callable[..., Any]) -> dict[str, Any]:
    """The Event's fields from the row; frames, entries and tags made by the given constructors."""
    values = [{key: value for key, value in exc.items() if key != "frames"}
              | {"stacktrace": {"frames": [frame(**f) for f in exc["frames"]], "framesOmitted": None,
                                "registers": None, "hasSystemFrames": True}, "rawStacktrace": None}
              for exc in row["values"]]
    return {"id": "a" * 32, "groupID": "1000", "eventID": "a" * 32, "projectID": "7", "size": 48_000,
            "entries": [entry(type="exception", data={"values": values, "excOmitted": None, "hasSystemFrames": True}),
                        entry(type="breadcrumbs", data={"values": row["crumbs"]}),
                        entry(type="request", data={"url": "https://shop.example/checkout", "method": "POST",
                                                    "headers": [["Accept", "*/*"]], "query": [], "fragment": None,
                                                    "data": None, "cookies": [], "env": None,
                                                    "inferredContentType": None, "apiTarget": None})],
            "dist": None, "message": "", "title": "ValueError: cause 2", "location": "shop/module_80.py",
            "user": {"id": "42", "email": None, "username": None, "ip_address": None, "name": None, "data": None},
            "contexts": {"os": {"name": "Linux"}}, "context": {}, "packages": {}, "type": "error",
            "tags": [tag(key=key, value=value) for key, value in row["tags"]], "platform": "python",
            "dateReceived": "2026-05-09T12:34:56.000Z", "dateCreated": "2026-05-09T12:34:56.000Z", "errors": [],
            "occurrence": None, "crashFile": None, "culprit": "shop.module_80 in handler_80",
            "fingerprints": ["f" * 32], "groupingConfig": None, "userReport": None, "sdkUpdates": [],
            "resolvedWith": [], "nextEventID": None, "previousEventID": "b" * 32}


def _release() -> dict[str, Any]:
    return {"version": "shop@1.2.3", "shortVersion": "shop@1.2.3", "ref": None, "url": None, "dateCreated": None,
            "dateReleased": None, "lastCommit": None, "lastDeploy": None, "firstEvent": None, "lastEvent": None,
            "projects": [{"id": "7", "name": "web", "slug": "web", "platform": None}]}


def _metadata() -> dict[str, Any]:
    return {"type": "ValueError", "value": "cause 2", "title": "ValueError: cause 2"}


def baseline_event(row: dict[str, Any]) -> bytes:
    body = _event_fields(row, dict, dict, lambda **tag: tag | {"_meta": None})
    body |= {"_meta": {}, "sdk": {"name": "sentry.python", "version": "2.0"}, "metadata": _metadata(),
             "release": _release()}
    return _dumps(body)


def msgspec_event(row: dict[str, Any]) -> bytes:
    event = Event(**_event_fields(row, SentryFrame, EventEntry, EventTag), meta={},
                  sdk=Sdk(name="sentry.python", version="2.0"), metadata=Metadata(**_metadata()),
                  release=msgspec.convert(_release(), ReleaseReference))
    return msgspec.json.encode(event)


def pydantic_event(row: dict[str, Any], *, validate: bool) -> bytes:
    build = _builder(validate)
    event = build(Event, **_event_fields(row, lambda **f: build(SentryFrame, **f), lambda **e: build(EventEntry, **e),
                                         lambda **t: build(EventTag, **t, meta=None)),
                  meta={}, sdk=build(Sdk, name="sentry.python", version="2.0"),
                  metadata=build(Metadata, **_metadata()), release=pydantic_model(ReleaseReference)(**_release()))
    return event.model_dump_json(by_alias=True, exclude_unset=True).encode()


def baseline_list(rows: list[dict[str, Any]]) -> bytes:
    return _dumps({"errors": [dict(row) for row in rows], "pagination": {"next": {"cursor": "abc"}},
                   "external_url": None})


def msgspec_list(rows: list[dict[str, Any]]) -> bytes:
    return msgspec.json.encode(ErrorList(errors=[ErrorListItem(**row) for row in rows],
                                         pagination=Pagination(next=PageCursor(cursor="abc")), external_url=None))


def pydantic_list(rows: list[dict[str, Any]], *, validate: bool) -> bytes:
    build = _builder(validate)
    body = build(ErrorList, errors=[build(ErrorListItem, **row) for row in rows],
                 pagination=build(Pagination, next=build(PageCursor, cursor="abc")), external_url=None)
    return body.model_dump_json(by_alias=True, exclude_unset=True).encode()


def _builder(validate: bool) -> Callable[..., pydantic.BaseModel]:
    def build(struct: type[msgspec.Struct], **fields: Any) -> pydantic.BaseModel:
        model = pydantic_model(struct)
        return model(**fields) if validate else model.model_construct(**fields)
    return build


def _dumps(body: Any) -> bytes:
    # Starlette's JSONResponse.render.
    return json.dumps(body, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")).encode()


def _median_ms(call: Callable[[], bytes], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    rows, event = error_rows(), event_row()
    answers = {
        "error list (50 rows)": {"dicts + json.dumps (baseline)": lambda: baseline_list(rows),
                                 "msgspec structs": lambda: msgspec_list(rows),
                                 "pydantic, validated": lambda: pydantic_list(rows, validate=True),
                                 "pydantic, unvalidated": lambda: pydantic_list(rows, validate=False)},
        "event detail (120 frames)": {"dicts + json.dumps (baseline)": lambda: baseline_event(event),
                                      "msgspec structs": lambda: msgspec_event(event),
                                      "pydantic, validated": lambda: pydantic_event(event, validate=True),
                                      "pydantic, unvalidated": lambda: pydantic_event(event, validate=False)}}
    for answer, variants in answers.items():
        expected = json.loads(next(iter(variants.values()))())
        for name, call in variants.items():
            assert json.loads(call()) == expected, f"{answer}: {name} encodes another JSON"
        print(f"\n{answer}: median of {args.repeat}, build + encode")
        baseline = None
        for name, call in variants.items():
            took = _median_ms(call, args.repeat)
            baseline = baseline or took
            print(f"  {name:32} {took:8.3f} ms   {took / baseline:5.2f}x the baseline")


if __name__ == "__main__":
    main()
