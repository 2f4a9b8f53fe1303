"""The release gate of each dataset version, as a section of the admins' "needs action" home."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.urls import reverse
from django.utils.translation import gettext as _

from annotation.manage.needs_action_selectors import ExtraSection, SectionRow, register_needs_action_section
from annotation.models import Campaign
from heartbench_core.models import DatasetVersion, User
from heartbench_core.stat_reasons import reason_text
from validation.blindness import refuse_reports
from validation.selectors import latest_release_gate


def release_gate_section(user: User) -> ExtraSection:
    """Per dataset version a blind test judges: its latest release decision (a failed one needs action), or none yet."""
    versions = DatasetVersion.objects.filter(campaigns__kind=Campaign.Kind.BLIND_TEST).select_related("dataset").distinct()
    rows = []
    for version in versions.order_by("dataset__name", "number"):
        label = f"{version.dataset.name}@{version.label}"
        url = reverse("validation:version-gate", args=[version.pk])
        gate = latest_release_gate(version, with_counts=False)  # the section shows the decision, not the report's counts
        if gate is None:
            rows.append(SectionRow(label, _("no release decision yet"), _("no official agreement report on this version"), url))
            continue
        try:  # the decision summarises a report: closed while that report counts responses the viewer judges blind
            refuse_reports(user, gate.campaign)
        except PermissionDenied as exc:
            rows.append(SectionRow(label, _("withheld"), str(exc), url))
            continue
        if gate.passed:
            rows.append(SectionRow(label, _("passed"), "", url))
        else:
            reasons = (
                "; ".join(reason_text(str(r)) for r in gate.reasons) if isinstance(gate.reasons, list) else reason_text(str(gate.reasons))
            )
            rows.append(SectionRow(label, _("failed"), reasons, url, needs_action=True))
    return ExtraSection("release_gates", _("Release gate per dataset version"), rows, _("No blind test judges a dataset version yet."))


def register() -> None:
    """Called from ValidationConfig.ready."""
    register_needs_action_section("release_gates", release_gate_section)
