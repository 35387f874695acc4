"""Outpost console: a desktop administration console for GitLab-compatible servers."""

from console.none_refcount import protect_none

__version__ = "0.1.0"

# Before any Qt call: see console.none_refcount for the PySide6 bug this works around.
protect_none()
