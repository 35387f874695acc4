"""Sentry's web API, one module per resource; sentry_api/router.py mounts them."""
