"""What a service refuses, in the domain's words. Services raise these and know nothing of HTTP; the
REST API answers each with GitLab's status and body through one table (http_errors.from_domain), and
GraphQL or Sentry's web API read them in their own terms.
"""

from __future__ import annotations


class DomainError(Exception):
    """A request the domain refuses; never a fault of the server."""


class NotFound(DomainError):
    """The resource does not exist, or the caller may not know that it does."""

    def __init__(self, resource: str | None = None):
        super().__init__(resource)
        self.resource = resource


class RecordNotFound(DomainError):
    """A record looked up by id is missing (GitLab's answer to ActiveRecord::RecordNotFound)."""


class Forbidden(DomainError):
    """The caller may see the resource but not do this; `reason` says why when GitLab does."""

    def __init__(self, reason: str | None = None):
        super().__init__(reason)
        self.reason = reason


class Refused(DomainError):
    """The action is not possible in the resource's state; `message` is GitLab's whole sentence."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class Conflict(DomainError):
    """The change collides with what exists (a member already added, a sole owner)."""

    def __init__(self, message: str | dict[str, list[str]]):
        super().__init__(message)
        self.message = message


class Invalid(DomainError):
    """The model's validation failed: messages per field, as Rails' errors.messages."""

    def __init__(self, messages: dict[str, list[str]]):
        super().__init__(messages)
        self.messages = messages


class BadRequest(DomainError):
    def __init__(self, reason: str | None = None):
        super().__init__(reason)
        self.reason = reason


class InvalidValue(DomainError):
    """A parameter's value is none of those allowed."""

    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


class Busy(DomainError):
    """The same work is already under way for the caller; try again once it finished."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message
