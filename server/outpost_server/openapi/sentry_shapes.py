"""Sentry's JSON as JSON Schemas, for the answers not yet declared as outpost_model entities: a bulk issue
update's answer (sentry_api/group_update.py), chunk upload options and assemble states (source_maps/routes).
The rest are generated from outpost_model (responses.py)."""

from __future__ import annotations

from outpost_model.schema import json_schema
from outpost_model.sentry_issues import Actor
from outpost_server.openapi.builders import (
    ANY_OBJECT,
    BOOLEAN,
    INTEGER,
    STRING,
    array,
    nullable,
    obj,
)

_TEXT = nullable(STRING)

# What a bulk update answers (update_groups): only the fields it changed.
ISSUES_UPDATED = obj({}, {"status": STRING, "statusDetails": ANY_OBJECT, "inbox": {"type": "null"},
                          "assignedTo": json_schema(Actor | None),
                          "merge": {"oneOf": [BOOLEAN, obj({"parent": STRING, "children": array(STRING)})]}})

CHUNK_UPLOAD_OPTIONS = obj({"url": STRING, "chunkSize": INTEGER, "chunksPerRequest": INTEGER,
                            "maxFileSize": INTEGER, "maxRequestSize": INTEGER, "concurrency": INTEGER,
                            "hashAlgorithm": STRING, "compression": array(STRING), "accept": array(STRING)})
ASSEMBLE = obj({"state": STRING, "missingChunks": array(STRING)}, {"detail": _TEXT})
