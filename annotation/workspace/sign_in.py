"""Text posted to the judging page after the session ended: into the draft when the expert signs in, else shown again.

`heartbench_core.signed_out` keeps a plain form's draft or submission posted while signed out
(the session of the anonymous visitor survives the sign-in) and hands it here at sign-in. It goes
into the draft of that assignment only if the assignment belongs to the user who signed in (any
other user's sign-in drops it unread), based on the version the page showed, as any save. When it
cannot be saved (the draft changed meanwhile, the reservation lapsed), it is held in the session
and the judging page shows it once, in the form, with the reason: nothing typed is lost.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, QueryDict
from django.utils.translation import gettext as _

from annotation.models import Assignment
from annotation.services import workspace as services
from annotation.workspace import forms
from annotation.workspace.held_text import hold
from heartbench_core.models import User


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
        hold(
            request,
            public_id,
            fields,
            _("The draft was changed elsewhere while you were signed out. The text you sent is below, not saved yet: save it to keep it."),
        )
    except (ValidationError, PermissionDenied) as exc:
        reason = " ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)
        hold(request, public_id, fields, _("The text you sent while signed out is below, not saved: %(reason)s") % {"reason": reason})
    else:
        messages.success(request, _("The text you sent after your session ended is saved in your draft."), fail_silently=True)
