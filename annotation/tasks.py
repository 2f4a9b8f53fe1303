"""Background jobs of the annotation app (django-q2): thin wrappers around services."""

from annotation.services.assignment import expire_reservations
from annotation.services.tallies import fold_progress


def expire_reservations_task() -> int:
    """Scheduled every few minutes: reservations past their timeout go back to the pool, and the campaigns' progress moves
    are folded (one row per state)."""
    fold_progress()
    return expire_reservations()


def check_risks_task() -> str:
    """Scheduled every hour: the risk checks run on the judgments that arrived, opening or updating alerts."""
    from annotation.services.risks import check_risks

    run = check_risks()
    return f"{run.opened} opened, {run.updated} updated"


def send_risk_digest_task() -> int:
    """Scheduled daily: e-mail the opted-in admins their digest of open alerts and needs-action counts."""
    from annotation.services.digest import send_risk_digest

    return send_risk_digest()
