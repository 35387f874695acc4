"""GitLab's entities as JSON Schemas, for the answers not yet declared as outpost_model entities: /version,
whether a namespace exists, report imports, instance settings, plan limits and mail
(lib/api/entities in GitLab's source). The rest are generated (responses.py)."""

from __future__ import annotations

from outpost_server.openapi.builders import (
    ANY_OBJECT,
    BOOLEAN,
    INTEGER,
    STRING,
    array,
    nullable,
    obj,
)

MESSAGE = obj({"message": STRING})

VERSION = obj({"version": STRING, "revision": STRING},
              {"kas": obj({"enabled": BOOLEAN}), "enterprise": BOOLEAN})

NAMESPACE_EXISTS = obj({"exists": BOOLEAN, "suggests": array(STRING)})

PLAN_LIMITS = {"type": "object", "required": ["ci_instance_level_variables"],
               "properties": {"limits_history": ANY_OBJECT},
               # Every other limit is a number (GitLab's PlanLimits entity).
               "additionalProperties": {"type": ["integer", "object"]}}

APPLICATION_SETTINGS = {"type": "object", "additionalProperties": BOOLEAN,
                        "required": ["allow_local_requests_from_web_hooks_and_services"]}

MAIL_SETTINGS = obj({"configured": BOOLEAN, "host": nullable(STRING), "port": nullable(INTEGER),
                     "security": nullable(STRING), "from": nullable(STRING), "authentication": BOOLEAN})
MAIL_TEST = obj({"to": STRING, "delivered": BOOLEAN})

REPORT_IMPORT = obj({"report_type": STRING, "scanner": STRING, "created": INTEGER, "updated": INTEGER,
                     "no_longer_detected": INTEGER})
