"""The error tracking tab: errors of a project, their stack traces, settings and client keys."""

from console.errors.views import ErrorTrackingTab

__all__ = ["ErrorTrackingTab"]
