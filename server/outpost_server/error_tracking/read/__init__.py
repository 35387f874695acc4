"""Reading what the digest stored: errors, their events, release health, GitLab's project-scoped JSON
endpoints, the search box, and an external Sentry read through its web API (external/)."""
