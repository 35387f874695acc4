"""CI/CD variables without Qt: how they are held, their rules, bulk changes."""
