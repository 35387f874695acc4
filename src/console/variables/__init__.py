"""The CI/CD variables tab: table, add/edit dialogs, import and export."""
