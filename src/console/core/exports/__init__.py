"""Vulnerability exports without Qt: the options, the history file, what a watched export's state means."""
