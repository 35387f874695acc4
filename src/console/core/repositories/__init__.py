"""The console's typed repositories, one per kind of thing the server holds; no Qt here.

Each owns its reads (``fetch``), knows how old what it holds is (freshness) and tells who listens what changed,
through the one store (console.core.store) so a connection change drops every kind at once.
"""
