"""GitLab's error tracking settings, client keys and retention; error_tracking/router.py mounts them."""
