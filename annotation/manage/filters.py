"""The filters of the campaign-management lists, one FilterSet each for the page and the API (heartbench_core.filters)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_filters import CharFilter

from annotation.models import AdminAlert, Assignment, CalibrationResult, Campaign
from heartbench_core.filters import Boolean, Choice, ListFilters, Text


class CampaignFilters(ListFilters):
    kind = Choice(choices=Campaign.Kind.choices, label=gettext_lazy("Kind"))
    status = Choice(choices=Campaign.Status.choices, label=gettext_lazy("Status"))

    class Meta:
        model = Campaign
        fields: list[str] = []


class AssignmentFilters(ListFilters):
    """The assignments' filters: of one campaign (its id), one expert (their username), one status."""

    campaign = CharFilter(method="of_campaign", label=gettext_lazy("Campaign"))
    expert = Text(field_name="expert__username", help_text="username", label=gettext_lazy("Expert"))
    status = Choice(choices=Assignment.Status.choices, label=gettext_lazy("Status"))

    schema_types = {"campaign": int}

    class Meta:
        model = Assignment
        fields: list[str] = []

    def of_campaign(self, qs: QuerySet[Assignment], name: str, value: Any) -> QuerySet[Assignment]:
        if not str(value).isdecimal():
            raise Http404(_("campaign must be an id"))
        return qs.filter(campaign_id=value)


class CalibrationResultFilters(ListFilters):
    """An admin's calibration results of one campaign, by its id or its name (a digit-like name is a name)."""

    campaign = Text(method="of_campaign", help_text="A campaign's id or name (admins).", label=gettext_lazy("Campaign"))

    class Meta:
        model = CalibrationResult
        fields: list[str] = []

    def of_campaign(self, qs: QuerySet[CalibrationResult], name: str, value: Any) -> QuerySet[CalibrationResult]:
        return qs.filter(campaign_id=value) if value.isdecimal() else qs.filter(campaign__name=value)


class AlertFilters(ListFilters):
    """The alerts: open ones unless `all` (resolved ones too)."""

    all = Boolean(method="with_resolved", help_text="1: resolved alerts too.", label=gettext_lazy("Show resolved too"))

    class Meta:
        model = AdminAlert
        fields: list[str] = []

    def with_resolved(self, qs: QuerySet[AdminAlert], name: str, value: Any) -> QuerySet[AdminAlert]:
        return qs if value else qs.filter(resolved_at__isnull=True)

    def narrow(self, qs: QuerySet[AdminAlert]) -> QuerySet[AdminAlert]:  # type: ignore[override]  # the alerts only
        """Open alerts unless `all` is true (a bad value is ignored: open ones)."""
        return super().narrow(qs) if "all" in self.values else self.with_resolved(qs, "all", False)

    @property
    def show_all(self) -> bool:
        return bool(self.values.get("all"))
