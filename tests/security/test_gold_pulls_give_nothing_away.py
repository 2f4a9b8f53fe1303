"""Pulling a hidden gold check looks like pulling ordinary work: the same queries, never after the work ran out.

A gold pull that skipped the ranking of ordinary work would answer measurably faster; one served
once every ordinary response was taken would be gold by elimination. And a gold check's
discussion cohorts fill like an ordinary response's, so no thread waits for ever.
"""

import re

import pytest
from django.db import connection
from django.db.models import Count
from django.test.utils import CaptureQueriesContext

from annotation.models import Assignment, Campaign
from annotation.services import assignment as assignment_service
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


def test_no_gold_check_is_served_once_the_ordinary_work_is_taken(cast, monkeypatch):
    campaign = _campaign(cast.experts)
    expert = cast.expert
    while (pulled := assign_next_response(expert=expert, campaign=campaign)) is not None:
        judge(pulled)
    ordinary_taken = Assignment.objects.filter(
        expert=expert, campaign_response__campaign=campaign, campaign_response__is_gold=False
    ).count()
    assert ordinary_taken == campaign.responses.filter(is_gold=False).count()
    # Every draw now says "gold", and gold checks this expert has not had remain: still nothing.
    monkeypatch.setattr(assignment_service, "gold_draw", lambda *a: 0.0)
    untaken_gold = campaign.responses.filter(is_gold=True).exclude(assignments__expert=expert)
    if not untaken_gold.exists():
        Assignment.objects.filter(expert=expert, campaign_response__is_gold=True).delete()
    assert campaign.responses.filter(is_gold=True).exclude(assignments__expert=expert).exists()
    assert assign_next_response(expert=expert, campaign=campaign) is None


def test_a_gold_check_with_a_short_cohort_is_served_before_any_other(cast, monkeypatch):
    experts = [*cast.experts, *more_experts(5)]
    campaign = _campaign(experts, overlap=2)
    monkeypatch.setattr(assignment_service, "gold_draw", lambda *a: 0.0)
    for expert in experts:
        pulled = assign_next_response(expert=expert, campaign=campaign)
        assert pulled.campaign_response.is_gold
        judge(pulled)
        # At most one gold check is ever waiting for the second rater of its cohort; choosing in each
        # expert's own order alone would leave several short at once.
        assert sum(n % 2 for n in _takers(campaign)) <= 1, _takers(campaign)
    assert all(n % 2 == 0 for n in _takers(campaign))


def _takers(campaign) -> list[int]:
    return sorted(campaign.responses.filter(is_gold=True).annotate(n=Count("assignments")).values_list("n", flat=True))
