"""Forms of the blind workspace; the judging form itself is parsed by `draft_entries`."""

import re
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.http import QueryDict
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from annotation.services.workspace import COMMENT_MAX_CHARS, MAX_CURSOR, DraftEntry, criterion_error_key

_FIELD = re.compile(r"^(rationale|hit)-(\d{1,12})$")


def draft_entries(data: QueryDict) -> list[DraftEntry]:
    """Turn the judging form's `rationale-<criterion>` / `hit-<criterion>` fields into entries.

    `hit-<id>` is "hit", "miss" or empty (not marked). Criteria that are not part of the
    response's rubric are refused by the service, which names them. A rationale holding a NUL
    character (PostgreSQL cannot store one) is a ValidationError under that criterion's key.
    """
    found: dict[int, dict[str, Any]] = {}
    refused: dict[str, list[str]] = {}
    for key in data:
        match = _FIELD.match(key)
        if not match:
            continue
        kind, cid = match.group(1), int(match.group(2))
        value = data.get(key, "")
        row = found.setdefault(cid, {})
        if kind == "rationale":
            if "\x00" in value:
                refused[criterion_error_key(cid)] = [_("This rationale contains a NUL character, which cannot be stored: remove it.")]
            row["rationale"] = value
        else:
            row["hit"] = {"hit": True, "miss": False}.get(value)
    if refused:
        raise ValidationError(refused)
    return [DraftEntry(criterion_id=cid, rationale=row.get("rationale", ""), hit=row.get("hit")) for cid, row in sorted(found.items())]


def active_seconds(data: QueryDict) -> int:
    """The `active_seconds` a page reports (0 when absent or malformed)."""
    try:
        return max(0, int(data.get("active_seconds") or 0))
    except (TypeError, ValueError):
        return 0


def cursor(data: QueryDict) -> int | None:
    """The `cursor` a page reports: the position (from 1) of the criterion the expert is on; None when absent or malformed."""
    value = data.get("cursor") or ""
    return int(value) if value.isdecimal() and 1 <= int(value) <= MAX_CURSOR else None


def based_on(data: QueryDict) -> int:
    """The draft `version` the judging form was based on; a form without one is refused (it is older than versions)."""
    value = data.get("version") or ""
    if not value.isdecimal() or len(value) > 9:
        raise ValidationError({"version": [_("This page does not say which version of the draft it shows: reload it.")]})
    return int(value)


class CommentForm(forms.Form):
    comment = forms.CharField(max_length=COMMENT_MAX_CHARS, widget=forms.Textarea(attrs={"rows": 2}))


class CorrectionReasonForm(forms.Form):
    reason = forms.CharField(
        max_length=COMMENT_MAX_CHARS,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("Why the submitted judgments should change. An admin accepts or refuses; both versions are kept."),
    )


class DiscussionCommentForm(forms.Form):
    body = forms.CharField(label=gettext_lazy("Comment"), max_length=COMMENT_MAX_CHARS, widget=forms.Textarea(attrs={"rows": 3}))
    criterion = forms.IntegerField(required=False, widget=forms.HiddenInput)


class DiscussionVoteForm(forms.Form):
    criterion = forms.IntegerField()
    stance = forms.ChoiceField(choices=[("hit", pgettext_lazy("verdict", "Hit")), ("miss", pgettext_lazy("verdict", "Miss"))])


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(
        choices=[
            ("accept", pgettext_lazy("verb: accept a correction request", "Accept")),
            ("refuse", pgettext_lazy("verb: refuse a correction request", "Refuse")),
        ]
    )
    note = forms.CharField(required=False, max_length=COMMENT_MAX_CHARS, widget=forms.Textarea(attrs={"rows": 2}))
