"""The first tab: what needs attention on the connected server."""
