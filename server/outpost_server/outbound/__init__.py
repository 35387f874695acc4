"""The server's outbound HTTP: one transport (transport.py) and one URL policy (url_policy.py) for every
request the server sends (an external Sentry's web API, alerts' webhooks and chat messages)."""
