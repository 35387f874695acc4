"""`GET` and `POST /api/graphql`, as GitLab's GraphqlController serves them.

Authentication is the API's (PRIVATE-TOKEN, `private_token`, Bearer); without a token the caller is
anonymous. A token that is present but unknown, revoked, expired or without `api`/`read_api` scope is
answered `401 {"errors":[{"message":"Invalid token"}]}`, a blocked user `403`. Queries over 10,000
characters, malformed `variables` and mutations sent with GET are answered 422. Everything else is
200 with `{"data": ..., "errors": [...]}`, field failures included. Apollo-style batches (a JSON
array of operations) are answered with an array. An unexpected failure in a resolver is logged and
answered `500 {"errors":[{"message":"Internal server error"}]}`, as GitLab does in production.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Collection
from typing import Any

from ariadne import graphql_sync
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from graphql import (
    ASTValidationRule,
    DocumentNode,
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    OperationType,
    TypeInfo,
    parse,
    validate,
)
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from outpost_server import json_text
from outpost_server.accounts.models import User
from outpost_server.auth import TokenRefused, admit, extract_token, resolve_token
from outpost_server.db import SessionDep
from outpost_server.deps import services_of
from outpost_server.graphql.context import GraphContext
from outpost_server.graphql.executable import executable_schema
from outpost_server.graphql.limits import Limits, limits_for, limits_rule
from outpost_server.urls import public_base_url

router = APIRouter()
log = logging.getLogger("outpost.graphql")
# Ariadne logs every error of every response, client mistakes included; unexpected failures are
# logged here instead (ResolverFailure), so its logger stays quiet.
# (A logger outside the hierarchy: logging configuration cannot turn it back on.)
_ariadne_log = logging.Logger("outpost.graphql.ariadne", level=logging.CRITICAL + 1)

PATH = "/api/graphql"
MAX_QUERY_SIZE = 10_000
MAX_VALIDATION_ERRORS = 5
QUERY_SCOPES = {"api", "read_api"}


class Refusal(Exception):
    """A request GitLab refuses before running anything: an HTTP status and one message."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message

    def response(self) -> JSONResponse:
        return JSONResponse({"errors": [{"message": self.message}]}, status_code=self.status)


class ResolverFailure(Exception):
    """A resolver raised something other than a GraphQL error: a bug, answered 500."""


def _format_error(error: GraphQLError, debug: bool = False) -> dict[str, Any]:
    original = error.original_error
    if original is not None and not isinstance(original, GraphQLError):
        raise ResolverFailure(str(error.path)) from original
    return dict(error.formatted)


def _validator(schema: GraphQLSchema, document_ast: DocumentNode,
               rules: Collection[type[ASTValidationRule]] | None = None, max_errors: int | None = None,
               type_info: TypeInfo | None = None) -> list[GraphQLError]:
    """graphql-core's validation, stopping after 5 errors as GitLab does (validate_max_errors)."""
    return validate(schema, document_ast, rules, max_errors=MAX_VALIDATION_ERRORS)


# --- request parameters ---------------------------------------------------------------------------


def _variables(raw: Any) -> dict[str, Any]:
    """Gitlab::Graphql::Variables: an object, a JSON string of one, or nothing."""
    if raw is None:
        return {}
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        try:
            return _variables(json_text.loads(raw))
        except (ValueError, RecursionError) as exc:
            raise Refusal(422, str(exc)) from None
    if isinstance(raw, dict):
        return raw
    raise Refusal(422, f"Unexpected parameter: {json.dumps(raw) if not isinstance(raw, str) else raw}")


def _operation(params: dict[str, Any]) -> dict[str, Any]:
    query = params.get("query")
    if isinstance(query, (int, float)) and not isinstance(query, bool):
        query = str(query)
    name = params.get("operationName")
    return {"query": query if isinstance(query, str) else "",
            "variables": _variables(params.get("variables")),
            "operationName": name if isinstance(name, str) and name else None}


async def _request_operations(request: Request) -> list[dict[str, Any]]:
    """The operations asked for; `request.state.graphql_batch` tells whether they came as a batch."""
    params: dict[str, Any] = dict(request.query_params)
    params.pop("private_token", None)
    if request.method == "POST":
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type == "application/json":
            raw = await request.body()
            try:
                body = json_text.loads(raw) if raw.strip() else {}
            except (ValueError, RecursionError):
                raise Refusal(400, "Invalid JSON in the request body") from None
            if isinstance(body, list):
                request.state.graphql_batch = True
                return [_operation(item if isinstance(item, dict) else {}) for item in body]
            if isinstance(body, dict):
                params.update(body)
        elif content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.form()
            params.update({key: value for key, value in form.items() if isinstance(value, str)})
    return [_operation(params)]


# --- execution ------------------------------------------------------------------------------------


def _selected(document: DocumentNode, name: str | None) -> OperationDefinitionNode | None:
    operations = [definition for definition in document.definitions if isinstance(definition, OperationDefinitionNode)]
    if name is None:
        return operations[0] if len(operations) == 1 else None
    return next((op for op in operations if op.name is not None and op.name.value == name), None)


def _parse(operation: dict[str, Any]) -> DocumentNode | dict[str, Any]:
    """The document, or the response for a query that does not parse."""
    try:
        return parse(operation["query"])
    except GraphQLError as error:
        return {"errors": [dict(error.formatted)]}
    except RecursionError:
        return {"errors": [{"message": "Query is nested too deeply to be parsed"}]}


def _execute(operation: dict[str, Any], document: DocumentNode | dict[str, Any], context: GraphContext,
             limits: Limits) -> dict[str, Any]:
    if not operation["query"].strip():
        return {"errors": [{"message": "No query string was present"}]}
    if isinstance(document, dict):
        return document
    rule = limits_rule(limits, operation["operationName"], operation["variables"])
    try:
        _success, result = graphql_sync(executable_schema(), operation, query_document=document,
                                        context_value=context, validation_rules=[rule],
                                        query_validator=_validator, error_formatter=_format_error,
                                        logger=_ariadne_log)
    except RecursionError:
        return {"errors": [{"message": f"Query has depth of more than {limits.max_depth}, "
                                       f"which exceeds max depth of {limits.max_depth}"}]}
    if result.get("data") is None and not any("path" in error for error in result.get("errors", ())):
        # Failed before execution began (variables): the spec and graphql-ruby leave `data` out.
        result.pop("data", None)
    return result


def _caller(request: Request, session: Session) -> User | None:
    try:
        token = resolve_token(request, session, extract_token(request))
    except TokenRefused as refused:
        if refused.user_inactive:
            raise Refusal(403, "API not accessible for user") from None
        raise Refusal(401, "Invalid token") from None
    if token is None:
        return None
    if not QUERY_SCOPES & set(token.scopes):
        raise Refusal(401, "Invalid token")
    admit(request, token)
    return token.user


@router.get(PATH, include_in_schema=False)
@router.post(PATH, include_in_schema=False)
async def graphql_endpoint(request: Request, session: SessionDep) -> JSONResponse:
    try:
        operations: list[dict[str, Any]] | Refusal = await _request_operations(request)
    except Refusal as refusal:
        operations = refusal  # answered after authentication, which comes first on GitLab
    # Resolvers use the database and the external Sentry synchronously: keep them off the event loop.
    return await run_in_threadpool(_respond, request, session, operations)


def _respond(request: Request, session: Session, operations: list[dict[str, Any]] | Refusal) -> JSONResponse:
    batch = getattr(request.state, "graphql_batch", False)
    try:
        user = _caller(request, session)
        if isinstance(operations, Refusal):
            raise operations
        if sum(len(operation["query"]) for operation in operations) > MAX_QUERY_SIZE:
            raise Refusal(422, "Query too large")
        documents = [_parse(operation) for operation in operations]
        if request.method == "GET" and any(_is_mutation(operation, document)
                                           for operation, document in zip(operations, documents, strict=True)):
            raise Refusal(422, f"Mutations are forbidden in {request.method} requests")
    except Refusal as refusal:
        return refusal.response()
    services = services_of(request.app)
    context = GraphContext(session=session, user=user, base_url=public_base_url(request),
                           secret_key=services.secret_key,
                           external_timeout=services.config.error_tracking_external_timeout)
    results = []
    for operation, document in zip(operations, documents, strict=True):
        limits = limits_for(signed_in=user is not None, admin=bool(user and user.is_admin),
                            operation_name=operation["operationName"])
        try:
            results.append(_execute(operation, document, context, limits))
        except ResolverFailure:
            log.exception("GraphQL resolver failed in request %s", getattr(request.state, "request_id", "-"))
            return JSONResponse({"errors": [{"message": "Internal server error"}]}, status_code=500)
    return JSONResponse(results if batch else results[0])


def _is_mutation(operation: dict[str, Any], document: DocumentNode | dict[str, Any]) -> bool:
    if not isinstance(document, DocumentNode):
        return False
    selected = _selected(document, operation["operationName"])
    return selected is not None and selected.operation is OperationType.MUTATION
