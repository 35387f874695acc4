"""Instance-level CI/CD variables (GitLab's admin API) and the plan limits that cap their number."""
