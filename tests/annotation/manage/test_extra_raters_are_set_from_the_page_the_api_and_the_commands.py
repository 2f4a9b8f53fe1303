"""Extra raters where the verdicts split are set on the campaign form and page, through the API and the commands; bad input is named, never a 500."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import translation

from annotation.models import Campaign, CampaignSettings

from .helpers import MODELS, qualify
from .split_helpers import criteria_of, responses, split_campaign, split_verdicts, submit

pytestmark = pytest.mark.django_db

API = "/api/v1/annotation"


@pytest.fixture
def ready(cast):
    from tests.factories import demo_responses, demo_version

    demo_version()
    demo_responses()
    qualify(*cast.experts)


def _form(name="Split", **extra):
    return {
        "name": name,
        "dataset": "demo",
        "models": MODELS,
        "sample_fraction": "1",
        "overlap": "3",
        "reservation_hours": "2",
        "requires_qualification": "on",
        "gold_rate": "0",
        "min_tier_for_hard": "1",
        "piece_rate": "0",
        **extra,
    }


def test_the_form_creates_a_campaign_with_the_option(ready, cast, client_for):
    r = client_for(cast.admin).post(
        reverse("annotation:campaign_create"),
        _form(split_extension="on", split_extension_budget="20", split_extension_min_share="0.6"),
    )
    assert r.status_code == 302
    cfg = CampaignSettings.objects.get(campaign__name="Split")
    assert (cfg.split_extension, cfg.split_extension_budget, cfg.split_extension_min_share) == (True, 20, 0.6)


def test_the_option_is_off_unless_asked(ready, cast, client_for):
    assert client_for(cast.admin).post(reverse("annotation:campaign_create"), _form()).status_code == 302
    cfg = CampaignSettings.objects.get(campaign__name="Split")
    assert not cfg.split_extension and cfg.split_extension_budget == 0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"split_extension": "on", "split_extension_budget": "0"}, "the budget must be at least 2"),
        ({"split_extension_budget": "-4"}, "must not be negative"),
        ({"split_extension": "on", "split_extension_budget": "4", "split_extension_min_share": "0"}, "must be in (0, 1]"),
        ({"split_extension": "on", "split_extension_budget": "4", "split_extension_min_share": "1.2"}, "must be in (0, 1]"),
    ],
)
def test_bad_form_input_is_named_on_the_form(ready, cast, client_for, extra, message):
    r = client_for(cast.admin).post(reverse("annotation:campaign_create"), _form(**extra))
    assert r.status_code == 400
    assert message in r.content.decode()
    assert not Campaign.objects.exists()


def test_the_form_reads_in_chinese(ready, cast, client_for):
    with translation.override("zh-hans"):
        client = client_for(cast.admin)
        client.cookies["django_language"] = "zh-hans"
        body = client.get(reverse("annotation:campaign_create"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "意见分歧时增加评审专家" in body


def test_the_campaign_page_shows_and_changes_the_option(cast, client_for):
    campaign, experts = split_campaign(cast, on=False)
    cr = responses(campaign)[0]
    for expert, hits in zip(experts[:3], split_verdicts(len(criteria_of(cr)), len(criteria_of(cr))), strict=True):
        submit(expert, cr, hits)
    c = client_for(cast.admin)
    page = c.get(reverse("annotation:campaign", args=[campaign.pk])).content.decode()
    assert 'id="split-extension"' in page and 'id="split-extension-form"' in page
    url = reverse("annotation:campaign_split_extension", args=[campaign.pk])
    r = c.post(url, {"split_extension": "on", "split_extension_budget": "0"})
    assert r.status_code == 302
    assert not CampaignSettings.objects.get(campaign=campaign).split_extension
    r = c.post(url, {"split_extension": "on", "split_extension_budget": "6", "split_extension_min_share": "0.5"}, follow=True)
    assert r.status_code == 200
    cr.refresh_from_db()
    assert cr.extra_raters == 2  # the waiting response was extended when the option was turned on
    assert "2 extra assignments granted" in r.content.decode()
    assert c.post(url, {"split_extension_budget": "abc"}).status_code == 302  # named in a message, never a 500


def test_experts_cannot_change_the_option(cast, client_for):
    campaign, _experts = split_campaign(cast, on=False)
    r = client_for(cast.expert).post(
        reverse("annotation:campaign_split_extension", args=[campaign.pk]), {"split_extension": "on", "split_extension_budget": "4"}
    )
    assert r.status_code == 403
    assert not CampaignSettings.objects.get(campaign=campaign).split_extension


def test_the_api_creates_shows_and_changes_the_option(ready, cast, client_for):
    c = client_for(cast.admin)
    body = {"name": "API split", "dataset": "demo", "models": MODELS, "sample_fraction": 1, "seed": 2}
    r = c.post(f"{API}/manage/campaigns/", {**body, "split_extension": True, "split_extension_budget": 0}, content_type="application/json")
    assert r.status_code == 400 and "split_extension_budget" in r.json()["errors"]
    r = c.post(f"{API}/manage/campaigns/", {**body, "split_extension_min_share": 2}, content_type="application/json")
    assert r.status_code == 400 and "split_extension_min_share" in r.json()["errors"]
    r = c.post(f"{API}/manage/campaigns/", {**body, "split_extension": True, "split_extension_budget": 8}, content_type="application/json")
    assert r.status_code == 201, r.content
    shown = r.json()
    assert (shown["split_extension"], shown["split_extension_budget"], shown["split_extension_min_share"]) == (True, 8, 0.5)
    campaign = Campaign.objects.get(name="API split")
    url = f"{API}/manage/campaigns/{campaign.pk}/split-extension/"
    r = c.post(url, {"split_extension": True, "split_extension_budget": -2}, content_type="application/json")
    assert r.status_code == 400 and "split_extension_budget" in r.json()["errors"]
    r = c.post(url, {"split_extension": False, "split_extension_budget": 0}, content_type="application/json")
    assert r.status_code == 200
    assert r.json() == {
        "split_extension": False,
        "split_extension_budget": 0,
        "split_extension_min_share": 0.5,
        "spent": 0,
        "extended": 0,
        "extended_now": 0,
    }
    assert (
        client_for(cast.expert)
        .post(url, {"split_extension": True, "split_extension_budget": 4}, content_type="application/json")
        .status_code
        == 403
    )


def _create(*args):
    out = StringIO()
    call_command("create_campaign", *args, stdout=out)
    return out.getvalue()


def test_the_create_command_takes_the_option_and_names_bad_input(ready, cast):
    base = ["Cmd", "--dataset", "demo", "--models", ",".join(MODELS), "--sample", "1"]
    with pytest.raises(CommandError, match="split_extension_budget"):
        _create(*base, "--extra-raters-budget", "0")
    with pytest.raises(CommandError, match="split_extension_budget"):
        _create(*base, "--extra-raters-budget", "-2")
    with pytest.raises(CommandError, match="split_extension_min_share"):
        _create(*base, "--extra-raters-budget", "4", "--extra-raters-share", "0")
    assert not Campaign.objects.exists()
    _create(*base, "--extra-raters-budget", "12", "--extra-raters-share", "0.75")
    cfg = CampaignSettings.objects.get(campaign__name="Cmd")
    assert (cfg.split_extension, cfg.split_extension_budget, cfg.split_extension_min_share) == (True, 12, 0.75)


def test_the_extend_command_turns_the_option_on_and_extends_the_waiting(cast):
    campaign, experts = split_campaign(cast, on=False)
    for cr in responses(campaign)[:2]:
        for expert, hits in zip(experts[:3], split_verdicts(len(criteria_of(cr)), len(criteria_of(cr))), strict=True):
            submit(expert, cr, hits)
    with pytest.raises(CommandError, match="extra raters are off"):
        call_command("extend_split_responses", campaign.name, stdout=StringIO())
    with pytest.raises(CommandError, match="no campaign named"):
        call_command("extend_split_responses", "nope", "--budget", "2", stdout=StringIO())
    with pytest.raises(CommandError, match="must be in"):
        call_command("extend_split_responses", campaign.name, "--budget", "2", "--share", "3", stdout=StringIO())
    out = StringIO()
    call_command("extend_split_responses", campaign.name, "--budget", "2", stdout=out)
    assert out.getvalue().strip() == "1"  # the budget covers one of the two
    out = StringIO()
    call_command("extend_split_responses", campaign.name, "--budget", "4", stdout=out)
    assert out.getvalue().strip() == "1"
    with pytest.raises(CommandError, match="already granted"):
        call_command("extend_split_responses", campaign.name, "--budget", "2", stdout=StringIO())
    call_command("extend_split_responses", campaign.name, "--off", stdout=StringIO())
    assert not CampaignSettings.objects.get(campaign=campaign).split_extension


def test_an_admin_who_is_one_of_its_experts_reads_the_option_but_not_what_it_granted(cast, client_for):
    from heartbench_core.roles import Role
    from tests.conftest import make_user

    dual = make_user("dana_dual", Role.ADMIN, Role.EXPERT)
    campaign, experts = split_campaign(cast, budget=4)
    campaign.experts.add(dual)
    cr = responses(campaign)[0]
    for expert, hits in zip(experts[:3], split_verdicts(len(criteria_of(cr)), len(criteria_of(cr))), strict=True):
        submit(expert, cr, hits)
    url = reverse("annotation:campaign", args=[campaign.pk])
    assert "1 response extended" in client_for(cast.admin).get(url).content.decode()
    page = client_for(dual).get(url).content.decode()
    assert "within 4 extra assignments" in page and "extended" not in page.split('id="split-extension"')[1].split("</tr>")[0]
