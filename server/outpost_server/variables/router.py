"""GitLab's admin API for instance-level CI/CD variables, and the plan limits API."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from outpost_server import http_errors
from outpost_server.auth import AdminUserDep
from outpost_server.db import SessionDep
from outpost_server.deps import ConfigDep, SecretKeyDep
from outpost_server.entity_json import EntityResponse
from outpost_server.pagination import paginate, paginated
from outpost_server.params import Param, Params, ParamsDep, body_params, query_params
from outpost_server.variables import plan_limits, service
from outpost_server.variables.entities import variable_entity
from outpost_server.variables.models import VARIABLE_TYPES

router = APIRouter(tags=["variables"])

# Grape's declared parameters of the create endpoint, in declaration order; update takes them all as optional
# (a key there is read and ignored: a variable cannot be renamed).
CREATE_PARAMS = (Param("key", required=True), Param("value", required=True), Param("protected", "boolean"),
                 Param("masked", "boolean"), Param("raw", "boolean"),
                 Param("variable_type", choices=tuple(VARIABLE_TYPES), default="env_var"), Param("description"))
UPDATE_PARAMS = tuple(Param(param.name, param.kind, choices=param.choices) for param in CREATE_PARAMS)
PLAN_NAME = Param("plan_name", choices=plan_limits.PLANS, default=plan_limits.DEFAULT_PLAN)


@router.get("/admin/ci/variables", openapi_extra=paginated())
def list_variables(request: Request, response: Response, session: SessionDep, admin: AdminUserDep,
                   params: ParamsDep, secret_key: SecretKeyDep) -> Response:
    rows = paginate(session, service.list_stmt(), params, request, response)
    return EntityResponse([variable_entity(row, value=service.reveal(row, secret_key=secret_key)) for row in rows],
                          headers=response.headers)


@router.get("/admin/ci/variables/{key}", openapi_extra=query_params())
def get_variable(session: SessionDep, admin: AdminUserDep, secret_key: SecretKeyDep, key: str) -> Response:
    variable = service.get_by_key(session, key=key)
    return EntityResponse(variable_entity(variable, value=service.reveal(variable, secret_key=secret_key)))


@router.post("/admin/ci/variables", status_code=201, openapi_extra=body_params(*CREATE_PARAMS))
def create_variable(session: SessionDep, admin: AdminUserDep, params: ParamsDep, secret_key: SecretKeyDep,
                    config: ConfigDep) -> Response:
    declared = params.values_of(CREATE_PARAMS)
    service.hold_creation_lock(session)
    limit = plan_limits.instance_variables_limit(session,
                                                 default_variables_limit=config.default_instance_variables_limit)
    variable = service.create_variable(session, secret_key=secret_key, limit=limit, **declared)
    return EntityResponse(variable_entity(variable, value=declared["value"]), status_code=201)


@router.put("/admin/ci/variables/{key}", openapi_extra=body_params(*UPDATE_PARAMS))
def update_variable(session: SessionDep, admin: AdminUserDep, params: ParamsDep, secret_key: SecretKeyDep,
                    key: str) -> Response:
    variable = service.get_by_key(session, key=key)
    # GitLab ignores a key in the body: a variable cannot be renamed.
    declared = params.values_of(UPDATE_PARAMS)
    declared.pop("key", None)
    value = service.update_variable(session, variable, secret_key=secret_key, **declared)
    return EntityResponse(variable_entity(variable, value=value))


@router.delete("/admin/ci/variables/{key}", status_code=204, openapi_extra=query_params())
def delete_variable(session: SessionDep, admin: AdminUserDep, key: str) -> Response:
    service.delete_variable(session, service.get_by_key(session, key=key))
    return Response(status_code=204)


# --- plan limits --------------------------------------------------------------------------

def _plan_name(params: Params, *, required: bool) -> tuple[str | None, list[str]]:
    name = params.str("plan_name")
    if name is None:
        return (None, ["plan_name is missing"]) if required else (plan_limits.DEFAULT_PLAN, [])
    if name not in plan_limits.PLANS:
        return None, ["plan_name does not have a valid value"]
    return name, []


@router.get("/application/plan_limits", openapi_extra=query_params(PLAN_NAME))
def get_plan_limits(session: SessionDep, admin: AdminUserDep, params: ParamsDep, config: ConfigDep) -> Response:
    plan, problems = _plan_name(params, required=False)
    if problems or plan is None:
        raise http_errors.ApiError(400, {"error": ", ".join(problems)})
    return EntityResponse(plan_limits.limits_for(session, plan=plan,
                                                  default_variables_limit=config.default_instance_variables_limit))


@router.put("/application/plan_limits", openapi_extra=body_params(
    Param(PLAN_NAME.name, required=True, choices=PLAN_NAME.choices),
    *(Param(name, "integer") for name in plan_limits.UPDATABLE_LIMITS)))
def update_plan_limits(session: SessionDep, admin: AdminUserDep, params: ParamsDep, config: ConfigDep) -> Response:
    plan, problems = _plan_name(params, required=True)
    changes: dict[str, int] = {}
    for name in plan_limits.UPDATABLE_LIMITS:
        try:
            value = params.int(name)
        except http_errors.ApiError as exc:
            problems.append(exc.body["error"])
            continue
        if value is not None:
            changes[name] = value
    if problems or plan is None:
        raise http_errors.ApiError(400, {"error": ", ".join(problems)})
    negative = {name: ["must be greater than or equal to 0"] for name, value in changes.items() if value < 0}
    if negative:
        raise http_errors.validation_error(negative)
    plan_limits.update_limits(session, plan=plan, changes=changes, user=admin)
    return EntityResponse(plan_limits.limits_for(session, plan=plan,
                                                  default_variables_limit=config.default_instance_variables_limit))
