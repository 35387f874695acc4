"""Typed asynchronous client for the GitLab-compatible REST API (no Qt needed). The package imports none of its
modules, so loading one (server.py, say) does not load httpx, which errors.py and the client import."""
