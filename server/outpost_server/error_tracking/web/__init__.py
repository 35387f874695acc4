"""GitLab's project-scoped error tracking JSON endpoints (`/<project>/-/error_tracking...json`)."""
