"""PostgreSQL: a refresh COPYs new golden labels without the per-row foreign-key checks, and does their work itself.

The checks ran at COMMIT, three lookups a label (12 of a 26-second first refresh at 100×
HeartBench). In their place the refresh locks what the labels reference and stops, writing
nothing, when a reference is gone; the labels written are the same as with every check kept.
"""

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.db import connection

from annotation.models import CampaignResponse
from heartbench_core.models import Criterion
from tests.validation.builders import blind_test
from validation.models import GoldenLabel
from validation.selectors import adjudication_units, load_campaign_arrays
from validation.services import golden
from validation.services.golden import adjudicate, refresh_golden_labels

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="COPY and session_replication_role are PostgreSQL's")


def stored(campaign):
    return set(
        GoldenLabel.objects.filter(campaign=campaign).values_list(
            "campaign_response_id", "criterion_id", "hit", "provenance", "expert_hits", "expert_ratings", "adjudication_id"
        )
    )


@pytest.fixture
def campaign(cast):
    campaign = blind_test(cast, flip=0.3)
    # One decided unit, so the copied labels reference a decision too.
    entry = adjudication_units(campaign)[0]
    adjudicate(
        reviewer=cast.reviewer,
        campaign_response=CampaignResponse.objects.get(pk=entry.campaign_response_id),
        criterion=Criterion.objects.get(pk=entry.criterion_id),
        hit=entry.expert_hits < 2,  # against the majority, so the decision shows
        cause="rater_error",
        note="decided",
    )
    GoldenLabel.objects.all().delete()  # every label, the decided one included, is new to the refresh
    return campaign


def role():
    with connection.cursor() as cursor:
        cursor.execute("SHOW session_replication_role")
        return cursor.fetchone()[0]


def test_the_labels_are_those_written_with_every_check_kept(campaign, monkeypatch):
    assert golden.may_skip_row_triggers([GoldenLabel._meta.db_table], golden.REPLACED_TRIGGERS)  # the test database's role may
    fast = refresh_golden_labels(campaign=campaign)
    copied = stored(campaign)
    assert fast.created == len(copied) > 0 and any(row[3] == "adjudicated" and row[6] for row in copied)
    assert role() == "origin"  # what the transaction writes next goes through every trigger again
    GoldenLabel.objects.all().delete()
    monkeypatch.setattr(golden, "may_skip_row_triggers", lambda tables, replaced: False)
    checked = refresh_golden_labels(campaign=campaign)
    assert checked.created == fast.created and stored(campaign) == copied


def test_a_reference_gone_since_the_campaign_was_read_stops_the_refresh_and_writes_nothing(campaign):
    data = load_campaign_arrays(campaign)
    gone = int(CampaignResponse.objects.order_by("-pk").values_list("pk", flat=True)[0]) + 1000
    data.cr_id = np.where(np.arange(data.cr_id.size) == 0, gone, data.cr_id)  # a response deleted after it was read
    with pytest.raises(ValidationError, match="changed during the refresh"):
        refresh_golden_labels(campaign=campaign, data=data)
    assert not GoldenLabel.objects.exists()
