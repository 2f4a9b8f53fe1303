"""The admins' needs-action home shows the release decision of each dataset version a blind test judges; a failed one needs action."""

import pytest
from django.urls import reverse

from tests.validation.builders import blind_test
from validation.needs_action import release_gate_section
from validation.services.agreement_reports import create_agreement_report
from validation.services.release import change_release_policy

pytestmark = pytest.mark.django_db


def test_a_version_without_an_official_report_has_no_decision_yet(cast):
    blind_test(cast)
    section = release_gate_section(cast.admin)
    assert [(r.label, r.status, r.needs_action) for r in section.rows] == [("demo@v1", "no release decision yet", False)]
    assert section.count == 0


def test_a_failed_gate_counts_and_names_its_reason(cast, client_for):
    campaign = blind_test(cast)
    change_release_policy(
        dataset=campaign.version.dataset,
        admin=cast.admin,
        reason="strict",
        threshold=0.99,
        min_pairs_per_dimension=0,
        min_pairs_per_ability=0,
    )
    create_agreement_report(campaign=campaign)
    section = release_gate_section(cast.admin)
    [row] = section.rows
    assert row.status == "failed" and row.needs_action and "below the threshold 0.99" in row.detail and section.count == 1
    assert row.url == reverse("validation:version-gate", args=[campaign.version.pk])
    page = client_for(cast.admin).get(reverse("annotation:needs_action")).content.decode()
    assert "below the threshold 0.99" in page and row.url in page
