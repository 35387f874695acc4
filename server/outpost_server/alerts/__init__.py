"""Alerts: rules per project evaluated as batches are stored, an outbox written in the same transaction,
and a sender worker delivering it by email, webhooks, Slack/Mattermost, Discord and GitLab's alert endpoint."""
