"""GlitchTip's project alerts (rules.py, under /api/0) and the instance mail settings (mail.py, under /api/v4)."""
