"""Error tracking without Qt: how errors and alert rules are held, what the settings and events mean."""
