"""The console without Qt: the API client, the store and how each kind is held in it, what was said, the
operation protocol, and the plain logic of each tab (what a setting allows, what an export's state means).

Nothing here imports Qt or a view, not even inside a function (the contracts in pyproject.toml, run by
lint-imports); the views, outside this package, render what it holds.
"""
