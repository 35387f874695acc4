"""Outpost console: a desktop administration console for GitLab-compatible servers."""

__version__ = "0.1.0"
