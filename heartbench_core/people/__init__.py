"""People: admins invite users, change their roles, deactivate and reactivate them (pages, API, command)."""
