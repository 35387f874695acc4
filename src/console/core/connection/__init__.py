"""Connecting without Qt: the connection check, stored tokens, the data folder's lock, the local server."""
