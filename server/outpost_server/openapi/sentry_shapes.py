"""Sentry's JSON as JSON Schemas, for the answers not yet declared as outpost_model entities: issues, their
tags, a bulk update's answer, chunk upload options and assemble states (sentry_api/serializers.py,
group_update.py, source_maps/routes). The rest are generated from outpost_model (responses.py)."""

from __future__ import annotations

from outpost_server.openapi.builders import (
    ANY_ARRAY,
    ANY_OBJECT,
    BOOLEAN,
    INTEGER,
    STRING,
    TIME,
    array,
    extend,
    nullable,
    obj,
    time_series,
)

_TEXT = nullable(STRING)

PROJECT_REFERENCE = obj({"id": STRING, "name": STRING, "slug": STRING, "platform": _TEXT})

METADATA = obj({"title": STRING}, {"type": _TEXT, "value": _TEXT})
# An assignee, as Sentry's ActorSerializer writes a user.
ACTOR = obj({"type": STRING, "id": STRING, "name": STRING, "email": STRING})
ISSUE = obj({"id": STRING, "shortId": STRING, "title": STRING, "culprit": _TEXT, "permalink": STRING,
             "level": STRING, "status": STRING, "statusDetails": ANY_OBJECT, "substatus": _TEXT,
             "platform": _TEXT, "project": PROJECT_REFERENCE, "type": STRING, "metadata": METADATA,
             "numComments": INTEGER, "assignedTo": nullable(ACTOR), "count": STRING, "userCount": INTEGER,
             "firstSeen": TIME, "lastSeen": TIME, "stats": obj({"24h": time_series()}, {"30d": time_series()})})
# What a bulk update answers (update_groups): only the fields it changed.
ISSUES_UPDATED = obj({}, {"status": STRING, "statusDetails": ANY_OBJECT, "inbox": {"type": "null"},
                          "assignedTo": nullable(ACTOR),
                          "merge": {"oneOf": [BOOLEAN, obj({"parent": STRING, "children": array(STRING)})]}})
RELEASE_REFERENCE = nullable(obj({"version": STRING, "shortVersion": STRING, "projects": ANY_ARRAY}))
ISSUE_DETAILS = extend(ISSUE, {
    "activity": ANY_ARRAY, "seenBy": ANY_ARRAY, "participants": ANY_ARRAY, "userReportCount": INTEGER,
    "firstRelease": RELEASE_REFERENCE, "lastRelease": RELEASE_REFERENCE,
    "tags": array(obj({"key": STRING, "name": STRING, "totalValues": INTEGER}))})
TAG_VALUE = obj({"key": STRING, "name": STRING, "value": STRING, "count": INTEGER, "lastSeen": TIME,
                 "firstSeen": TIME}, {"query": STRING})
TAG_KEY = obj({"key": STRING, "name": STRING, "uniqueValues": INTEGER, "totalValues": INTEGER,
               "topValues": array(TAG_VALUE)})

CHUNK_UPLOAD_OPTIONS = obj({"url": STRING, "chunkSize": INTEGER, "chunksPerRequest": INTEGER,
                            "maxFileSize": INTEGER, "maxRequestSize": INTEGER, "concurrency": INTEGER,
                            "hashAlgorithm": STRING, "compression": array(STRING), "accept": array(STRING)})
ASSEMBLE = obj({"state": STRING, "missingChunks": array(STRING)}, {"detail": _TEXT})
