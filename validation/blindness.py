"""Blindness in the validation app's staff views: campaign-aware helpers over heartbench_core.blindness.

A campaign on the dataset of an open campaign the user is an expert of is refused whole (never
filtered response by response: the hole would name what their campaign sampled). What is shown
with other raters' judgments or the judge's verdict is recorded as a staff exposure.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeVar

from django.utils.translation import gettext_lazy as _

from annotation.models import Campaign, CampaignResponse
from heartbench_core.blindness import blind_scope, record_exposures, refuse_campaign

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser

    from heartbench_core.models import User

    AnyUser = User | AnonymousUser

__all__ = [
    "CLOSED_ALIGNMENT",
    "hidden_entry_ids",
    "record_entry_exposures",
    "refuse_campaign",
    "refuse_reports",
    "visible_entries",
]

CLOSED_ALIGNMENT = _(
    "You are an expert in an open campaign on this dataset; its judge–expert alignment is closed to you until that campaign closes."
)

RowT = TypeVar("RowT")


def refuse_reports(user: AnyUser, campaign: Campaign) -> None:
    """Agreement reports break agreement down by criterion and model: closed while they count responses the user judges blind."""
    refuse_campaign(user, campaign.pk)


def hidden_entry_ids(user: AnyUser, campaign: Campaign) -> set[int]:
    """Ids of the campaign's entries (CampaignResponse) whose response the user must not see through staff views."""
    if not blind_scope(user).hides_campaign(campaign.pk):
        return set()
    return set(CampaignResponse.objects.filter(campaign=campaign).values_list("pk", flat=True))


def visible_entries(user: AnyUser, campaign: Campaign, rows: list[RowT], attribute: str = "campaign_response_id") -> list[RowT]:
    """`rows` (queue entries, labels…) without those of hidden entries."""
    hidden = hidden_entry_ids(user, campaign)
    if not hidden:
        return rows
    return [r for r in rows if getattr(r, attribute) not in hidden]


def record_entry_exposures(*, user: AnyUser, entry_ids: Iterable[int], via: str) -> int:
    """Record exposures for campaign entries (their model responses)."""
    ids = set(entry_ids)
    if not ids:
        return 0
    response_ids = CampaignResponse.objects.filter(pk__in=ids).values_list("response_id", flat=True)
    return record_exposures(user=user, response_ids=list(response_ids), via=via)


MODEL_PLACEHOLDER = _("[model]")


def without_model_names(texts: dict[int, str]) -> dict[int, str]:
    """The texts with every model name replaced (one query): adjudication shows the judge's reason, never which model it judged.

    An imported judge's reason may name the model it judged ("… 对 model-x 的回答 …").
    """
    if not any(texts.values()):
        return texts
    import re

    from heartbench_core.models import LanguageModel

    names = sorted(LanguageModel.objects.values_list("name", flat=True), key=len, reverse=True)
    if not names:
        return texts
    pattern = re.compile("|".join(re.escape(n) for n in names), re.IGNORECASE)
    placeholder = str(MODEL_PLACEHOLDER)
    return {k: pattern.sub(placeholder, v) for k, v in texts.items()}
