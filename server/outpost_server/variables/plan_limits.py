"""GitLab's plan limits, kept in the application settings (one JSON object per plan).

Only the `default` plan's `ci_instance_level_variables` is enforced here; the other limits are
stored and returned so that clients written for GitLab read and write the full entity.
"""

from __future__ import annotations

import time

import msgspec
from sqlalchemy.orm import Session

from outpost_model.instance import PlanLimits
from outpost_server.accounts.models import User
from outpost_server.application_settings.store import get_setting, set_setting

DEFAULT_PLAN = "default"
# Plan.all_plans of GitLab's Enterprise Edition.
PLANS = ("default", "free", "bronze", "silver", "premium", "gold", "ultimate", "ultimate_trial",
         "ultimate_trial_paid_customer", "premium_trial", "opensource")

# PlanLimits' fields (but limits_history), with the database defaults of a fresh instance.
# ci_instance_level_variables comes from the server settings instead (see `limits_for`).
DEFAULT_LIMITS: dict[str, int] = {
    "ci_instance_level_variables": 25,
    "ci_pipeline_size": 0,
    "ci_active_jobs": 0,
    "ci_project_subscriptions": 2,
    "ci_pipeline_schedules": 10,
    "ci_needs_size_limit": 50,
    "ci_registered_group_runners": 1000,
    "ci_registered_project_runners": 1000,
    "conan_max_file_size": 3_221_225_472,
    "dotenv_variables": 20,
    "dotenv_size": 5120,
    "enforcement_limit": 0,
    "generic_packages_max_file_size": 5_368_709_120,
    "helm_max_file_size": 5_242_880,
    "maven_max_file_size": 3_221_225_472,
    "notification_limit": 0,
    "npm_max_file_size": 524_288_000,
    "nuget_max_file_size": 524_288_000,
    "pipeline_hierarchy_size": 1000,
    "pypi_max_file_size": 3_221_225_472,
    "terraform_module_max_file_size": 1_073_741_824,
    "storage_size_limit": 0,
    "web_hook_calls": 0,
    "web_hook_calls_low": 0,
    "web_hook_calls_mid": 0,
}
# The limits PUT /application/plan_limits accepts, in the order GitLab declares them.
UPDATABLE_LIMITS = (
    "ci_instance_level_variables", "ci_pipeline_size", "ci_active_jobs", "ci_project_subscriptions",
    "ci_pipeline_schedules", "ci_needs_size_limit", "ci_registered_group_runners", "ci_registered_project_runners",
    "conan_max_file_size", "dotenv_size", "dotenv_variables", "enforcement_limit", "generic_packages_max_file_size",
    "helm_max_file_size", "maven_max_file_size", "notification_limit", "npm_max_file_size", "nuget_max_file_size",
    "pypi_max_file_size", "terraform_module_max_file_size", "storage_size_limit", "pipeline_hierarchy_size",
)
# GitLab keeps a history of changes for these (shown as limits_history).
TRACKED_LIMITS = ("enforcement_limit", "notification_limit", "storage_size_limit")


def _setting_key(plan: str) -> str:
    return f"plan_limits.{plan}"


def limits_for(session: Session, *, plan: str = DEFAULT_PLAN, default_variables_limit: int) -> PlanLimits:
    """The plan's limits: those stored, else the defaults."""
    stored = get_setting(session, _setting_key(plan), {})
    defaults = {**DEFAULT_LIMITS, "ci_instance_level_variables": default_variables_limit, "limits_history": {}}
    return msgspec.convert({name: stored.get(name, default) for name, default in defaults.items()}, PlanLimits)


def update_limits(session: Session, *, plan: str, changes: dict[str, int], user: User) -> None:
    stored = dict(get_setting(session, _setting_key(plan), {}))
    history = {name: list(entries) for name, entries in stored.get("limits_history", {}).items()}
    for name, value in changes.items():
        if name in TRACKED_LIMITS and stored.get(name, DEFAULT_LIMITS[name]) != value:
            history.setdefault(name, []).append(
                {"timestamp": int(time.time()), "user_id": user.id, "username": user.username, "value": value})
        stored[name] = value
    if history:
        stored["limits_history"] = history
    set_setting(session, _setting_key(plan), stored)


def instance_variables_limit(session: Session, *, default_variables_limit: int) -> int:
    """The enforced maximum number of instance variables; 0 means no limit."""
    stored = get_setting(session, _setting_key(DEFAULT_PLAN), {})
    return int(stored.get("ci_instance_level_variables", default_variables_limit))
