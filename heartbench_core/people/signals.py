"""Signals the apps above the core listen to, so the core never imports them (heartbench_core ← annotation)."""

from django.dispatch import Signal

# Sent inside the transaction that changed a user's roles; kwargs: user, granted (set of Role), removed (set of Role), by.
roles_changed = Signal()

# Sent inside the transaction that deactivated a user; kwargs: user, by. Receivers release what the user held.
user_deactivated = Signal()
