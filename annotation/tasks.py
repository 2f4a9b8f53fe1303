"""Background jobs of the annotation app (django-q2): thin wrappers around services."""

from annotation.services.assignment import expire_reservations


def expire_reservations_task() -> int:
    """Scheduled every few minutes: reservations past their timeout go back to the pool."""
    return expire_reservations()
