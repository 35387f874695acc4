"""What an administrator runs beside the server: `backup`, `restore` and `check`."""
