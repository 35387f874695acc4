"""The Overview's figures, gathered without Qt."""
