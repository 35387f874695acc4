"""Outpost console: a desktop administration console for GitLab-compatible servers."""

from console.singleton_refcounts import protect_singletons

__version__ = "0.1.0"

# Before any Qt call: see console.singleton_refcounts for the PySide6 bug this works around.
protect_singletons()
