"""Text an expert sent while signed out that could not go into the draft: held in the session, shown once in the form.

`annotation.workspace.sign_in` holds it at sign-in when it cannot be saved (the draft changed
meanwhile, the reservation lapsed); the judging page takes it once, with the reason. Nothing here
reads the database: the session is all it touches.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest, QueryDict

from annotation.services import workspace as services
from annotation.workspace import forms

# Session key of the text that could not go into the draft at sign-in: {public_id: {"fields", "reason"}}.
HELD_KEY = "hb-held-draft-text"


@dataclass(frozen=True)
class HeldText:
    """Text sent while signed out that is not in the draft: the entries to show in the form, and why."""

    entries: list[services.DraftEntry]
    reason: str


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


def hold(request: HttpRequest, public_id: str, fields: QueryDict, reason: str) -> None:
    held = request.session.get(HELD_KEY)
    held = dict(held) if isinstance(held, dict) else {}
    held[public_id] = {"fields": {key: fields.getlist(key) for key in fields}, "reason": reason}
    request.session[HELD_KEY] = held
