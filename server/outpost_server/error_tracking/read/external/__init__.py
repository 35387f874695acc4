"""The external error tracking backend: a Sentry-compatible system read through its web API."""
