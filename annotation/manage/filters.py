"""The filters of the campaign-management lists, one FilterSet each for the page and the API (heartbench_core.filters)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from django.utils.translation import gettext as _
from django_filters import CharFilter

from annotation.models import Assignment, Campaign
from heartbench_core.filters import Choice, ListFilters, Text


class CampaignFilters(ListFilters):
    kind = Choice(Campaign.Kind.values)
    status = Choice(Campaign.Status.values)

    class Meta:
        model = Campaign
        fields: list[str] = []


class AssignmentFilters(ListFilters):
    """The assignments' filters: of one campaign (its id), one expert (their username), one status."""

    campaign = CharFilter(method="of_campaign")
    expert = Text(field_name="expert__username", help_text="username")
    status = Choice(Assignment.Status.values)

    schema_types = {"campaign": int}

    class Meta:
        model = Assignment
        fields: list[str] = []

    def of_campaign(self, qs: QuerySet[Assignment], name: str, value: Any) -> QuerySet[Assignment]:
        if not str(value).isdecimal():
            raise Http404(_("campaign must be an id"))
        return qs.filter(campaign_id=value)
