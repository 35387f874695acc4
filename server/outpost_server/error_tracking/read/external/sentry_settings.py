"""The external backend's part of a project's error tracking setting: API URL, encrypted token, names.

`apply_external_params` is what the settings API (`PATCH/PUT /projects/:id/error_tracking/settings`)
calls to accept `api_url` (or `api_host` + `organization_slug` + `project_slug`, or
`sentry_external_url`), `token`, `project_name` and `organization_name`, with GitLab's validations.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlsplit

import httpx
from sqlalchemy.orm import Session

from outpost_server import domain_errors as domain
from outpost_server.compat.rails_text import humanize, titleize
from outpost_server.error_tracking.models import ErrorTrackingSetting
from outpost_server.error_tracking.read.external.client import SentryClient, SentryError
from outpost_server.outbound.url_policy import (
    BlockedUrl,
    IPAddress,
    Resolver,
    check_url,
    local_requests_allowed,
    pin_url,
    system_resolver,
)
from outpost_server.params import Param, Params
from outpost_server.security import SecretBox

API_PATH = re.compile(r"\A(?P<prefix>/api/0/projects/+)(?:(?P<organization>[^/]+)/+(?P<project>[^/]+)/*)?\Z")
MAX_API_URL = 255
# What apply_external_params reads: the address in one of three forms, the token and the display names.
EXTERNAL_SENTRY_PARAMS = (Param("api_url"), Param("api_host"), Param("organization_slug"), Param("project_slug"),
                          Param("sentry_external_url"), Param("token"), Param("project_name"),
                          Param("organization_name"))


def build_api_url_from(*, api_host: str, organization_slug: str, project_slug: str) -> str:
    parts = urlsplit(api_host.strip())
    path = re.sub(r"/{2,}", "/", f"{parts.path}/api/0/projects/{organization_slug}/{project_slug}/")
    return f"{parts.scheme}://{parts.netloc}{path}"


def api_url_from_external_url(external_url: str) -> str:
    """`https://HOST/ORG/PROJ` (the web address) -> `https://HOST/api/0/projects/ORG/PROJ/`."""
    parts = urlsplit(external_url.strip())
    slugs = [segment for segment in parts.path.split("/") if segment]
    if len(slugs) < 2:
        return external_url
    return build_api_url_from(api_host=f"{parts.scheme}://{parts.netloc}", organization_slug=slugs[-2],
                              project_slug=slugs[-1])


def slugs_of(api_url: str | None) -> tuple[str | None, str | None]:
    if not api_url:
        return None, None
    match = API_PATH.match(urlsplit(api_url).path)
    if not match:
        return None, None
    return match.group("organization"), match.group("project")


def validation_messages(session: Session, *, api_url: str | None, token: str | None) -> dict[str, list[str]]:
    """GitLab's validations of an enabled external setting, as attribute -> messages."""
    messages: dict[str, list[str]] = {}
    if not api_url:
        messages["api_url"] = ["is a required field"]
    else:
        if len(api_url) > MAX_API_URL:
            messages.setdefault("api_url", []).append("is too long (maximum is 255 characters)")
        try:
            check_url(api_url, allow_local=local_requests_allowed(session))
        except BlockedUrl as exc:
            messages.setdefault("api_url", []).append(f"is blocked: {exc}")
        else:
            match = API_PATH.match(urlsplit(api_url).path)
            if not match:
                messages.setdefault("api_url", []).append("is invalid")
            elif not match.group("organization"):
                messages["project"] = ["is a required field"]
    if not token:
        messages["token"] = ["is a required field"]
    return messages


def full_messages(messages: dict[str, list[str]]) -> str:
    """Rails' full_messages joined with ", " (`Api url is a required field`)."""
    parts: list[str] = []
    for attribute, texts in messages.items():
        parts.extend(f"{humanize(attribute)} {text}" for text in texts)
    return ", ".join(parts)


def stored_token(setting: ErrorTrackingSetting, secret_key: str) -> str | None:
    if not setting.encrypted_token:
        return None
    return SecretBox(secret_key).decrypt(setting.encrypted_token)


def apply_external_params(session: Session, setting: ErrorTrackingSetting, params: Params, *,
                          secret_key: str) -> None:
    """Updates the external-backend fields from the request; 400 with GitLab's messages when invalid."""
    api_url = setting.api_url
    if "api_url" in params:
        api_url = params.str("api_url") or None
    elif api_host := params.str("api_host"):
        params.require("organization_slug", "project_slug")
        api_url = build_api_url_from(api_host=api_host, organization_slug=params.str("organization_slug", ""),
                                     project_slug=params.str("project_slug", ""))
    elif sentry_external_url := params.str("sentry_external_url"):
        api_url = api_url_from_external_url(sentry_external_url)
    token = params.str("token")
    if token is not None and token and set(token) == {"*"}:
        token = None  # the masked value the UI shows stands for the stored token
    if api_url != setting.api_url:
        setting.api_url = api_url
        setting.encrypted_token = None  # GitLab resets the token when the URL changes
        setting.project_name = None
        setting.organization_name = None
    if token:
        setting.encrypted_token = SecretBox(secret_key).encrypt(token)
    for name in ("project_name", "organization_name"):
        if name in params:
            setattr(setting, name, params.str(name) or None)
    organization, project = slugs_of(setting.api_url)
    if setting.project_name is None and project:
        setting.project_name = titleize(project)
    if setting.organization_name is None and organization:
        setting.organization_name = titleize(organization)
    if setting.enabled and not setting.integrated:
        messages = validation_messages(session, api_url=setting.api_url,
                                       token=stored_token(setting, secret_key))
        if messages:
            raise domain.Invalid(messages)


def sentry_client_for(session: Session, *, api_url: str, token: str, timeout: float,
                      resolve: Resolver = system_resolver) -> SentryClient:
    """A client whose every request is vetted against the local-network policy and pinned to the vetted address."""
    allow_local = local_requests_allowed(session)
    return SentryClient(api_url, token, pin=address_pin(allow_local=allow_local, resolve=resolve),
                        timeout=httpx.Timeout(timeout))


def address_pin(*, allow_local: bool, resolve: Resolver = system_resolver) -> Callable[[str], IPAddress]:
    """The client's `pin`: resolve once, check, and name the address; refusals become GitLab's message."""

    def pin(url: str) -> IPAddress:
        try:
            return pin_url(url, allow_local=allow_local, resolve=resolve)
        except BlockedUrl as exc:
            raise SentryError(f"Url is blocked: {exc}") from None

    return pin
