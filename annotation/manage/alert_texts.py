"""An admin alert in the reader's language, from its kind and the figures stored with it.

Apart from the alerts' reads (`needs_action_selectors`): the text is what a page and the API
show of a row they already read, and writing it reads nothing.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from annotation.models import AdminAlert
from annotation.quality_text import gold_pause_text, pause_reason_text


def _pct(value: object) -> str:
    return f"{float(value):.0%}" if isinstance(value, int | float) else _("undefined")


def alert_text(alert: AdminAlert) -> str:
    """The alert in the reader's language, from its kind and figures; the stored English message when they are missing."""
    d = alert.details or {}
    try:
        if alert.kind == AdminAlert.Kind.GOLD_ACCURACY:
            if not d:  # raised before the alert kept its figures: its message has the one form the platform writes
                return pause_reason_text(alert.message)
            return gold_pause_text(
                expert=d["username"],
                checks=d["checks"],
                value=_pct(d["value"]),
                agreed=d["agreed"],
                compared=d["compared"],
                threshold=_pct(d["threshold"]),
            )
        if alert.kind == AdminAlert.Kind.CALIBRATION_FAILED:
            return _(
                "%(expert)s scored %(value)s on calibration %(campaign)s (%(agreed)s of %(compared)s criteria agreed with gold; "
                "pass mark %(threshold)s; attempt %(attempt)s of %(max_attempts)s)."
            ) % {**d, "expert": d["username"], "value": _pct(d["value"]), "threshold": _pct(d["threshold"])}
        if alert.kind == AdminAlert.Kind.EXPERT_DRIFT:
            return _(
                "%(expert)s is drifting from gold: %(value)s on the last %(checks)s gold checks (%(agreed)s of %(compared)s criteria), "
                "down from %(previous)s on the %(previous_checks)s before (%(previous_agreed)s of %(previous_compared)s)."
            ) % {**d, "expert": d["username"], "value": _pct(d["value"]), "previous": _pct(d["previous"])}
        if alert.kind == AdminAlert.Kind.CRITERION_LOW_ALPHA and d.get("signal") == "split":
            return _(
                "Experts of %(campaign)s split on criterion %(position)s of %(question)s: on %(split)s of %(units)s responses "
                "(%(ratings)s ratings), against %(others)s of the other criteria's %(others_units)s (p = %(p).3f)."
            ) % {**d, "question": d["question_id"], "others": _pct(d["others_rate"]), "p": float(d["p_value"])}
        if alert.kind == AdminAlert.Kind.CRITERION_LOW_ALPHA:  # alerts raised before the split signal
            return _(
                "Experts of %(campaign)s agree little on criterion %(position)s of %(question)s: Krippendorff's alpha %(value).2f "
                "over %(units)s responses (%(ratings)s ratings), below %(threshold).2f."
            ) % {**d, "question": d["question_id"], "value": float(d["value"]), "threshold": float(d["threshold"])}
        if alert.kind == AdminAlert.Kind.JUDGE_DISAGREES_ON_MODEL:
            return _(
                "On %(model)s in %(campaign)s, the judge matches the experts' majority on %(value)s of %(units)s criteria judged, "
                "below %(threshold)s (%(without)s more had no majority yet)."
            ) % {**d, "value": _pct(d["value"]), "threshold": _pct(d["threshold"]), "without": d.get("without_majority", 0)}
    except (KeyError, TypeError, ValueError):
        pass
    return alert.message
