"""Pulling a hidden gold check looks like pulling ordinary work: the same queries, and gold runs out as work does.

A gold pull that skipped the ranking of ordinary work would answer measurably faster; one served
once every ordinary response was taken would be gold by elimination. Gold checks are ranked with
the ordinary work and held by k experts like it, so they run out together, and a gold check
whose raters are partly there comes first exactly as an ordinary response nearer completion does.
"""

import re
from collections import Counter

import pytest
from django.db import connection
from django.db.models import Count
from django.test.utils import CaptureQueriesContext

from annotation.models import Assignment, Campaign
from annotation.services.assignment import assign_next_response
from annotation.services.campaigns import create_campaign
from heartbench_core.models import User
from tests.annotation.manage.helpers import gold_set, judge, more_experts, qualify
from tests.factories import demo_responses, demo_version

pytestmark = pytest.mark.django_db

GOLD_PICKS = [("dm0001", "demo-model-aurora"), ("dm0002", "demo-model-aurora"), ("dm0003", "demo-model-aurora")]


def _campaign(experts, *, gold_rate=0.5, overlap=2) -> Campaign:
    version = demo_version()
    demo_responses()
    qualify(*experts)
    return create_campaign(
        name="Blind with gold",
        dataset_name="demo",
        model_names=["demo-model-borealis", "demo-model-cirrus"],
        sample_fraction=1.0,
        overlap=overlap,
        gold_source=gold_set(version, picks=GOLD_PICKS),
        gold_rate=gold_rate,
        expert_usernames=[e.username for e in experts],
    ).campaign


def _statement_kinds(queries) -> list[str]:
    """Each statement's verb and the tables it names, in order: the shape of the work, without literal ids."""
    return [" ".join([q["sql"].split(None, 1)[0].upper(), *sorted(set(re.findall(r'"(\w+_\w+)"\.', q["sql"])))]) for q in queries]


def test_a_gold_pull_runs_the_same_queries_as_an_ordinary_pull(cast):
    campaign = _campaign(cast.experts)
    shapes = {True: set(), False: set()}
    while True:
        expert = User.objects.get(pk=cast.expert.pk)  # as each request loads it: no role cached from the last pull
        with CaptureQueriesContext(connection) as ctx:
            pulled = assign_next_response(expert=expert, campaign=campaign)
        if pulled is None:
            break
        shapes[pulled.campaign_response.is_gold].add(tuple(_statement_kinds(ctx.captured_queries)))
        judge(pulled)
    assert shapes[True] and shapes[False], "both kinds of pull happened"
    assert shapes[True] == shapes[False]


def test_gold_checks_run_out_exactly_as_ordinary_work_does(cast):
    experts = [*cast.experts, *more_experts(3)]
    campaign = _campaign(experts, overlap=2)
    active = list(experts)
    while active:  # everyone pulls in turn until nothing is left for anybody
        for expert in list(active):
            pulled = assign_next_response(expert=expert, campaign=campaign)
            if pulled is None:
                active.remove(expert)
            else:
                judge(pulled)
    takers = list(campaign.responses.annotate(n=Count("assignments")).values_list("is_gold", "n"))
    assert any(gold for gold, _n in takers), "the campaign has gold checks"
    # Nothing is left over for anyone once the work is done: every response, gold or not, has exactly its k raters,
    # so no expert is ever offered only gold.
    assert {n for _gold, n in takers} == {2}


def test_a_gold_check_with_a_rater_already_comes_first_like_an_ordinary_response(cast):
    campaign = _campaign(cast.experts, overlap=3)
    first, second, _third = cast.experts
    for gold in (True, False):
        started = campaign.responses.filter(is_gold=gold).first()
        Assignment.objects.create(campaign_response=started, expert=first)
        pulled = assign_next_response(expert=second, campaign=campaign)
        assert pulled.campaign_response == started, f"gold={gold}"
        judge(pulled)
        Assignment.objects.filter(campaign_response=started, expert=first).delete()
    held = Counter(Assignment.objects.filter(expert=second).values_list("campaign_response__is_gold", flat=True))
    assert held == {True: 1, False: 1}
