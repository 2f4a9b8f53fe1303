"""Experts who work a whole campaign cannot tell its hidden gold checks by how often an item comes back, or by when.

An ordinary item comes back once per model; a gold check drawn from an item outside the sample
came alone (or with fewer than the models' count), so counting the `question_id`s of one's own
work named it. Here the experts of a realistic campaign (the released items, three models, a
gold rate of 0.1) pull everything there is through `assign_next_response`, in turn, as a team
of k (N = k = 3) and as a larger team (N = 6, k = 3). Each then plays the attacker on their own
work: flag the items met a number of times other than the most common one, the items met once,
the items met any given number of times — counting as right each gold check among the responses
of the flagged items — and look for gold among their last (and first) pulls.
"""

import math
from collections import Counter

import pytest

from tests.annotation.manage.helpers import more_experts
from tests.security.gold_attack import (
    Guess,
    answers_per_item,
    flag_items,
    heartbench_blind_test,
    item_counts,
    responses_per_item,
    work_through,
)

pytestmark = pytest.mark.django_db

SAMPLE = 0.25  # 74 of the 296 items, 222 responses: every expert's whole work in a test's time


def assert_no_better_than_chance(guess: Guess, what: str) -> None:
    """A flag that ignores gold hits it at the base rate: four standard errors (hypergeometric) above it is never chance."""
    if not guess.flagged:
        return
    p, n, population = guess.base_rate, guess.flagged, guess.population
    spread = math.sqrt(p * (1 - p) * (population - n) / max(population - 1, 1) / n)
    assert guess.precision <= p + 4 * spread + 0.02, (what, guess)


@pytest.fixture(params=[(3, 3), (6, 3)], ids=["N=k=3", "N=6,k=3"])
def team(request, cast):
    """(campaign, {expert: their work in order}, N) once the team has worked through everything there is."""
    n, k = request.param
    experts = [*cast.experts, *more_experts(n - 3)]
    campaign = heartbench_blind_test(experts, overlap=k, sample=SAMPLE, seed=20251128)
    assert campaign.responses.filter(is_gold=True).count() >= 15, "too few gold checks for the attack to be judged"
    return campaign, work_through(campaign, experts), n


def test_an_expert_who_worked_the_whole_campaign_tells_gold_no_better_than_chance(team):
    """One team's work is costly to make: both attacks are played on it."""
    campaign, work, n = team
    assert_counting_items_finds_gold_no_better_than_chance(campaign, work, n)
    assert_gold_comes_as_often_among_the_last_pulls_as_anywhere(work)


def assert_counting_items_finds_gold_no_better_than_chance(campaign, work, n):
    k = campaign.overlap
    models = answers_per_item(campaign)
    for expert, received in work.items():
        met = item_counts(received)
        if n == k:
            # A team of k: everyone judges every response, so every item comes back exactly once per model; no item stands out.
            assert all(met[item] == models[item] for item in met), expert
            assert len(met) == len(responses_per_item(campaign))
        usual = Counter(met.values()).most_common(1)[0][0]
        flags = {
            "met a number of times other than the most common": {i for i, c in met.items() if c != usual},
            "met once": {i for i, c in met.items() if c == 1},
            **{f"met {c} times": {i for i, m in met.items() if m == c} for c in set(met.values())},
        }
        if n == k:
            assert not flags["met a number of times other than the most common"] and not flags["met once"], expert
        for name, items in flags.items():
            assert_no_better_than_chance(flag_items(received, items), f"expert {expert}: items {name}")


def assert_gold_comes_as_often_among_the_last_pulls_as_anywhere(work):
    pulls = [kinds for kinds in ([gold for _cr, _item, gold in received] for received in work.values()) if kinds]
    share = sum(map(sum, pulls)) / sum(map(len, pulls))
    for part in ("last", "first"):
        ends = [kinds[-max(1, len(kinds) // 10) :] if part == "last" else kinds[: max(1, len(kinds) // 10)] for kinds in pulls]
        n = sum(map(len, ends))
        gold = sum(map(sum, ends))
        # Gold is share of every expert's work; its share among their last (first) tenth differs only by chance.
        assert abs(gold / n - share) <= 4 * math.sqrt(share * (1 - share) / n) + 0.02, (part, gold, n, share)
