"""Adjudications, stored reports, release decisions and the policy history refuse a raw SQL UPDATE; a golden label cannot lose its provenance.

The services never rewrite them; the database triggers (validation/dbguard.py) make any other
client (psql, a script, a bulk update) fail as well, on PostgreSQL and SQLite alike. What Django
itself updates still works: a deleted user's name is cleared, a refresh rewrites labels in line.
"""

import pytest
from django.db import IntegrityError, connection, transaction

from annotation.models import CampaignResponse
from heartbench_core.models import Criterion
from heartbench_core.roles import Role
from tests.conftest import make_user
from tests.validation.builders import blind_test
from validation.models import Adjudication, AgreementReport, GoldenLabel, ReleaseGate, ReleasePolicyChange
from validation.selectors import adjudication_units
from validation.services.agreement_reports import create_agreement_report
from validation.services.golden import adjudicate, refresh_golden_labels
from validation.services.release import change_release_policy

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(cast):
    campaign = blind_test(cast)
    refresh_golden_labels(campaign=campaign)
    entry = adjudication_units(campaign)[0]  # a reviewer may decide any compared unit
    adjudicate(
        reviewer=cast.reviewer,
        campaign_response=CampaignResponse.objects.get(pk=entry.campaign_response_id),
        criterion=Criterion.objects.get(pk=entry.criterion_id),
        hit=entry.expert_hits < 2,  # against the majority
        cause="rater_error",
        note="decided",
    )
    change_release_policy(dataset=campaign.version.dataset, admin=cast.admin, reason="agreed first", threshold=0.5)
    create_agreement_report(campaign=campaign)  # under the policy: it decides the release
    return campaign


def refused(sql, params=()):
    with pytest.raises(IntegrityError) as exc, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)
    return str(exc.value)


def test_an_adjudication_refuses_any_update(campaign):
    decision = Adjudication.objects.get()
    assert "append-only" in refused("UPDATE validation_adjudication SET hit = NOT hit")
    assert "append-only" in refused("UPDATE validation_adjudication SET note = 'rewritten' WHERE id = %s", [decision.pk])
    with pytest.raises(IntegrityError), transaction.atomic():
        Adjudication.objects.filter(pk=decision.pk).update(cause="other")
    assert Adjudication.objects.get().note == "decided"


def test_a_stored_report_refuses_a_new_result_or_figure(campaign, cast):
    report = AgreementReport.objects.get()
    assert "immutable" in refused("UPDATE validation_agreementreport SET result = %s", ['{"item_agreement": {}}'])
    assert "immutable" in refused("UPDATE validation_agreementreport SET exploratory = NOT exploratory")
    assert "immutable" in refused("UPDATE validation_agreementreport SET agreement_value = 0.99")
    assert "immutable" in refused("UPDATE validation_agreementreport SET requested_by_id = %s", [cast.reviewer.pk])
    # Clearing the copied figure is harmless: readers then compute it from the stored result.
    figure = report.agreement_rate
    AgreementReport.objects.update(agreement_stored=False, agreement_value=None)
    assert AgreementReport.objects.get().agreement_rate.value == figure.value


def test_a_release_decision_refuses_any_update(campaign):
    assert ReleaseGate.objects.exists()
    assert "release decisions" in refused("UPDATE validation_releasegate SET passed = NOT passed")
    assert "release decisions" in refused("UPDATE validation_releasegate SET reasons = %s", ["[]"])


def test_the_policy_history_refuses_a_rewrite_but_forgets_a_deleted_admin(campaign, cast):
    assert "append-only" in refused("UPDATE validation_releasepolicychange SET reason = 'another reason'")
    assert "append-only" in refused("UPDATE validation_releasepolicychange SET changed_by_id = %s", [cast.reviewer.pk])
    departing = make_user("departing_admin", Role.ADMIN)
    change_release_policy(dataset=campaign.version.dataset, admin=departing, reason="stricter", threshold=0.6)
    report = create_agreement_report(campaign=campaign, resamples=10, requested_by=departing)
    departing.delete()  # SET_NULL: the change and the report stay, without who asked
    assert ReleasePolicyChange.objects.filter(changed_by=None, reason="stricter").exists()
    assert AgreementReport.objects.get(pk=report.pk).requested_by is None


def test_a_golden_label_cannot_say_other_than_its_provenance(campaign):
    decided = GoldenLabel.objects.get(provenance="adjudicated")
    voted = GoldenLabel.objects.filter(provenance="majority").first() or GoldenLabel.objects.filter(provenance="unanimous").first()
    assert "provenance" in refused("UPDATE validation_goldenlabel SET hit = NOT hit WHERE id = %s", [decided.pk])
    assert "provenance" in refused("UPDATE validation_goldenlabel SET hit = NOT hit WHERE id = %s", [voted.pk])
    assert "provenance" in refused("UPDATE validation_goldenlabel SET expert_hits = expert_ratings - expert_hits WHERE id = %s", [voted.pk])
    # A refresh still rewrites labels in line with the votes, and a new decision still wins.
    GoldenLabel.objects.filter(pk=voted.pk).delete()
    assert refresh_golden_labels(campaign=campaign).created == 1
