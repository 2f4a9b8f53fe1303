"""An admin plans a blind test on the page, the API and `plan_blind_test`: from a pilot blind test or from
assumptions, a grid of designs with their expected half-widths and costs; bad input gets a clear message,
and a person blind to the dataset cannot read a pilot's figures through it."""

import json
import re
from io import StringIO

import pytest
from django.contrib.auth.models import Group
from django.core.management import CommandError, call_command
from django.urls import reverse

from heartbench_core.lib import planner as lib
from heartbench_core.roles import Role
from tests.factories import demo_version
from tests.validation.builders import blind_test

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_pilots(monkeypatch):
    """The demo's blind test has 6 items: let the planner take it as a pilot (the real minimum is tested below)."""
    monkeypatch.setattr(lib, "MIN_PILOT_ITEMS", 5)


def _designs(payload):
    return {(d["share"], d["raters"]): d for d in payload["designs"]}


def test_the_api_plans_from_a_pilot_with_costs_and_half_widths(cast, client_for, small_pilots):
    pilot = blind_test(cast)
    body = {
        "version": pilot.version_id,
        "models": 14,
        "pilot": pilot.pk,
        "shares": [0.2, 0.4],
        "raters": [3],
        "piece_rate": 2.5,
        "simulations": 200,
    }
    response = client_for(cast.admin).post("/api/v1/validation/planner/", body, content_type="application/json")
    assert response.status_code == 200, response.content
    payload = response.json()
    assert payload["assumed"] is False and payload["pilot"] == pilot.name
    assert "blind-1" in payload["pilot_text"] and payload["pool"] == 3
    designs = _designs(payload)
    items = pilot.version.items.count()
    d = designs[(0.4, 3)]
    assert d["items"] == max(1, round(0.4 * items)) and d["responses"] == d["items"] * 14 and d["assignments"] == d["responses"] * 3
    assert d["money"] == pytest.approx(d["assignments"] * 2.5)
    assert 0 < d["agreement_half_width"] < designs[(0.2, 3)]["agreement_half_width"]


def test_without_a_pilot_the_plan_says_its_figures_are_assumptions(cast, client_for):
    version = demo_version()
    body = {"version": version.pk, "models": 3, "shares": [0.5, 1.0], "raters": [3], "simulations": 100, "target_agreement": 0.5}
    payload = client_for(cast.admin).post("/api/v1/validation/planner/", body, content_type="application/json").json()
    assert payload["assumed"] is True and payload["seconds_measured_on"] == 0
    assert "assumptions" in payload["pilot_text"]
    assert payload["recommended"] is not None and payload["target_met"] is True


@pytest.mark.parametrize(
    "change,field",
    [({"models": 0}, "models"), ({"shares": [1.5]}, "shares"), ({"raters": [0]}, "raters"), ({"raters": [9]}, "raters")],
)
def test_bad_input_is_refused_naming_the_field(cast, client_for, small_pilots, change, field):
    pilot = blind_test(cast)
    body = {"version": pilot.version_id, "models": 3, "pilot": pilot.pk, "simulations": 50} | change
    response = client_for(cast.admin).post("/api/v1/validation/planner/", body, content_type="application/json")
    assert response.status_code == 400
    assert field in json.dumps(response.json())


def test_a_pilot_too_small_is_refused_with_how_many_items_it_has(cast, client_for):
    pilot = blind_test(cast)
    body = {"version": pilot.version_id, "models": 3, "pilot": pilot.pk, "simulations": 50}
    response = client_for(cast.admin).post("/api/v1/validation/planner/", body, content_type="application/json")
    assert response.status_code == 400
    assert "6 items" in json.dumps(response.json(), ensure_ascii=False)


def test_a_pilot_on_another_dataset_is_refused(cast, client_for, small_pilots):
    pilot = blind_test(cast)
    other = demo_version("other-demo")
    body = {"version": other.pk, "models": 3, "pilot": pilot.pk, "simulations": 50}
    response = client_for(cast.admin).post("/api/v1/validation/planner/", body, content_type="application/json")
    assert response.status_code == 400
    assert "same dataset" in json.dumps(response.json())


def test_an_admin_who_judges_in_a_blind_test_of_the_dataset_cannot_plan_on_it(cast, client_for, small_pilots):
    pilot = blind_test(cast)
    pilot.status = "active"  # open: its experts are blind to the dataset
    pilot.save(update_fields=["status"])
    judging_admin = cast.experts[0]
    judging_admin.groups.add(Group.objects.get_or_create(name=Role.ADMIN.value)[0])
    body = {"version": pilot.version_id, "models": 3, "pilot": pilot.pk, "simulations": 50}
    response = client_for(judging_admin).post("/api/v1/validation/planner/", body, content_type="application/json")
    assert response.status_code == 400
    assert "blind" in json.dumps(response.json())
    page = client_for(judging_admin).get(reverse("validation:planner"))
    assert pilot.name not in page.content.decode()


def test_the_page_plans_and_each_design_fills_the_campaign_form(cast, client_for, small_pilots):
    pilot = blind_test(cast)
    client = client_for(cast.admin)
    page = client.get(reverse("validation:planner"))
    assert page.status_code == 200 and pilot.name in page.content.decode()
    query = {
        "version": pilot.version_id,
        "models": 3,
        "pilot": pilot.pk,
        "shares": "0.5",
        "raters": "3",
        "piece_rate": "2",
        "judge_agreement": 0.87,
        "leniency_sd": 0.5,
        "seconds_per_criterion": 20,
        "target_agreement": 50,
    }
    page = client.get(reverse("validation:planner"), query)
    html = page.content.decode()
    assert page.status_code == 200 and "Simulated from the pilot blind-1" in html and "Use this design" in html
    link = html.split('href="/work/manage/campaigns/new/?')[1].split('"')[0].replace("&amp;", "&")
    form = client.get("/work/manage/campaigns/new/?" + link).content.decode()
    assert 'value="0.5"' in form and 'name="overlap"' in form


def test_the_page_names_the_field_of_bad_input(cast, client_for):
    version = demo_version()
    query = {
        "version": version.pk,
        "models": 3,
        "shares": "0.5, two",
        "raters": "3",
        "judge_agreement": 0.87,
        "leniency_sd": 0.5,
        "seconds_per_criterion": 20,
    }
    page = client_for(cast.admin).get(reverse("validation:planner"), query)
    assert page.status_code == 400 and "Give shares between 0 and 1" in page.content.decode()


def test_the_command_prints_the_grid_and_refuses_bad_input(cast, small_pilots):
    pilot = blind_test(cast)
    out = StringIO()
    call_command("plan_blind_test", dataset="demo", models=3, pilot=pilot.name, shares="0.5,1", raters="3", simulations=50, stdout=out)
    text = out.getvalue()
    assert "Simulated from the pilot blind-1" in text and "100%" in text
    out = StringIO()
    call_command("plan_blind_test", dataset="demo", models=3, shares="0.5", raters="3", simulations=50, format="json", stdout=out)
    assert json.loads(out.getvalue())["assumed"] is True
    with pytest.raises(CommandError, match="no campaign named"):
        call_command("plan_blind_test", dataset="demo", models=3, pilot="nope")
    with pytest.raises(CommandError, match="--shares"):
        call_command("plan_blind_test", dataset="demo", models=3, shares="a,b")


def test_the_plan_can_include_extra_raters_where_the_verdicts_split_and_the_design_fills_the_option(cast, client_for, small_pilots):
    pilot = blind_test(cast)
    body = {
        "version": pilot.version_id,
        "models": 3,
        "pilot": pilot.pk,
        "shares": [1.0],
        "raters": [3],
        "simulations": 50,
        "extension": True,
        "extension_min_share": 0.01,
        "extension_budget_share": 0.5,
        "pool": 5,
    }
    payload = client_for(cast.admin).post("/api/v1/validation/planner/", body, content_type="application/json").json()
    assert len(payload["designs"]) == 2, payload
    plain, extended = sorted(payload["designs"], key=lambda d: d["extended"])
    assert not plain["extended"] and extended["extended"]
    assert extended["assignments"] == plain["assignments"] + 2 * extended["extended_responses"]
    out = StringIO()
    call_command(
        "plan_blind_test",
        dataset="demo",
        models=3,
        pilot=pilot.name,
        shares="1",
        raters="3",
        simulations=50,
        extra_raters="0.01,0.5",
        pool=5,
        stdout=out,
    )
    assert "extra" in out.getvalue()
    with pytest.raises(CommandError, match="two numbers"):
        call_command("plan_blind_test", dataset="demo", models=3, extra_raters="0.5")


def test_a_design_with_extra_raters_fills_the_campaigns_option(cast, client_for, small_pilots):
    blind_test(cast)
    client = client_for(cast.admin)
    form = client.get(
        "/work/manage/campaigns/new/",
        {
            "sample_fraction": "0.5",
            "overlap": "3",
            "split_extension": "on",
            "split_extension_budget": "12",
            "split_extension_min_share": "0.4",
        },
    ).content.decode()
    (box,) = re.findall(r'<input[^>]*name="split_extension"[^>]*>', form)
    assert "checked" in box
    assert 'value="12"' in form and 'value="0.4"' in form


def test_expert_hours_come_from_the_time_measured_on_the_pilot_also_per_tier(cast, client_for, small_pilots):
    from annotation.models import Assignment, ExpertProfile

    pilot = blind_test(cast)
    for n, expert in enumerate(cast.experts):
        ExpertProfile.objects.update_or_create(user=expert, defaults={"tier": 1 if n < 2 else 2})
        # 10 s per criterion for tier 1, 30 s for tier 2.
        for assignment in Assignment.objects.filter(expert=expert, status="submitted").select_related("campaign_response__item"):
            criteria = assignment.campaign_response.item.criteria.count()
            Assignment.objects.filter(pk=assignment.pk).update(active_seconds=criteria * (10 if n < 2 else 30))
    body = {"version": pilot.version_id, "models": 3, "pilot": pilot.pk, "shares": [1.0], "raters": [3], "simulations": 50}
    payload = client_for(cast.admin).post("/api/v1/validation/planner/", body, content_type="application/json").json()
    assert payload["seconds_measured_on"] > 0 and payload["seconds_per_criterion"] == pytest.approx(10.0)
    assert [(t["tier"], t["seconds_per_criterion"]) for t in payload["seconds_by_tier"]] == [(1, 10.0), (2, 30.0)]
    design = payload["designs"][0]
    assert design["expert_hours"] == pytest.approx(design["judgments"] * 10.0 / 3600)
