"""A certified expert downloads a printable certificate per campaign; it states their own aggregate figures only, in either language."""

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, Campaign, CampaignResponse, CampaignSettings, ExpertProfile, ExpertQuality
from annotation.services.campaigns import set_campaign_status

from .helpers import demo_campaign

pytestmark = pytest.mark.django_db

API = "/api/v1/annotation"


def submitted(campaign, expert, n: int, *, gold: int = 0) -> None:
    crs = list(CampaignResponse.objects.filter(campaign=campaign).order_by("order_key")[:n])
    CampaignResponse.objects.filter(pk__in=[cr.pk for cr in crs[:gold]]).update(is_gold=True)
    Assignment.objects.bulk_create(
        [Assignment(campaign_response=cr, expert=expert, status="submitted", submitted_at=timezone.now()) for cr in crs]
    )


def certify(expert, *, gold_accuracy=0.9, checks=12, criteria=80) -> ExpertQuality:
    profile, _ = ExpertProfile.objects.get_or_create(user=expert)
    return ExpertQuality.objects.update_or_create(
        profile=profile,
        defaults={
            "calibration_score": 0.85,
            "gold_accuracy": gold_accuracy,
            "gold_checks": checks,
            "gold_criteria": criteria,
            "submitted": 60,
            "certified_at": timezone.now(),
        },
    )[0]


@pytest.fixture
def worked(cast):
    campaign = demo_campaign(cast)
    submitted(campaign, cast.expert, 7, gold=2)
    return campaign


def test_no_certificate_before_the_thresholds_are_met(worked, cast, client_for):
    c = client_for(cast.expert)
    assert c.get(reverse("annotation:certificate", args=[worked.pk])).status_code == 404
    assert c.get(f"{API}/profiles/certificates/").json() == []
    assert "/profile/certificates/" not in c.get(reverse("annotation:profile")).content.decode()


def test_a_certified_expert_gets_a_printable_page_with_their_own_figures(worked, cast, client_for):
    CampaignSettings.objects.filter(campaign=worked).update(certificate_name="Empathy Evaluation Expert")
    certify(cast.expert)
    set_campaign_status(campaign=worked, status=Campaign.Status.CLOSED, reason="done")
    c = client_for(cast.expert)
    profile = c.get(reverse("annotation:profile")).content.decode()
    url = reverse("annotation:certificate", args=[worked.pk])
    assert url in profile
    html = c.get(url).content.decode()
    assert "Empathy Evaluation Expert" in html and worked.name in html
    assert "<strong>7</strong>" in html  # every submitted response, gold checks among them, none singled out
    assert "90%" in html and "over 12 checks (80 criteria)" in html
    assert "css/certificate.css" in html
    api = c.get(f"{API}/profiles/certificates/").json()
    assert [(row["campaign"], row["submitted"], row["quality"], row["gold_checks"]) for row in api] == [(worked.name, 7, 0.9, 12)]
    # The verification page confirms it to anyone, without the quality figure.
    client_for(cast.outsider)
    verify = c.get(api[0]["verify_url"].split("testserver", 1)[1])
    assert verify.status_code == 200 and "genuine" in verify.content.decode() and "90%" not in verify.content.decode()
    forged = api[0]["code"][:-1] + ("0" if api[0]["code"][-1] != "0" else "1")
    assert c.get(reverse("annotation:certificate_verify", args=[forged])).status_code == 404


def test_the_default_title_and_the_chinese_page(worked, cast, client_for):
    certify(cast.expert)
    c = client_for(cast.expert)
    assert "AI Evaluation Expert" in c.get(reverse("annotation:certificate", args=[worked.pk])).content.decode()
    zh = c.get(reverse("annotation:certificate", args=[worked.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert '<html lang="zh-hans">' in zh


def test_while_a_campaign_is_open_the_exact_quality_is_withheld_even_from_an_expert_who_is_also_admin(worked, cast, client_for):
    expert = cast.expert
    expert.groups.add(Group.objects.get_or_create(name="admin")[0])
    certify(expert, gold_accuracy=0.93)
    c = client_for(expert)
    html = c.get(reverse("annotation:certificate", args=[worked.pk])).content.decode()
    assert "93%" not in html and "≥ 80%" in html and "checks" not in html
    row = c.get(f"{API}/profiles/certificates/").json()[0]
    assert row["quality"] is None and row["gold_checks"] == 0


def test_an_expert_never_reaches_another_experts_certificate(worked, cast, client_for):
    certify(cast.expert)
    other = cast.experts[1]
    certify(other)
    # The page is always the requester's own: the other expert has no work in the campaign, so none.
    assert client_for(other).get(reverse("annotation:certificate", args=[worked.pk])).status_code == 404
    assert client_for(cast.outsider).get(reverse("annotation:certificate", args=[worked.pk])).status_code in (302, 403)


def test_the_profile_page_lists_the_certificates_the_api_gives(worked, cast, client_for):
    other = demo_campaign(cast, name="Second blind test")
    submitted(other, cast.expert, 3)
    certify(cast.expert)
    c = client_for(cast.expert)
    api = c.get(f"{API}/profiles/certificates/").json()
    profile = c.get(reverse("annotation:profile")).content.decode()
    assert sorted(row["campaign"] for row in api) == sorted([worked.name, other.name])
    for row in api:
        assert reverse("annotation:certificate", args=[row["campaign_id"]]) in profile and row["campaign"] in profile
