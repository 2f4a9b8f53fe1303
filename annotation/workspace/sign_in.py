"""Text posted to the judging page after the session ended: into the draft when the expert signs in, else shown again.

`heartbench_core.signed_out` keeps a plain form's draft or submission posted while signed out
(the session of the anonymous visitor survives the sign-in) and hands it here at sign-in. It goes
into the draft of that assignment only if the assignment belongs to the user who signed in (any
other user's sign-in drops it unread), based on the version the page showed, as any save. When it
cannot be saved (the draft changed meanwhile, the reservation lapsed), it is held in the session
and the judging page shows it once, in the form, with the reason: nothing typed is lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, QueryDict
from django.utils.translation import gettext as _

from annotation.models import Assignment
from annotation.services import workspace as services
from annotation.workspace import forms
from heartbench_core.models import User

# Session key of the text that could not go into the draft at sign-in: {public_id: {"fields", "reason"}}.
HELD_KEY = "hb-held-draft-text"


@dataclass(frozen=True)
class HeldText:
    """Text sent while signed out that is not in the draft: the entries to show in the form, and why."""

    entries: list[services.DraftEntry]
    reason: str


def restore_posted_draft(request: HttpRequest, user: User, kwargs: dict[str, Any], fields: QueryDict) -> None:
    """Save into the draft what was posted to the judging page while signed out, if the assignment is this user's."""
    public_id = str(kwargs.get("public_id", ""))
    assignment = Assignment.objects.filter(public_id=public_id, expert_id=user.pk).only("pk", "public_id", "status", "expert_id").first()
    if assignment is None:
        return  # not theirs, or gone: dropped with the rest of the stash
    try:
        services.save_draft(
            assignment=assignment,
            expert=user,
            entries=forms.draft_entries(fields),
            active_seconds=forms.active_seconds(fields),
            cursor=forms.cursor(fields),
            based_on=forms.based_on(fields),
        )
    except services.DraftConflict:
        _hold(
            request,
            public_id,
            fields,
            _("The draft was changed elsewhere while you were signed out. The text you sent is below, not saved yet: save it to keep it."),
        )
    except (ValidationError, PermissionDenied) as exc:
        reason = " ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)
        _hold(request, public_id, fields, _("The text you sent while signed out is below, not saved: %(reason)s") % {"reason": reason})
    else:
        messages.success(request, _("The text you sent after your session ended is saved in your draft."), fail_silently=True)


def take_held(request: HttpRequest, public_id: str) -> HeldText | None:
    """The held text of this assignment, once (it is then in the page's form); None when there is none."""
    held = request.session.get(HELD_KEY)
    if not isinstance(held, dict) or public_id not in held:
        return None
    entry = held.pop(public_id)
    request.session[HELD_KEY] = held
    fields = QueryDict(mutable=True)
    for key, values in (entry.get("fields") or {}).items():
        # NUL cannot be stored (nor was it): the rest of the text is shown.
        fields.setlist(key, [str(v).replace("\x00", "") for v in values])
    return HeldText(entries=forms.draft_entries(fields), reason=str(entry.get("reason", "")))


def _hold(request: HttpRequest, public_id: str, fields: QueryDict, reason: str) -> None:
    held = request.session.get(HELD_KEY)
    held = dict(held) if isinstance(held, dict) else {}
    held[public_id] = {"fields": {key: fields.getlist(key) for key in fields}, "reason": reason}
    request.session[HELD_KEY] = held
