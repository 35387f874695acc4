"""Sentry's source map endpoints, one module per resource; source_maps/router.py mounts them."""
