"""The accounts REST endpoints, one module per resource; accounts/router.py joins them."""
