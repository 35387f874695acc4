"""Connecting to a server: profiles, stored tokens, the connection dialog and the local server."""
