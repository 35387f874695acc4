"""The error tracking tab: errors of a project, their stack traces, settings and client keys."""

from console.errors.tab import ErrorTrackingTab

__all__ = ["ErrorTrackingTab"]
