"""Compatibility helpers: how Rails, Ruby and GitLab render text and times, reproduced byte for byte.

The bottom floor of the server: these modules import nothing from outpost_server, so any domain may
use them without depending on another domain.
"""
