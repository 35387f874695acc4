"""GitLab's HTTP error responses: `ApiError` (status, body, headers) and one constructor per body.

Bodies follow GitLab's helpers exactly: `{"message": ...}` from render_api_error!, and
`{"error": ...}` for Grape's parameter validation and the unknown-route catch-all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from outpost_server import domain_errors as domain


class ApiError(Exception):
    def __init__(self, status: int, body: Any, headers: dict[str, str] | None = None):
        super().__init__(status, body)
        self.status = status
        self.body = body
        self.headers = headers or {}


def _message(status: int, text: str, reason: str | None = None) -> ApiError:
    message = f"{status} {text}" if reason is None else f"{status} {text} - {reason}"
    return ApiError(status, {"message": message})


def unauthorized() -> ApiError:
    return _message(401, "Unauthorized")


def forbidden(reason: str | None = None) -> ApiError:
    return _message(403, "Forbidden", reason)


def bad_request(reason: str | None = None) -> ApiError:
    return _message(400, "Bad request", reason)


def not_found(resource: str | None = None) -> ApiError:
    text = "Not Found" if resource is None else f"{resource} Not Found"
    return _message(404, text)


def record_not_found() -> ApiError:
    """What GitLab answers when Model.find(id) fails (note the lower-case "found")."""
    return ApiError(404, {"message": "404 Not found"})


def conflict() -> ApiError:
    return _message(409, "Conflict")


def too_many_requests(retry_after: int) -> ApiError:
    return ApiError(429, {"message": "429 Too Many Requests"}, {"Retry-After": str(retry_after)})


def validation_error(messages: dict[str, list[str]]) -> ApiError:
    return ApiError(400, {"message": messages})


def missing_params(*names: str) -> ApiError:
    return ApiError(400, {"error": ", ".join(f"{name} is missing" for name in names)})


def invalid_param(name: str) -> ApiError:
    return ApiError(400, {"error": f"{name} is invalid"})


def empty_param(name: str) -> ApiError:
    return ApiError(400, {"error": f"{name} is empty"})


def invalid_value(name: str) -> ApiError:
    return ApiError(400, {"error": f"{name} does not have a valid value"})


def route_not_found() -> ApiError:
    return ApiError(404, {"error": "404 Not Found"})


# One table from what a service refuses to GitLab's answer.
_DOMAIN_ANSWERS: dict[type[domain.DomainError], Callable[[Any], ApiError]] = {
    domain.NotFound: lambda error: not_found(error.resource),
    domain.RecordNotFound: lambda _error: record_not_found(),
    domain.Forbidden: lambda error: forbidden(error.reason),
    domain.Refused: lambda error: ApiError(403, {"message": error.message}),
    domain.Conflict: lambda error: ApiError(409, {"message": error.message}),
    domain.Invalid: lambda error: validation_error(error.messages),
    domain.BadRequest: lambda error: bad_request(error.reason),
    domain.InvalidValue: lambda error: invalid_value(error.name),
    domain.Busy: lambda error: ApiError(429, {"message": error.message}),
}


def from_domain(error: domain.DomainError) -> ApiError:
    """GitLab's status and body for a service's refusal."""
    return _DOMAIN_ANSWERS[type(error)](error)
