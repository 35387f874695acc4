"""Instance-wide application settings: stored in the database (shared by every replica) and changed by
administrators through `GET/PUT /application/settings`."""
