"""An expert who reruns the public sampler on the released data finds the hidden gold checks no better than by chance.

Gold checks used to come only from items outside the campaign's sample, and the sample was a pure
function of public data and the seed (0 by default, and shown on the campaign page to an admin who
is also an expert): rerunning it named every gold check. The attacker here sees every response of
the campaign with its item (an expert of a small team meets them all), reruns
`stratified_sample` with the likely seeds, or with the stored seed read off the page, keeps the
sample that best explains what they saw, and flags every response outside it as gold. Now the
sample is drawn with the server's key and gold checks sit on sampled items, so the flag scores
what guessing blindly scores: the share of gold among the responses.
"""

import math

import pytest

from annotation.models import Campaign
from tests.security.gold_attack import DEFAULT_SEEDS, Guess, heartbench_blind_test, rerun_sampler

pytestmark = pytest.mark.django_db


def everything_seen(campaign: Campaign) -> dict[int, int]:
    """What an expert of a team of k meets: every response of the campaign, with its item (the API's question_id)."""
    return dict(campaign.responses.values_list("pk", "item_id"))


def assert_no_better_than_chance(guess: Guess) -> None:
    # The flag picks responses regardless of gold, so its hits follow the hypergeometric law around the base rate;
    # four standard errors (plus a little) above it is never reached by chance, and is far below what the old
    # sampler gave (every flagged response was gold).
    p = guess.base_rate
    assert guess.flagged and guess.precision <= p + 4 * math.sqrt(p * (1 - p) / guess.flagged) + 0.02, guess
    assert guess.flagged >= 100, f"too few flagged responses for the precision to mean anything: {guess}"
    assert 0.05 <= p <= 0.2, f"the campaign is not the realistic one this test is about: {guess}"


def test_rerunning_the_sampler_with_the_likely_seeds_finds_gold_no_better_than_chance(cast):
    campaign = heartbench_blind_test(cast.experts, overlap=3)  # the admin gave no seed
    assert_no_better_than_chance(rerun_sampler(campaign, everything_seen(campaign), DEFAULT_SEEDS))


@pytest.mark.parametrize("given", [None, 0, 2025], ids=["random seed", "seed 0 given", "seed 2025 given"])
def test_rerunning_the_sampler_with_the_stored_seed_finds_gold_no_better_than_chance(cast, given):
    """An admin who is also an expert read the seed before joining the campaign (or after): without the server's key it tells nothing."""
    campaign = heartbench_blind_test(cast.experts, overlap=3, **({} if given is None else {"seed": given}))
    assert_no_better_than_chance(rerun_sampler(campaign, everything_seen(campaign), [campaign.seed]))
