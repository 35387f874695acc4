"""The instance's own answers: GitLab's /version (its Metadata entity), the application settings and plan
limits an administrator reads and changes, and Outpost's mail settings and test message."""

from __future__ import annotations

import msgspec

from outpost_model.base import UNSET, Entity, Text, UnsetType


# kw_only again (msgspec does not inherit it), so the optional field keeps GitLab's place before `version`.
class Kas(Entity, kw_only=True):
    """The Kubernetes agent server; Outpost has none, so every field but `enabled` is null."""

    enabled: bool
    externalUrl: Text
    # Since GitLab 17.6: an earlier GitLab leaves it out.
    externalK8sProxyUrl: Text | UnsetType = UNSET
    version: Text


class Version(Entity):
    """GET /version and GET /metadata."""

    version: str
    revision: str
    kas: Kas
    enterprise: bool


class ApplicationSettings(Entity):
    """The settings Outpost implements of GitLab's ApplicationSetting entity (only those are shown)."""

    allow_local_requests_from_web_hooks_and_services: bool
    allow_local_requests_from_system_hooks: bool


class LimitChange(Entity):
    """One entry of a tracked limit's history: who set it to what, and when (a Unix time)."""

    timestamp: int
    user_id: int
    username: str
    value: int


class PlanLimits(Entity):
    """GitLab's PlanLimit entity, in its field order; only ci_instance_level_variables is enforced."""

    ci_instance_level_variables: int
    ci_pipeline_size: int
    ci_active_jobs: int
    ci_project_subscriptions: int
    ci_pipeline_schedules: int
    ci_needs_size_limit: int
    ci_registered_group_runners: int
    ci_registered_project_runners: int
    conan_max_file_size: int
    dotenv_variables: int
    dotenv_size: int
    enforcement_limit: int
    generic_packages_max_file_size: int
    helm_max_file_size: int
    # Limit name -> its changes, for enforcement_limit, notification_limit and storage_size_limit.
    limits_history: dict[str, list[LimitChange]]
    maven_max_file_size: int
    notification_limit: int
    npm_max_file_size: int
    nuget_max_file_size: int
    pipeline_hierarchy_size: int
    pypi_max_file_size: int
    terraform_module_max_file_size: int
    storage_size_limit: int
    web_hook_calls: int
    web_hook_calls_low: int
    web_hook_calls_mid: int


class MailSettings(Entity):
    """Outpost's extension: how outgoing mail is configured, without the credentials (all null when off)."""

    configured: bool
    host: Text
    port: int | None
    # "starttls", "tls" or "none".
    security: Text
    # The sender address: `from` on the wire, which Python cannot spell.
    sender: Text = msgspec.field(name="from")
    authentication: bool


class MailTest(Entity):
    """POST /application/mail/test, answered 201 once the SMTP server took the message."""

    to: str
    delivered: bool
