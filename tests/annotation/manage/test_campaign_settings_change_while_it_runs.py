"""An admin changes a running campaign's settings and guidelines; changes that could bias the blind test ask first and are recorded."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.admin.models import LogEntry
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, Campaign, CampaignGuidelines
from annotation.services.assignment import assign_next_response
from annotation.services.campaigns import update_campaign_settings

from .helpers import demo_campaign

pytestmark = pytest.mark.django_db

API = "/api/v1/annotation"


def submit_one(campaign, expert):
    a = assign_next_response(expert=expert, campaign=campaign)
    Assignment.objects.filter(pk=a.pk).update(status=Assignment.Status.SUBMITTED, submitted_at=timezone.now())
    return a


def form_data(campaign, **overrides):
    data = {
        "rationale_min_chars": campaign.rationale_min_chars,
        "deadline": "",
        "reservation_hours": "2",
        "piece_rate": "0",
        "certificate_name": "",
        "guidelines": "",
        "change_note": "",
    }
    if campaign.show_weights:
        data["show_weights"] = "on"
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


def test_the_page_changes_every_setting_and_publishes_guidelines_with_their_history(cast, client_for):
    campaign = demo_campaign(cast)
    c = client_for(cast.admin)
    url = reverse("annotation:campaign_edit", args=[campaign.pk])
    assert c.get(url).status_code == 200
    r = c.post(
        url,
        form_data(
            campaign,
            rationale_min_chars=25,
            deadline="2030-01-31T18:00",
            show_weights="on",
            reservation_hours="4",
            piece_rate="1.25",
            certificate_name="Empathy Evaluation Expert",
            guidelines="# Read the whole dialogue\n\nJudge each criterion on its own.",
            change_note="first version",
        ),
        follow=True,
    )
    assert r.status_code == 200
    campaign.refresh_from_db()
    assert campaign.rationale_min_chars == 25 and campaign.show_weights
    assert campaign.reservation_timeout == timedelta(hours=4) and campaign.piece_rate == Decimal("1.25")
    assert campaign.deadline is not None and campaign.deadline.year == 2030
    assert campaign.settings.certificate_name == "Empathy Evaluation Expert"
    rev = CampaignGuidelines.objects.get(campaign=campaign)
    assert (rev.revision, rev.change_note, rev.author) == (1, "first version", cast.admin)
    # A second edit of only the guidelines is revision 2; the page lists both, with who and why.
    c.post(
        url,
        form_data(
            campaign,
            **{
                "show_weights": "on",
                "piece_rate": "1.25",
                "reservation_hours": "4",
                "deadline": "2030-01-31T18:00",
                "certificate_name": "Empathy Evaluation Expert",
                "guidelines": "# Read it twice",
                "change_note": "shorter",
            },
        ),
    )
    html = c.get(url).content.decode()
    assert CampaignGuidelines.objects.filter(campaign=campaign).count() == 2
    assert "shorter" in html and "first version" in html and cast.admin.username in html
    assert "show_weights: False → True" in html  # the recorded change


def test_turning_weights_on_after_work_was_submitted_asks_for_a_confirmation_then_records_it(cast, client_for):
    campaign = demo_campaign(cast)
    submit_one(campaign, cast.expert)
    c = client_for(cast.admin)
    url = reverse("annotation:campaign_edit", args=[campaign.pk])
    asked = c.post(url, form_data(campaign, show_weights="on"))
    campaign.refresh_from_db()
    assert asked.status_code == 200 and not campaign.show_weights
    html = asked.content.decode()
    assert "Confirm this change" in html and "whether criterion weights are shown" in html and 'name="confirm" value="True"' in html
    c.post(url, form_data(campaign, show_weights="on", confirm="True"))
    campaign.refresh_from_db()
    assert campaign.show_weights
    entry = LogEntry.objects.get(object_id=str(campaign.pk))
    assert entry.user == cast.admin and "show_weights: False → True" in entry.change_message and "confirmed" in entry.change_message


def test_a_change_that_biases_nothing_needs_no_confirmation_even_mid_test(cast):
    campaign = demo_campaign(cast)
    submit_one(campaign, cast.expert)
    changed = update_campaign_settings(campaign=campaign, by=cast.admin, piece_rate=Decimal("3"), deadline=None)
    assert [(c.field, c.bias_risk) for c in changed] == [("piece_rate", False)]
    with pytest.raises(ValidationError) as exc:
        update_campaign_settings(campaign=campaign, by=cast.admin, guidelines="New rules")
    assert "guidelines" in exc.value.message_dict["confirm"][0]
    assert not CampaignGuidelines.objects.exists()


def test_bad_values_are_refused_naming_the_field(cast, client_for):
    campaign = demo_campaign(cast)
    c = client_for(cast.admin)
    r = c.post(reverse("annotation:campaign_edit", args=[campaign.pk]), form_data(campaign, rationale_min_chars="-3", piece_rate="abc"))
    assert r.status_code == 400
    assert set(r.context["form"].errors) == {"rationale_min_chars", "piece_rate"}
    with pytest.raises(ValidationError) as exc:
        update_campaign_settings(campaign=campaign, by=cast.admin, overlap=5)
    assert "overlap" in exc.value.message_dict


def test_the_api_patches_settings_with_the_same_rules(cast, client_for):
    campaign = demo_campaign(cast)
    submit_one(campaign, cast.expert)
    c = client_for(cast.admin)
    url = f"{API}/manage/campaigns/{campaign.pk}/"
    r = c.patch(url, {"show_weights": True}, content_type="application/json")
    assert r.status_code == 400 and "confirm" in r.json()["errors"]
    r = c.patch(
        url,
        {
            "show_weights": True,
            "confirm": True,
            "deadline": "2030-01-01T00:00:00Z",
            "reservation_timeout_minutes": 90,
            "guidelines": "Be kind",
            "change_note": "v1",
            "certificate_name": "Rater",
        },
        content_type="application/json",
    )
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["campaign"]["show_weights"] is True and body["campaign"]["certificate_name"] == "Rater"
    assert body["campaign"]["deadline"].startswith("2030-01-01")
    assert {ch["field"] for ch in body["changed"]} == {"show_weights", "deadline", "reservation_timeout", "guidelines", "certificate_name"}
    history = c.get(f"{url}settings-history/").json()
    assert history["guidelines"][0]["change_note"] == "v1" and history["guidelines"][0]["author"] == cast.admin.username
    assert history["changes"] and history["changes"][0]["by"] == cast.admin.username
    bad = c.patch(url, {"rationale_min_chars": -1}, content_type="application/json")
    assert bad.status_code == 400 and "rationale_min_chars" in str(bad.json())
    assert client_for(cast.expert).patch(url, {"piece_rate": "9"}, content_type="application/json").status_code == 403
    assert Campaign.objects.get(pk=campaign.pk).piece_rate == 0
