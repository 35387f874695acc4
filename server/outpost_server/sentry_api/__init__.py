"""Sentry's web API (`/api/0/`) over the integrated error tracking backend, in Sentry's own shapes."""
