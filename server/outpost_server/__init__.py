"""Outpost server: GitLab's REST API for CI/CD variables, vulnerability exports and error tracking."""

__version__ = "0.1.0"
