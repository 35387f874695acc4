"""Cron monitors: check-ins from the collector, monitor state, the clock marking misses, Sentry's monitors API."""
